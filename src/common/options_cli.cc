// OptionSet::parse: the command line. Tokens are split into config files, option assignments
// and positionals first; files are loaded, then the assignments applied, so that the command
// line wins whatever order -c appears in.
#include <cctype>
#include <optional>
#include <ostream>

#include "common/options.h"
#include "core/error.h"

namespace realmt {
namespace {

// "--x..." or "-x" with a letter x. "-", "-1" and "-0.5" are values, so negative numbers and
// "-" for stdin/stdout need no quoting.
bool is_option_token(const std::string& token) {
  if (token.size() > 2 && token[0] == '-' && token[1] == '-') return true;
  return token.size() == 2 && token[0] == '-' && std::isalpha(static_cast<unsigned char>(token[1]));
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Assignment {
  detail::OptionSlot* slot;
  std::vector<std::string> values;
};

}  // namespace

bool OptionSet::parse(int argc, const char* const* argv, std::ostream& out) {
  const std::vector<std::string> args = argc > 1 ? std::vector<std::string>(argv + 1, argv + argc)
                                                 : std::vector<std::string>();
  std::vector<std::string> configs;
  std::vector<std::string> positionals;
  std::vector<Assignment> assignments;
  bool want_help = false;
  std::optional<std::string> dump_mode;
  bool only_positionals = false;

  size_t i = 0;
  // Every token after the current one up to the next option.
  auto take_values = [&] {
    std::vector<std::string> values;
    while (i + 1 < args.size() && !is_option_token(args[i + 1]) && args[i + 1] != "--") values.push_back(args[++i]);
    return values;
  };
  for (; i < args.size(); ++i) {
    const std::string& token = args[i];
    if (only_positionals || !is_option_token(token)) {
      if (!only_positionals && token == "--") {
        only_positionals = true;
      } else {
        positionals.push_back(token);
      }
      continue;
    }
    std::string name;
    std::optional<std::string> inline_value;
    if (token[1] == '-') {
      const size_t eq = token.find('=');
      name = token.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) inline_value = token.substr(eq + 1);
    } else if (token[1] == 'c' || token[1] == 'h') {
      name = token[1] == 'c' ? "config" : "help";
    } else {
      const auto it = short_names_.find(token[1]);
      if (it == short_names_.end()) {
        std::string known = "-c, -h";
        for (const auto& [letter, long_name] : short_names_) known += format(", -{} (--{})", letter, long_name);
        REALMT_FAIL("{}: unknown option '{}' on the command line; short options are: {}", program_, token, known);
      }
      name = it->second;
    }

    if (name == "help") {
      REALMT_CHECK(!inline_value, "{}: --help takes no value", program_);
      want_help = true;
    } else if (name == "config") {
      std::vector<std::string> files = inline_value ? std::vector<std::string>{*inline_value} : take_values();
      REALMT_CHECK(!files.empty() && !files[0].empty(), "{}: {} needs a config file name", program_, token);
      configs.insert(configs.end(), files.begin(), files.end());
    } else if (name == "dump-config") {
      if (inline_value) {
        dump_mode = *inline_value;
      } else if (i + 1 < args.size() && (args[i + 1] == "full" || args[i + 1] == "minimal")) {
        dump_mode = args[++i];
      } else {
        dump_mode = "full";
      }
      REALMT_CHECK(*dump_mode == "full" || *dump_mode == "minimal",
                   "{}: --dump-config takes full or minimal, not '{}'", program_, *dump_mode);
    } else {
      detail::OptionSlot* slot = find(name);
      if (!slot) fail_unknown(name, "on the command line", "--");
      std::vector<std::string> values;
      if (inline_value) {
        if (!(slot->is_list && inline_value->empty())) values.push_back(*inline_value);
      } else if (slot->is_bool) {
        // Only the unambiguous spellings are taken from the next token: "--lc yes.txt" stays a
        // flag followed by a positional.
        const bool next_is_bool =
            i + 1 < args.size() && (lower(args[i + 1]) == "true" || lower(args[i + 1]) == "false");
        values.push_back(next_is_bool ? args[++i] : "true");
      } else if (slot->is_list) {
        values = take_values();
        REALMT_CHECK(!values.empty(), "{}: option '{}' on the command line needs at least one value ({}); "
                     "write {}= for an empty list", program_, token, slot->metavar, token);
      } else {
        REALMT_CHECK(i + 1 < args.size(), "{}: option '{}' on the command line needs a value ({})", program_,
                     token, slot->metavar);
        values.push_back(args[++i]);
      }
      // Applied after the config files; checked here so that errors come in command-line order.
      assignments.push_back({slot, std::move(values)});
    }
  }

  if (want_help) {
    out << help();
    return false;
  }
  for (const auto& file : configs) load_yaml_file(file);
  for (auto& a : assignments) assign(*a.slot, a.values, "command line");
  if (!positionals.empty()) {
    REALMT_CHECK(positional_ != nullptr, "{}: unexpected argument '{}' ({} takes no positional arguments; "
                 "see {} --help)", program_, positionals[0], program_, program_);
    *positional_ = positionals;
  }
  if (dump_mode) {
    out << dump_yaml(*dump_mode == "minimal");
    return false;
  }
  return true;
}

}  // namespace realmt
