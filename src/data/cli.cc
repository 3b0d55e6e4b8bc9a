#include "data/cli.h"

#include <algorithm>
#include <iostream>

#include "core/error.h"

namespace realmt::data::cli {

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = size_t(-1);
  for (const auto& c : candidates) {
    // Levenshtein distance, one row at a time.
    std::vector<size_t> row(c.size() + 1);
    for (size_t j = 0; j <= c.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= c.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (word[i - 1] != c[j - 1])});
        diag = up;
      }
    }
    if (row[c.size()] < best_d) best_d = row[c.size()], best = c;
  }
  return best;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

bool parse(const std::vector<std::string>& args, const std::string& usage,
           const std::string& details, po::options_description& options,
           const po::positional_options_description* positional, po::variables_map& vm) {
  options.add_options()("help,h", "print this help");
  std::vector<std::string> rest(args.begin() + 1, args.end());
  // No prefix guessing: a misspelt option is an error with a suggestion, never a silent match.
  auto parser = po::command_line_parser(rest).options(options).style(
      po::command_line_style::default_style & ~po::command_line_style::allow_guessing);
  if (positional) parser.positional(*positional);
  try {
    po::store(parser.run(), vm);
  } catch (const po::unknown_option& e) {
    std::vector<std::string> names;
    for (const auto& o : options.options()) names.push_back("--" + o->long_name());
    std::string name = e.get_option_name();
    REALMT_FAIL("{}: unknown option '{}'; did you mean '{}'? (see realmt-data {} --help)", args[0],
                name, closest(name, names), args[0]);
  } catch (const po::error& e) {
    REALMT_FAIL("{}: {} (see realmt-data {} --help)", args[0], e.what(), args[0]);
  }
  if (vm.count("help")) {
    std::cout << usage << "\n";
    if (!details.empty()) std::cout << "\n" << details << "\n";
    std::cout << "\n" << options << "\n";
    return false;
  }
  try {
    po::notify(vm);
  } catch (const po::error& e) {
    REALMT_FAIL("{}: {} (see realmt-data {} --help)", args[0], e.what(), args[0]);
  }
  return true;
}

}  // namespace realmt::data::cli
