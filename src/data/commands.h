// The realmt-data subcommands. Each takes its arguments (args[0] is the subcommand's name),
// parses its own options (cli.h), does its work through the library and returns an exit code.
// Errors are thrown as realmt::Error; the main prints them.
#pragma once

#include <string>
#include <vector>

namespace realmt::data {

using Args = std::vector<std::string>;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);
};

// All subcommands, in the order `realmt-data --help` lists them.
const std::vector<Command>& commands();

int run_sgm2txt(const Args& args);
int run_clean(const Args& args);
int run_vocab(const Args& args);
int run_marian_vocab(const Args& args);
int run_split(const Args& args);
int run_stats(const Args& args);
int run_mo2pairs(const Args& args);
int run_testsets(const Args& args);
int run_shortlist(const Args& args);

}  // namespace realmt::data
