#include "data/cli.h"

#include <iostream>

#include "core/error.h"

namespace realmt::data::cli {

bool parse(OptionSet& set, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return set.parse(static_cast<int>(argv.size()), argv.data(), std::cout);
}

std::string one_input(const std::string& option, const std::vector<std::string>& positionals,
                      const std::string& command) {
  REALMT_USAGE_CHECK(option.empty() || positionals.empty(),
                     "realmt-data {}: give the input as -i FILE or as the argument, not both",
                     command);
  REALMT_USAGE_CHECK(positionals.size() <= 1, "realmt-data {}: one input file, got {}", command,
                     positionals.size());
  const std::string input = option.empty() && !positionals.empty() ? positionals[0] : option;
  REALMT_USAGE_CHECK(!input.empty(),
                     "realmt-data {}: give the input file (see realmt-data {} --help)", command,
                     command);
  return input;
}

}  // namespace realmt::data::cli
