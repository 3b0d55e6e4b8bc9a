// realmt-data: WMT data tooling. Dispatches to the subcommands in src/data/commands.h; each
// parses its options with OptionSet (realmt-data COMMAND --help).
#include <algorithm>
#include <cstring>
#include <iostream>

#include "common/edit_distance.h"
#include "common/program.h"
#include "core/error.h"
#include "data/commands.h"

#ifndef REALMT_VERSION
#define REALMT_VERSION "unknown"
#endif

namespace {

void usage(std::ostream& out) {
  out << "usage: realmt-data COMMAND [options]   (realmt-data COMMAND --help for its options)\n\n"
         "commands:\n";
  size_t width = 0;  // the longest name and two spaces
  for (const auto& c : realmt::data::commands()) width = std::max(width, std::strlen(c.name) + 2);
  for (const auto& c : realmt::data::commands())
    out << "  " << c.name << std::string(width - std::strlen(c.name), ' ') << c.summary << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace realmt;
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "--help" || first == "-h") return usage(std::cout), 0;
  if (first == "--version") return std::cout << "realmt-data " << REALMT_VERSION << "\n", 0;
  if (first.empty()) return usage(std::cerr), 2;
  std::vector<std::string> names;
  for (const auto& c : data::commands()) {
    names.push_back(c.name);
    if (first == c.name)
      return run_program(std::string("realmt-data ") + c.name,
                         [&] { return c.run(data::Args(argv + 1, argv + argc)); });
  }
  std::cerr << "realmt-data: error: unknown command '" << first << "'; did you mean '"
            << closest_name(first, names) << "'?\n\n";
  usage(std::cerr);
  return 2;
}
