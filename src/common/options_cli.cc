// OptionSet::parse: the command line, through Boost.Program_options. Boost tokenizes and matches
// (--name=value, -xVALUE, short and long names, "--", positionals, unknown-option errors); one
// extra style parser adds the value rules Boost lacks: lists that take negative numbers and stop
// at the next option, booleans that take only a following true/false, implicit values that take a
// following value. The parsed options are applied in order through the typed slots, after the
// -c files, so that the command line wins whatever order -c appears in.
#include <boost/program_options.hpp>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"

#ifndef REALMT_VERSION
#define REALMT_VERSION "unknown"
#endif

namespace realmt {

namespace {

// A process mpirun (or srun) started as a rank other than 0: OpenMPI, PMI-1/2, PMIx variables.
bool secondary_mpi_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    const char* v = std::getenv(name);
    if (v && *v) return std::string(v) != "0";
  }
  return false;
}

// --log: opened once the program will run (not for --help or --dump-config); under mpirun by rank
// 0 only, which logs for the job (the other ranks' lines would repeat its own). A file that cannot
// be opened is a usage error naming it.
void open_log_file(const detail::OptionSlot& log_file, const std::string& program) {
  if (!log_file.was_set || log_file.get().at(0).empty() || secondary_mpi_rank()) return;
  try {
    log::set_file(log_file.get().at(0));
  } catch (const Error& e) {
    detail::throw_as_usage(e, program);
  }
}

namespace po = boost::program_options;

constexpr const char* kPositionalKey = "realmt-positional-arguments";

// "--x..." or "-x" with a letter x. "-", "-1" and "-0.5" are values, so negative numbers and
// "-" for stdin/stdout need no quoting.
bool is_option_token(const std::string& token) {
  if (token.size() > 2 && token[0] == '-' && token[1] == '-') return true;
  return token.size() >= 2 && token[0] == '-' && std::isalpha(static_cast<unsigned char>(token[1]));
}

// "@file" arguments before "--" are replaced by the words of the file.
std::vector<std::string> expand_response_files(const std::vector<std::string>& args,
                                               const std::string& program) {
  std::vector<std::string> out;
  bool rest = false;
  for (const std::string& a : args) {
    if (rest || a.size() < 2 || a[0] != '@') {
      rest = rest || a == "--";
      out.push_back(a);
      continue;
    }
    std::ifstream in(a.substr(1), std::ios::binary);
    REALMT_USAGE_CHECK(in.good(), "{}: cannot read response file '{}'", program, a.substr(1));
    std::ostringstream text;
    text << in.rdbuf();
    for (std::string& w : po::split_unix(text.str(), " \t\n\r")) out.push_back(std::move(w));
  }
  return out;
}

// How an option takes its values on the command line (the parts Boost does not do).
enum class Take { kBoost, kList, kBool, kImplicit, kDumpMode };

// What the command-line functions below read of the OptionSet.
struct Table {
  const std::vector<detail::OptionSlot>& slots;
  const std::map<std::string, size_t>& index;
  const std::map<char, std::string>& short_names;
  const std::string& program;
  std::function<void(const std::string& name)> fail_unknown;  // throws: unknown, with a suggestion

  const detail::OptionSlot* find(const std::string& name) const {
    const auto it = index.find(name);
    return it == index.end() ? nullptr : &slots[it->second];
  }
};

// What the command line asks for, in its order.
struct CommandLine {
  std::vector<std::string> configs, positionals;
  std::vector<std::pair<std::string, std::vector<std::string>>> assignments;  // option, values
  bool help = false, version = false;
  std::optional<std::string> dump_mode;
};

// Every option as Boost sees it: lists take several tokens, booleans and implicit values may
// stand alone (their values are then taken by style_parser).
po::options_description describe(const Table& t) {
  po::options_description desc;
  desc.add_options()("help,h", "")("version", "")(
      "config,c", po::value<std::vector<std::string>>()->multitoken(), "")(
      "dump-config", po::value<std::string>()->implicit_value("full"), "")(
      kPositionalKey, po::value<std::vector<std::string>>(), "");
  for (const auto& s : t.slots) {
    const std::string spec = s.short_name ? s.name + "," + s.short_name : s.name;
    if (s.is_list) {
      desc.add_options()(spec.c_str(), po::value<std::vector<std::string>>()->multitoken(), "");
    } else if (s.is_bool || s.implicit) {
      desc.add_options()(spec.c_str(),
                         po::value<std::string>()->implicit_value(s.is_bool ? "true" : *s.implicit),
                         "");
    } else {
      desc.add_options()(spec.c_str(), po::value<std::string>(), "");
    }
  }
  return desc;
}

