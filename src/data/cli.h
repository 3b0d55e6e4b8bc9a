// Option parsing shared by the realmt-data subcommands (Boost.Program_options).
// Unknown options are errors that name the closest valid option.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace realmt::data::cli {

namespace po = boost::program_options;

// Parses args (args[0] is the subcommand name) into vm. `usage` is the first help line.
// Returns false when --help was asked for (help already printed to stdout).
bool parse(const std::vector<std::string>& args, const std::string& usage,
           const std::string& details, po::options_description& options,
           const po::positional_options_description* positional, po::variables_map& vm);

// The candidate closest to `word` by edit distance.
std::string closest(const std::string& word, const std::vector<std::string>& candidates);

// Splits "a,b,c" into its parts (empty parts dropped).
std::vector<std::string> split_list(const std::string& text);

}  // namespace realmt::data::cli
