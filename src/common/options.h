// The option system every realmt executable but realmt-bleu uses: typed fields, Marian's names,
// YAML config files merged in order, the command line on top (Boost.Program_options), parsed once.
//
//   struct TrainOptions { int enc_depth = 6; Duration after; std::vector<int> devices{0}; };
//   TrainOptions o;
//   OptionSet set("realmt-train", "Train a Transformer from a YAML config");
//   set.add("Model", "enc-depth", &o.enc_depth, "Number of encoder layers")
//      .add("Training", "after", &o.after, "Stop after this long (u/t/e units); 0 = never")
//      .add("Hardware", "devices", &o.devices, "GPU ids")
//      .short_name("devices", 'd');
//   if (!set.parse(argc, argv, std::cout)) return 0;   // --help, --version or --dump-config
//   printed
//
// Precedence: defaults (the fields' values when bound) < presets (Marian's --task) < -c files,
// in order < command line.
// Field types: bool, int, int64_t, float, double, std::string, Duration, std::vector<std::string>,
// std::vector<int>, std::vector<double>; add_choice restricts strings to a fixed set; add_enum
// binds an enum (or a list of enums) through its name table (common/enum_names.h).
//
// Command line (Boost.Program_options; options_cli.cc):
//   --name VALUE | --name=VALUE | -x VALUE | -xVALUE   scalars ("-", "-1" and "-0.5" are values)
//   --flag | --flag true|false | --flag=no   booleans: bare means true; a following true/false is
//                                     taken as the value; after '=' every bool spelling works
//   -n | -n 0.6 | -n0.6               implicit values (Marian's): alone, the option takes its
//                                     implicit value; a following non-option token is its value
//   --devices 0 1 2                   lists take every following token up to the next option
//                                     (a token "--x" or "-x" with a letter x; "-1" is a value);
//                                     --name= sets an empty list
//   @file                             a response file: its whitespace-separated words (quotes
//                                     group) stand in its place
//   -c a.yml [b.yml ...]              config files (repeatable); --config is the long form
//   --dump-config [full|minimal|expand]   print the effective config as YAML (minimal: only the
//                                     options a file or the command line set; expand: minimal
//                                     plus what presets set) and exit
//   -h, --help / --version            print help or "<program> <version>" and exit
//   --log-level LEVEL                 every program: Marian's trace|debug|info|warn|err|error|
//                                     critical|off (trace is debug, critical is error)
//   --authors, --cite, --build-info   Marian's print-and-exit options, accepted with their
//                                     defaults (false, false, "") as a Marian --dump-config has
//                                     them
//   other tokens, and all after "--", are positional arguments (an error if none are declared).
//   A scalar given twice keeps the last value; a list given again is replaced, not appended.
// YAML: a flat map, as in Marian configs; lists as sequences ([0, 1] or "- 0" lines), a scalar
// for a list option is a one-item list; null/empty sets a string to "" and a list to empty.
// Booleans accept true/false, yes/no, on/off, y/n, 1/0 in any case.
//
// Every mistake throws realmt::UsageError (mains exit 2): unknown or misspelled keys (naming
// the closest valid name and the file:line or "command line"), values of the wrong type (naming
// the key, where it appeared and the expected type), missing required options, Marian options
// realmt does not have (with the reason), nested maps, duplicate keys in one file, bad YAML, and
// any realmt::Error that an on_parsed check throws.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/duration.h"
#include "common/edit_distance.h"
#include "common/options_slot.h"

namespace realmt {

class OptionSet {
 public:
  // `program` names the executable in help and errors; `summary` is help's first line.
  OptionSet(std::string program, std::string summary);
  OptionSet(OptionSet&&) = default;
  OptionSet& operator=(OptionSet&&) = default;

  // Binds `field` (holding its default) to option `name` (kebab-case, Marian's name where the
  // feature matches) under help heading `group`. The field must outlive the OptionSet.
  // Unsupported field types do not compile. A name can be bound only once.
  template <typename T>
  OptionSet& add(const std::string& group, const std::string& name, T* field,
                 const std::string& help) {
    return add_slot(group, name, help, detail::make_slot(field));
  }
  // A string limited to `allowed` (e.g. {"none", "sum", "mean"}); errors list the choices.
  OptionSet& add_choice(const std::string& group, const std::string& name, std::string* field,
                        std::vector<std::string> allowed, const std::string& help);
  // A list of strings, each one of `allowed` (e.g. valid-metrics).
  OptionSet& add_choice(const std::string& group, const std::string& name,
                        std::vector<std::string>* field, std::vector<std::string> allowed,
                        const std::string& help);
  // An enum (or a list of enums) with a name table (common/enum_names.h): read from any of its
  // spellings, written by --dump-config and --help by its name; a wrong value's error lists
  // the names ("expected one of: post, pre").
  template <NamedEnum E>
  OptionSet& add_enum(const std::string& group, const std::string& name, E* field,
                      const std::string& help) {
    return add_slot(group, name, help, detail::make_enum_slot(field));
  }
  template <NamedEnum E>
  OptionSet& add_enum(const std::string& group, const std::string& name, std::vector<E>* field,
                      const std::string& help) {
    return add_slot(group, name, help, detail::make_enum_slot(field));
  }
  // A one-letter alias on the command line: short_name("model", 'm') makes "-m x" mean "--model x".
  OptionSet& short_name(const std::string& name, char letter);
  // Marian's implicit values: "-n" alone means "-n 1" (implicit_value("normalize", "1")).
  OptionSet& implicit_value(const std::string& name, const std::string& text);
  // The option must be set by a config file or the command line.
  OptionSet& required(const std::string& name);
  // Collects the positional arguments (e.g. reference files). At most one per OptionSet;
  // the field is replaced only when the command line has positionals.
  OptionSet& positional(const std::string& name, std::vector<std::string>* field,
                        const std::string& help);
  // Text --help prints after the usage line (what the program does in more detail).
  OptionSet& details(const std::string& text);