Take take_of(const Table& t, const std::string& name) {
  if (name == "config") return Take::kList;
  if (name == "dump-config") return Take::kDumpMode;
  const detail::OptionSlot* s = t.find(name);
  if (!s) return Take::kBoost;
  if (s->is_list) return Take::kList;
  if (s->is_bool) return Take::kBool;
  return s->implicit ? Take::kImplicit : Take::kBoost;
}

// Boost's extra style parser: handles "--name" (without '=') and "-x" for the options whose
// values Boost would take differently, and "--name=" (an empty value, which Boost refuses);
// returns nothing for every other token, which Boost then parses.
std::vector<po::option> style_parser(const Table& t, std::vector<std::string>& tokens) {
  const std::string& token = tokens.front();
  std::string name;
  if (token.size() > 2 && token.compare(0, 2, "--") == 0) {
    name = token.substr(2);
    const size_t eq = name.find('=');
    if (eq != std::string::npos) {
      // "--name=VALUE", VALUE possibly empty ("--devices=" is an empty list, "--model=" an empty
      // string), which Boost refuses.
      const std::string key = name.substr(0, eq);
      if (key != "config" && key != "dump-config" && !t.find(key)) return {};
      po::option o(key, {name.substr(eq + 1)});
      o.original_tokens = {token};
      tokens.erase(tokens.begin());
      return {o};
    }
  } else if (token.size() == 2 && token[0] == '-' &&
             std::isalpha(static_cast<unsigned char>(token[1]))) {
    if (token[1] == 'c') name = "config";
    const auto it = t.short_names.find(token[1]);
    if (it != t.short_names.end()) name = it->second;
  }
  const Take take = name.empty() ? Take::kBoost : take_of(t, name);
  if (take == Take::kBoost) return {};
  po::option o(name, {});
  o.original_tokens = {token};
  size_t i = 1;
  auto value_next = [&] {
    return i < tokens.size() && !is_option_token(tokens[i]) && tokens[i] != "--";
  };
  if (take == Take::kList) {
    while (value_next()) o.value.push_back(tokens[i++]);
    if (o.value.empty()) {
      REALMT_USAGE_CHECK(name != "config", "{}: {} needs a config file name", t.program, token);
      REALMT_USAGE_FAIL(
          "{}: option '{}' on the command line needs at least one value ({}); write --{}= for an "
          "empty list",
          t.program, token, t.find(name)->metavar, name);
    }
  } else if (take == Take::kBool) {
    // Only the unambiguous spellings: "--lc yes.txt" stays a flag followed by a positional.
    const bool spelled = i < tokens.size() && (detail::lower(tokens[i]) == "true" ||
                                               detail::lower(tokens[i]) == "false");
    o.value.push_back(spelled ? tokens[i++] : "true");
  } else if (take == Take::kDumpMode) {
    const bool mode = i < tokens.size() &&
                      (tokens[i] == "full" || tokens[i] == "minimal" || tokens[i] == "expand");
    o.value.push_back(mode ? tokens[i++] : "full");
  } else {
    o.value.push_back(value_next() ? tokens[i++] : *t.find(name)->implicit);
  }
  // Exactly one value for the single-valued kinds: Boost then takes no further token.
  for (size_t k = 1; k < i; ++k) o.original_tokens.push_back(tokens[k]);
  tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(i));
  return {o};
}

