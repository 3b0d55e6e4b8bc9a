// The parts of Python 3.11's argparse that sacreBLEU's command line relies on, so that
// realmt-bleu reads a command line as sacreBLEU does (cli_options.cc holds the option table):
// exact names, --name=value and -nVALUE, unambiguous prefixes, combined one-letter flags,
// negative numbers as values, nargs 0, 1, '*' and '+', one positional list with nargs '*'.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace realmt::metrics::argparse {

// A usage error with argparse's message ("ambiguous option: --t could match ..."); exit code 2.
struct ArgumentError {
  std::string message;
};

enum class Nargs { kZero, kOne, kStar, kPlus };

struct Option {
  std::vector<std::string> names;  // in add_argument order: "--width", "-w"
  Nargs nargs = Nargs::kZero;
  std::function<void(const std::vector<std::string>&)> apply;  // the values (none for a flag)
  // realmt-bleu's own option: a prefix reaches it only when it matches no sacreBLEU option, so
  // that every prefix sacreBLEU takes means the same here.
  bool own = false;
  bool stops = false;  // -h, -V: parsing ends when it is met (argparse prints and exits there)

  std::string display() const;  // "--width/-w", as argparse names an argument in errors
};

// An option found for one command-line word: the name matched and the value after '=' (or
// after a one-letter name, -w3), if any.
struct Match {
  const Option* option = nullptr;  // nullptr: an unknown option
  std::string name;
  std::optional<std::string> explicit_arg;
};

class Parser {
 public:
  explicit Parser(std::vector<Option> options) : options_(std::move(options)) {}

  // argparse's _parse_optional: nullopt when `arg` is a positional word (or a value).
  std::optional<Match> classify(const std::string& arg) const;
  // Applies the options in order and returns the positional list: the first run of free words;
  // words of a later run and unknown options are "unrecognized arguments".
  std::vector<std::string> parse(const std::vector<std::string>& args) const;

 private:
  const Option* exact(const std::string& name) const;
  std::vector<Match> prefix_matches(const std::string& arg, bool own) const;
  // Takes the option at args[i] (and its values); returns the index after them, or npos to stop.
  size_t consume(const Match& m, const std::vector<std::string>& args, size_t i) const;
  size_t take_values(const Option& o, const std::vector<std::string>& args, size_t i) const;

  std::vector<Option> options_;
};

}  // namespace realmt::metrics::argparse
