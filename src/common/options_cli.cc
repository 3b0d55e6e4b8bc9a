// OptionSet::parse: the command line, through Boost.Program_options. Boost tokenizes and matches
// (--name=value, -xVALUE, short and long names, "--", positionals, unknown-option errors); one
// extra style parser adds the value rules Boost lacks: lists that take negative numbers and stop
// at the next option, booleans that take only a following true/false, implicit values that take a
// following value. The parsed options are applied in order through the typed slots, after the
// -c files, so that the command line wins whatever order -c appears in.
#include <boost/program_options.hpp>
#include <cctype>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "common/options.h"
#include "core/error.h"

#ifndef REALMT_VERSION
#define REALMT_VERSION "unknown"
#endif

namespace realmt {
namespace {

namespace po = boost::program_options;

constexpr const char* kPositionalKey = "realmt-positional-arguments";

// "--x..." or "-x" with a letter x. "-", "-1" and "-0.5" are values, so negative numbers and
// "-" for stdin/stdout need no quoting.
bool is_option_token(const std::string& token) {
  if (token.size() > 2 && token[0] == '-' && token[1] == '-') return true;
  return token.size() >= 2 && token[0] == '-' && std::isalpha(static_cast<unsigned char>(token[1]));
}

// "@file" arguments before "--" are replaced by the words of the file.
std::vector<std::string> expand_response_files(const std::vector<std::string>& args, const std::string& program) {
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

}  // namespace

bool OptionSet::parse(int argc, const char* const* argv, std::ostream& out) {
  const std::vector<std::string> args = expand_response_files(
      argc > 1 ? std::vector<std::string>(argv + 1, argv + argc) : std::vector<std::string>(), program_);

  po::options_description desc;
  desc.add_options()("help,h", "")("version", "")(
      "config,c", po::value<std::vector<std::string>>()->multitoken(), "")(
      "dump-config", po::value<std::string>()->implicit_value("full"), "")(
      kPositionalKey, po::value<std::vector<std::string>>(), "");
  for (const auto& s : slots_) {
    const std::string spec = s.short_name ? s.name + "," + s.short_name : s.name;
    if (s.is_list) {
      desc.add_options()(spec.c_str(), po::value<std::vector<std::string>>()->multitoken(), "");
    } else if (s.is_bool || s.implicit) {
      desc.add_options()(spec.c_str(), po::value<std::string>()->implicit_value(s.is_bool ? "true" : *s.implicit), "");
    } else {
      desc.add_options()(spec.c_str(), po::value<std::string>(), "");
    }
  }
  auto take_of = [&](const std::string& name) {
    if (name == "config") return Take::kList;
    if (name == "dump-config") return Take::kDumpMode;
    const detail::OptionSlot* s = find(name);
    if (!s) return Take::kBoost;
    if (s->is_list) return Take::kList;
    if (s->is_bool) return Take::kBool;
    return s->implicit ? Take::kImplicit : Take::kBoost;
  };
  // Handles "--name" (without '=') and "-x" for the options whose values Boost would take
  // differently; returns nothing for every other token, which Boost then parses.
  auto style = [&](std::vector<std::string>& tokens) -> std::vector<po::option> {
    const std::string& t = tokens.front();
    std::string name;
    if (t.size() > 2 && t.compare(0, 2, "--") == 0) {
      name = t.substr(2);
      const size_t eq = name.find('=');
      if (eq != std::string::npos) {
        // "--name=VALUE", VALUE possibly empty ("--devices=" is an empty list, "--model=" an empty
        // string), which Boost refuses.
        const std::string key = name.substr(0, eq);
        if (key != "config" && key != "dump-config" && !find(key)) return {};
        po::option o(key, {name.substr(eq + 1)});
        o.original_tokens = {t};
        tokens.erase(tokens.begin());
        return {o};
      }
    } else if (t.size() == 2 && t[0] == '-' && std::isalpha(static_cast<unsigned char>(t[1]))) {
      if (t[1] == 'c') name = "config";
      const auto it = short_names_.find(t[1]);
      if (it != short_names_.end()) name = it->second;
    }
    const Take take = name.empty() ? Take::kBoost : take_of(name);
    if (take == Take::kBoost) return {};
    po::option o(name, {});
    o.original_tokens = {t};
    size_t i = 1;
    auto value_next = [&] { return i < tokens.size() && !is_option_token(tokens[i]) && tokens[i] != "--"; };
    if (take == Take::kList) {
      while (value_next()) o.value.push_back(tokens[i++]);
      if (o.value.empty()) {
        REALMT_USAGE_CHECK(name != "config", "{}: {} needs a config file name", program_, t);
        REALMT_USAGE_FAIL("{}: option '{}' on the command line needs at least one value ({}); write --{}= for an "
                          "empty list",
                          program_, t, find(name)->metavar, name);
      }
    } else if (take == Take::kBool) {
      // Only the unambiguous spellings: "--lc yes.txt" stays a flag followed by a positional.
      const bool spelled = i < tokens.size() && (detail::lower(tokens[i]) == "true" || detail::lower(tokens[i]) == "false");
      o.value.push_back(spelled ? tokens[i++] : "true");
    } else if (take == Take::kDumpMode) {
      const bool mode = i < tokens.size() && (tokens[i] == "full" || tokens[i] == "minimal" || tokens[i] == "expand");
      o.value.push_back(mode ? tokens[i++] : "full");
    } else {
      o.value.push_back(value_next() ? tokens[i++] : *find(name)->implicit);
    }
    // Exactly one value for the single-valued kinds: Boost then takes no further token.
    for (size_t k = 1; k < i; ++k) o.original_tokens.push_back(tokens[k]);
    tokens.erase(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(i));
    return {o};
  };

  po::positional_options_description positional;
  positional.add(kPositionalKey, -1);
  po::parsed_options parsed(nullptr);
  try {
    parsed = po::command_line_parser(args)
                 .options(desc)
                 .positional(positional)
                 .extra_style_parser(style)
                 // No prefix guessing: a misspelt option is an error with a suggestion, never a match.
                 .style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing)
                 .run();
  } catch (const po::unknown_option& e) {
    const std::string token = e.get_option_name();
    if (token.size() >= 2 && token[0] == '-' && token[1] != '-') {
      std::string known = "-c, -h";
      for (const auto& [letter, long_name] : short_names_) known += format(", -{} (--{})", letter, long_name);
      REALMT_USAGE_FAIL("{}: unknown option '{}' on the command line; short options are: {}", program_, token, known);
    }
    fail_unknown(token.substr(token.find_first_not_of('-')), "on the command line", "--");
  } catch (const po::invalid_command_line_syntax& e) {
    const std::string token = e.get_option_name();
    const detail::OptionSlot* s = find(token.substr(std::min(token.size(), token.find_first_not_of('-'))));
    REALMT_USAGE_CHECK(!(e.kind() == po::invalid_syntax::missing_parameter && s), 
                       "{}: option '{}' on the command line needs a value ({})", program_, token,
                       s ? s->metavar : "");
    REALMT_USAGE_FAIL("{}: {} (see {} --help)", program_, e.what(), program_);
  } catch (const po::error& e) {
    REALMT_USAGE_FAIL("{}: {} (see {} --help)", program_, e.what(), program_);
  }