// Boost's tokenizing and matching, its errors turned into realmt's.
po::parsed_options run_boost(const Table& t, const std::vector<std::string>& args) {
  po::positional_options_description positional;
  positional.add(kPositionalKey, -1);
  try {
    return po::command_line_parser(args)
        .options(describe(t))
        .positional(positional)
        .extra_style_parser(
            [&t](std::vector<std::string>& tokens) { return style_parser(t, tokens); })
        // No prefix guessing: a misspelt option is an error with a suggestion, never a match.
        .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
        .run();
  } catch (const po::unknown_option& e) {
    const std::string token = e.get_option_name();
    if (token.size() >= 2 && token[0] == '-' && token[1] != '-') {
      std::string known = "-c, -h";
      for (const auto& [letter, long_name] : t.short_names)
        known += format(", -{} (--{})", letter, long_name);
      REALMT_USAGE_FAIL("{}: unknown option '{}' on the command line; short options are: {}",
                        t.program, token, known);
    }
    t.fail_unknown(token.substr(token.find_first_not_of('-')));
  } catch (const po::invalid_command_line_syntax& e) {
    const std::string token = e.get_option_name();
    const detail::OptionSlot* s =
        t.find(token.substr(std::min(token.size(), token.find_first_not_of('-'))));
    REALMT_USAGE_CHECK(!(e.kind() == po::invalid_syntax::missing_parameter && s),
                       "{}: option '{}' on the command line needs a value ({})", t.program, token,
                       s ? s->metavar : "");
    REALMT_USAGE_FAIL("{}: {} (see {} --help)", t.program, e.what(), t.program);
  } catch (const po::error& e) {
    REALMT_USAGE_FAIL("{}: {} (see {} --help)", t.program, e.what(), t.program);
  }
  REALMT_ASSERT(false, "fail_unknown returned");
  return po::parsed_options(nullptr);
}

// Sorts Boost's matches into what the command line asks for.
CommandLine collect(const Table& t, const po::parsed_options& parsed) {
  CommandLine cl;
  for (const po::option& o : parsed.options) {
    if (o.string_key == kPositionalKey) {
      cl.positionals.insert(cl.positionals.end(), o.value.begin(), o.value.end());
    } else if (o.string_key == "help") {
      cl.help = true;
    } else if (o.string_key == "version") {
      cl.version = true;
    } else if (o.string_key == "config") {
      for (const auto& file : o.value)
        REALMT_USAGE_CHECK(!file.empty(), "{}: -c/--config needs a config file name", t.program);
      cl.configs.insert(cl.configs.end(), o.value.begin(), o.value.end());
    } else if (o.string_key == "dump-config") {
      cl.dump_mode = o.value.empty() ? "full" : o.value[0];
      REALMT_USAGE_CHECK(
          *cl.dump_mode == "full" || *cl.dump_mode == "minimal" || *cl.dump_mode == "expand",
          "{}: --dump-config takes full, minimal or expand, not '{}'", t.program, *cl.dump_mode);
    } else {
      const detail::OptionSlot* slot = t.find(o.string_key);
      REALMT_ASSERT(slot != nullptr, "Boost matched an unbound option '{}'", o.string_key);
      std::vector<std::string> values = o.value;
      if (values.empty() && !slot->is_list)
        values.push_back(slot->is_bool ? "true" : slot->implicit.value_or(""));
      if (slot->is_list && values.size() == 1 && values[0].empty()) values.clear();  // "--devices="
      // Applied after the config files; checked against the type then, in command-line order.
      cl.assignments.emplace_back(o.string_key, std::move(values));
    }
  }
  return cl;
}

}  // namespace

bool OptionSet::parse(int argc, const char* const* argv, std::ostream& out) {
  const Table table{slots_, index_, short_names_, program_, [this](const std::string& name) {
                      fail_unknown(name, "on the command line", "--");
                    }};
  const std::vector<std::string> args = expand_response_files(
      argc > 1 ? std::vector<std::string>(argv + 1, argv + argc) : std::vector<std::string>(),
      program_);
  const CommandLine cl = collect(table, run_boost(table, args));
  if (cl.help) {
    out << help();
    return false;
  }
  if (cl.version) {
    out << program_ << " " << REALMT_VERSION << "\n";
    for (const auto& line : version_lines_) out << line() << "\n";
    return false;
  }
  load_config_files(cl.configs);
  for (const auto& [name, values] : cl.assignments) assign(*find(name), values, "command line");
  if (!cl.positionals.empty()) {
    REALMT_USAGE_CHECK(positional_ != nullptr,
                       "{}: unexpected argument '{}' ({} takes no positional arguments; "
                       "see {} --help)",
                       program_, cl.positionals[0], program_, program_);
    *positional_ = cl.positionals;
  }
  apply_presets();
  check_unavailable();
  apply_log_level();
  if (cl.dump_mode) {
    out << dump_yaml(*cl.dump_mode != "full", *cl.dump_mode == "expand");
    return false;
  }
  open_log_file(get("log"), program_);
  check_required();
  report_no_effect();
  run_checks();
  return true;
}

void OptionSet::load_config_files(const std::vector<std::string>& files) {
  try {
    for (const auto& file : files) load_yaml_file(file);
  } catch (const UsageError&) {
    throw;
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    detail::throw_as_usage(e, program_);  // a bad config file is a bad argument
  }
}

}  // namespace realmt
