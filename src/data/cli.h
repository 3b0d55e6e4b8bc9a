// Option parsing shared by the realmt-data subcommands: each binds its options to an OptionSet
// named "realmt-data <command>" (common/options.h: the one command-line layer of realmt) and
// parses its arguments with it.
#pragma once

#include <string>
#include <vector>

#include "common/options.h"

namespace realmt::data::cli {

// Parses args (args[0] is the subcommand's name) into the fields bound to `set`. Returns false
// when --help, --version or --dump-config was printed to stdout. Throws realmt::UsageError.
bool parse(OptionSet& set, const std::vector<std::string>& args);

// The one file of a command that takes it either as `-i FILE` or as its positional argument.
std::string one_input(const std::string& option, const std::vector<std::string>& positionals,
                      const std::string& command);

}  // namespace realmt::data::cli
