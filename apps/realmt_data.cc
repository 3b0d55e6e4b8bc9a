// realmt-data: WMT data tooling. Dispatches to the subcommands in src/data/commands.h.
#include <cstring>
#include <iostream>

#include "core/error.h"
#include "data/cli.h"
#include "data/commands.h"

namespace {

void usage(std::ostream& out) {
  out << "usage: realmt-data COMMAND [options]   (realmt-data COMMAND --help for its options)\n\n"
         "commands:\n";
  for (const auto& c : realmt::data::commands()) {
    out << "  " << c.name << std::string(10 - std::strlen(c.name), ' ') << c.summary << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  std::vector<std::string> names;
  for (const auto& c : realmt::data::commands()) {
    names.push_back(c.name);
    if (name != c.name) continue;
    try {
      return c.run(realmt::data::Args(argv + 1, argv + argc));
    } catch (const std::exception& e) {
      std::cerr << "realmt-data " << name << ": error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "realmt-data: unknown command '" << name << "'; did you mean '"
            << realmt::data::cli::closest(name, names) << "'?\n\n";
  usage(std::cerr);
  return 2;
}