  std::vector<std::string> configs, positionals;
  std::vector<std::pair<detail::OptionSlot*, std::vector<std::string>>> assignments;
  bool want_help = false, want_version = false;
  std::optional<std::string> dump_mode;
  for (const po::option& o : parsed.options) {
    if (o.string_key == kPositionalKey) {
      positionals.insert(positionals.end(), o.value.begin(), o.value.end());
    } else if (o.string_key == "help") {
      want_help = true;
    } else if (o.string_key == "version") {
      want_version = true;
    } else if (o.string_key == "config") {
      for (const auto& file : o.value)
        REALMT_USAGE_CHECK(!file.empty(), "{}: -c/--config needs a config file name", program_);
      configs.insert(configs.end(), o.value.begin(), o.value.end());
    } else if (o.string_key == "dump-config") {
      dump_mode = o.value.empty() ? "full" : o.value[0];
      REALMT_USAGE_CHECK(*dump_mode == "full" || *dump_mode == "minimal" || *dump_mode == "expand",
                         "{}: --dump-config takes full, minimal or expand, not '{}'", program_, *dump_mode);
    } else {
      detail::OptionSlot* slot = find(o.string_key);
      REALMT_ASSERT(slot != nullptr, "Boost matched an unbound option '{}'", o.string_key);
      std::vector<std::string> values = o.value;
      if (values.empty() && !slot->is_list) values.push_back(slot->is_bool ? "true" : slot->implicit.value_or(""));
      if (slot->is_list && values.size() == 1 && values[0].empty()) values.clear();  // "--devices="
      // Applied after the config files; checked against the type then, in command-line order.
      assignments.emplace_back(slot, std::move(values));
    }
  }

  if (want_help) {
    out << help();
    return false;
  }
  if (want_version) {
    out << program_ << " " << REALMT_VERSION << "\n";
    for (const auto& line : version_lines_) out << line() << "\n";
    return false;
  }
  try {
    for (const auto& file : configs) load_yaml_file(file);
  } catch (const UsageError&) {
    throw;
  } catch (const InternalError&) {
    throw;
  } catch (const Error& e) {
    detail::throw_as_usage(e, program_);  // a bad config file is a bad argument
  }
  for (auto& [slot, values] : assignments) assign(*slot, values, "command line");
  if (!positionals.empty()) {
    REALMT_USAGE_CHECK(positional_ != nullptr, "{}: unexpected argument '{}' ({} takes no positional arguments; "
                       "see {} --help)", program_, positionals[0], program_, program_);
    *positional_ = positionals;
  }
  apply_presets();
  check_unavailable();
  apply_log_level();
  if (dump_mode) {
    out << dump_yaml(*dump_mode != "full", *dump_mode == "expand");
    return false;
  }
  check_required();
  report_no_effect();
  run_checks();
  return true;
}

}  // namespace realmt