  // Marian options that realmt accepts but does not use (workspace, sync-sgd, ...). The value is
  // checked against `kind` and kept; once parsing succeeded, each one that was set to something
  // but Marian's `defaults` (a flag: also "false"; a list: every item one of them) is logged as
  // "<name> has no effect in realmt: <reason>". Listed in --help under their own heading.
  enum class Kind { kFlag, kValue, kList };
  OptionSet& add_no_effect(const std::string& name, Kind kind, const std::string& reason,
                           std::vector<std::string> defaults = {});
  // Marian options for features realmt does not have (RNN cells, factored vocabularies, ...).
  // Setting one to anything but its harmless values (Marian's default: "0", "false", "none")
  // is a UsageError that gives `reason`. Not listed in --help.
  OptionSet& add_unavailable(const std::string& name, Kind kind, std::vector<std::string> harmless,
                             const std::string& reason);
  // A preset, as Marian's --task: when option `name` holds `value` (or, for a list option,
  // contains it), every option in `values` that no file or the command line set takes the
  // preset's text (a list option: the words of the text). A `value` ending in '*' matches every
  // value that starts with the rest ("intgemm8*": intgemm8, intgemm8avx2, ...).
  OptionSet& preset(const std::string& name, const std::string& value,
                    std::vector<std::pair<std::string, std::string>> values);
  // Runs after a successful parse (not after --help/--dump-config), in the order added: Marian
  // aliases, combination checks. A realmt::Error it throws becomes a UsageError.
  OptionSet& on_parsed(std::function<void(const OptionSet&)> check);
  // A line --version prints after "<program> <version>" (e.g. the CPU kernel level), made when
  // printed; an exception it throws propagates out of parse().
  OptionSet& version_line(std::function<std::string()> line);

  // Parses argv (argv[0] is skipped): loads the -c files in order, then applies the command line.
  // Returns false when the program should exit 0 because help, the version or the config dump
  // was printed to `out`; true when the fields now hold the effective options. Throws
  // realmt::UsageError.
  bool parse(int argc, const char* const* argv, std::ostream& out);
  // Applies one YAML config file / text on top of the current values; `origin` names the text
  // in errors and in origin() (use the file name).
  void load_yaml_file(const std::string& path);
  void load_yaml_string(const std::string& text, const std::string& origin);

  // The effective config as YAML, grouped, each option preceded by its help as a comment;
  // loading it again reproduces every value. only_set: just the options files/CLI set.
  // with_presets: with only_set, also the options a preset set.
  std::string dump_yaml(bool only_set = false, bool with_presets = false) const;
  // Grouped options with metavars, help and defaults (what --help prints).
  std::string help() const;
  const std::string& program() const { return program_; }

  // Whether a config file or the command line set `name`; where it was last set
  // ("a.yml:12", "command line", "task transformer-base" or "default"). Unknown names are a bug
  // (REALMT_ASSERT).
  bool was_set(const std::string& name) const;
  std::string origin(const std::string& name) const;
  // The option's current value as text (a list: its items), as --dump-config writes it.
  std::vector<std::string> value_text(const std::string& name) const;
  // Every bound option name, in declaration order.
  std::vector<std::string> names() const;

 private:
  struct Preset {
    std::string option, value;
    std::vector<std::pair<std::string, std::string>> values;
  };

  OptionSet& add_slot(const std::string& group, const std::string& name, const std::string& help,
                      detail::OptionSlot slot);
  detail::OptionSlot* find(const std::string& name);
  const detail::OptionSlot& get(const std::string& name) const;
  // Parses `values` into the slot's field and records `origin` ("a.yml:3" or "command line");
  // on failure throws naming the key, the origin and the expected type.
  void assign(detail::OptionSlot& slot, const std::vector<std::string>& values,
              const std::string& origin);
  [[noreturn]] void fail_unknown(const std::string& name, const std::string& where,
                                 const char* prefix) const;
  // The -c files in order; a realmt::Error in one becomes the UsageError it is.
  void load_config_files(const std::vector<std::string>& files);
  // After the files and the command line: presets, unavailable options, required options.
  void apply_presets();
  void check_unavailable() const;
  void check_required() const;
  void report_no_effect() const;
  void run_checks() const;
  // The options every program has (log-level; Marian's authors, cite, build-info); applies
  // log-level.
  void declare_general();
  void apply_log_level() const;

  std::string program_;
  std::string summary_;
  std::string details_;
  std::vector<detail::OptionSlot> slots_;
  std::map<std::string, size_t> index_;
  std::map<char, std::string> short_names_;
  std::vector<std::string> groups_;  // in first-declaration order
  std::string positional_name_;
  std::string positional_help_;
  std::vector<std::string>* positional_ = nullptr;
  // Fields of add_no_effect / add_unavailable options, owned here (stable addresses).
  std::vector<std::unique_ptr<detail::OwnedValue>> owned_;
  std::vector<Preset> presets_;
  std::vector<std::function<void(const OptionSet&)>> checks_;
  std::vector<std::function<std::string()>> version_lines_;
};

}  // namespace realmt
