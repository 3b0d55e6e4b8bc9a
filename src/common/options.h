// The option system every realmt executable uses: typed fields, Marian-style names, YAML config
// files merged in order, command-line options on top, parsed once.
//
//   struct TrainOptions { int enc_depth = 6; Duration after; std::vector<int> devices{0}; };
//   TrainOptions o;
//   OptionSet set("realmt-train", "Train a Transformer from a YAML config");
//   set.add("Model", "enc-depth", &o.enc_depth, "Number of encoder layers")
//      .add("Training", "after", &o.after, "Stop after this long (u/t/e units); 0 = never")
//      .add("Hardware", "devices", &o.devices, "GPU ids")
//      .short_name("devices", 'd');
//   if (!set.parse(argc, argv, std::cout)) return 0;   // --help or --dump-config printed
//
// Precedence: defaults (the fields' values when bound) < -c files, in order < command line.
// Field types: bool, int, int64_t, float, double, std::string, Duration, std::vector<std::string>,
// std::vector<int>, std::vector<double>; add_choice restricts strings to a fixed set.
//
// Command line:
//   --name VALUE | --name=VALUE       scalars (the next token is taken as is, "-" included)
//   --flag | --flag true|false | --flag=no   booleans: bare means true; a following true/false is
//                                     taken as the value; after '=' every bool spelling works
//   --devices 0 1 2                   lists take every following token up to the next option
//                                     (a token "--x" or "-x" with a letter x; "-1" is a value);
//                                     --name= sets an empty list
//   -c a.yml [b.yml ...]              config files (repeatable); --config is the long form
//   --dump-config [full|minimal]      print the effective config as YAML (minimal: only the
//                                     options a file or the command line set) and exit
//   -h, --help                        print grouped options with defaults and exit
//   other tokens, and all after "--", are positional arguments (an error if none are declared).
//   A scalar given twice keeps the last value; a list given again is replaced, not appended.
// YAML: a flat map, as in Marian configs; lists as sequences ([0, 1] or "- 0" lines), a scalar
// for a list option is a one-item list; null/empty sets a string to "" and a list to empty.
// Booleans accept true/false, yes/no, on/off, y/n, 1/0 in any case.
//
// Every user error throws realmt::Error: unknown or misspelled keys (naming the closest valid
// name and the file:line or "command line"), values of the wrong type (naming the key, where
// it appeared and the expected type), nested maps, duplicate keys in one file, bad YAML.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "common/duration.h"
#include "common/edit_distance.h"
#include "common/options_slot.h"

namespace realmt {

class OptionSet {
 public:
  // `program` names the executable in help and errors; `summary` is help's first line.
  OptionSet(std::string program, std::string summary);

  // Binds `field` (holding its default) to option `name` (kebab-case, Marian's name where the
  // feature matches) under help heading `group`. The field must outlive the OptionSet.
  // Unsupported field types do not compile. A name can be bound only once.
  template <typename T>
  OptionSet& add(const std::string& group, const std::string& name, T* field, const std::string& help) {
    return add_slot(group, name, help, detail::make_slot(field));
  }
  // A string limited to `allowed` (e.g. {"none", "sum", "mean"}); errors list the choices.
  OptionSet& add_choice(const std::string& group, const std::string& name, std::string* field,
                        std::vector<std::string> allowed, const std::string& help);
  // A list of strings, each one of `allowed` (e.g. valid-metrics).
  OptionSet& add_choice(const std::string& group, const std::string& name, std::vector<std::string>* field,
                        std::vector<std::string> allowed, const std::string& help);
  // A one-letter alias on the command line: short_name("model", 'm') makes "-m x" mean "--model x".
  OptionSet& short_name(const std::string& name, char letter);
  // Collects the positional arguments (e.g. reference files). At most one per OptionSet;
  // the field is replaced only when the command line has positionals.
  OptionSet& positional(const std::string& name, std::vector<std::string>* field, const std::string& help);

  // Parses argv (argv[0] is skipped): loads the -c files in order, then applies the command line.
  // Returns false when the program should exit 0 because help or the config dump was printed
  // to `out`; true when the fields now hold the effective options. Throws realmt::Error.
  bool parse(int argc, const char* const* argv, std::ostream& out);
  // Applies one YAML config file / text on top of the current values; `origin` names the text
  // in errors and in origin() (use the file name).
  void load_yaml_file(const std::string& path);
  void load_yaml_string(const std::string& text, const std::string& origin);

  // The effective config as YAML, grouped, each option preceded by its help as a comment;
  // loading it again reproduces every value. only_set: just the options files/CLI set.
  std::string dump_yaml(bool only_set = false) const;
  // Grouped options with metavars, help and defaults (what --help prints).
  std::string help() const;

  // Whether a config file or the command line set `name`; where it was last set
  // ("a.yml:12", "command line" or "default"). Unknown names are a bug (REALMT_ASSERT).
  bool was_set(const std::string& name) const;
  std::string origin(const std::string& name) const;
  // Every bound option name, in declaration order.
  std::vector<std::string> names() const;

 private:
  OptionSet& add_slot(const std::string& group, const std::string& name, const std::string& help,
                      detail::OptionSlot slot);
  detail::OptionSlot* find(const std::string& name);
  const detail::OptionSlot& get(const std::string& name) const;
  // Parses `values` into the slot's field and records `origin` ("a.yml:3" or "command line");
  // on failure throws naming the key, the origin and the expected type.
  void assign(detail::OptionSlot& slot, const std::vector<std::string>& values, const std::string& origin);
  [[noreturn]] void fail_unknown(const std::string& name, const std::string& where, const char* prefix) const;

  std::string program_;
  std::string summary_;
  std::vector<detail::OptionSlot> slots_;
  std::map<std::string, size_t> index_;
  std::map<char, std::string> short_names_;
  std::vector<std::string> groups_;  // in first-declaration order
  std::string positional_name_;
  std::string positional_help_;
  std::vector<std::string>* positional_ = nullptr;
};

}  // namespace realmt
