// OptionSet: registration, lookup, error messages and --help. The command line is parsed in
// options_cli.cc, YAML in options_yaml.cc, presets and Marian compatibility in options_compat.cc.
#include "common/options.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "core/error.h"

namespace realmt {
namespace {

// Names the reader cannot bind: parse() handles them itself.
bool reserved(const std::string& name) {
  return name == "config" || name == "dump-config" || name == "help" || name == "version";
}

bool valid_name(const std::string& name) {
  if (name.empty() || !std::isalnum(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

std::string shown(const std::vector<std::string>& values, bool is_list) {
  if (!is_list) return values.at(0).empty() ? "\"\"" : values[0];
  if (values.empty()) return "(empty)";
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) out += (i ? " " : "") + values[i];
  return out;
}

// Two columns: the option (padded to kColumn) and its help; long options push help to a new line.
void write_row(std::ostringstream& os, const std::string& left, const std::string& right) {
  constexpr size_t kColumn = 32;
  os << "  " << left;
  if (left.size() + 2 >= kColumn) {
    os << "\n" << std::string(kColumn, ' ');
  } else {
    os << std::string(kColumn - 2 - left.size(), ' ');
  }
  // Continuation lines of multi-line help stay in the help column.
  for (char c : right) {
    os << c;
    if (c == '\n') os << std::string(kColumn, ' ');
  }
  os << "\n";
}

}  // namespace

OptionSet::OptionSet(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {
  declare_general();
}

OptionSet& OptionSet::add_slot(const std::string& group, const std::string& name,
                               const std::string& help, detail::OptionSlot slot) {
  REALMT_ASSERT(valid_name(name), "invalid option name '{}'", name);
  REALMT_ASSERT(!reserved(name), "option name '{}' is reserved", name);
  REALMT_ASSERT(!index_.count(name), "option '{}' bound twice", name);
  slot.group = group;
  slot.name = name;
  slot.help = help;
  if (std::find(groups_.begin(), groups_.end(), group) == groups_.end()) groups_.push_back(group);
  index_[name] = slots_.size();
  slots_.push_back(std::move(slot));
  return *this;
}

OptionSet& OptionSet::add_choice(const std::string& group, const std::string& name,
                                 std::string* field, std::vector<std::string> allowed,
                                 const std::string& help) {
  return add_slot(group, name, help, detail::make_choice_slot(field, std::move(allowed)));
}

OptionSet& OptionSet::add_choice(const std::string& group, const std::string& name,
                                 std::vector<std::string>* field, std::vector<std::string> allowed,
                                 const std::string& help) {
  return add_slot(group, name, help, detail::make_choice_slot(field, std::move(allowed)));
}

OptionSet& OptionSet::short_name(const std::string& name, char letter) {
  REALMT_ASSERT(std::isalpha(static_cast<unsigned char>(letter)), "short name must be a letter");
  REALMT_ASSERT(letter != 'c' && letter != 'h', "-c and -h are reserved");
  REALMT_ASSERT(!short_names_.count(letter), "short name -{} bound twice", letter);
  REALMT_ASSERT(index_.count(name), "short_name for unknown option '{}'", name);
  short_names_[letter] = name;
  slots_[index_.at(name)].short_name = letter;
  return *this;
}

OptionSet& OptionSet::implicit_value(const std::string& name, const std::string& text) {
  detail::OptionSlot* slot = find(name);
  REALMT_ASSERT(slot != nullptr, "implicit_value for unknown option '{}'", name);
  REALMT_ASSERT(!slot->is_bool && !slot->is_list, "implicit_value is for scalar options, not '{}'",
                name);
  slot->implicit = text;
  return *this;
}

OptionSet& OptionSet::required(const std::string& name) {
  detail::OptionSlot* slot = find(name);
  REALMT_ASSERT(slot != nullptr, "required for unknown option '{}'", name);
  slot->required = true;
  return *this;
}

OptionSet& OptionSet::details(const std::string& text) {
  details_ = text;
  return *this;
}

OptionSet& OptionSet::positional(const std::string& name, std::vector<std::string>* field,
                                 const std::string& help) {
  REALMT_ASSERT(positional_ == nullptr, "only one positional argument list per OptionSet");
  positional_name_ = name;
  positional_help_ = help;
  positional_ = field;
  return *this;
}

detail::OptionSlot* OptionSet::find(const std::string& name) {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &slots_[it->second];
}

const detail::OptionSlot& OptionSet::get(const std::string& name) const {
  const auto it = index_.find(name);
  REALMT_ASSERT(it != index_.end(), "no option named '{}'", name);
  return slots_[it->second];
}

bool OptionSet::was_set(const std::string& name) const { return get(name).was_set; }
std::string OptionSet::origin(const std::string& name) const { return get(name).origin; }
std::vector<std::string> OptionSet::value_text(const std::string& name) const {
  return get(name).get();
}

std::vector<std::string> OptionSet::names() const {
  std::vector<std::string> out;
  for (const auto& s : slots_) out.push_back(s.name);
  return out;
}

void OptionSet::assign(detail::OptionSlot& slot, const std::vector<std::string>& values,
                       const std::string& origin) {
  if (auto bad = slot.set(values)) {
    const std::string where = origin == "command line" ? "on the command line" : "in " + origin;
    const bool whole = !slot.is_list || values.size() == 1;
    REALMT_USAGE_FAIL("{}: option '{}' {}: expected {}, got '{}'{}", program_, slot.name, where,
                      slot.expected, *bad, whole ? "" : " (one item of the list)");
  }
  slot.was_set = true;
  slot.origin = origin;
  slot.from_preset = false;
}

void OptionSet::fail_unknown(const std::string& name, const std::string& where,
                             const char* prefix) const {
  std::vector<std::string> valid;
  for (const auto& s : slots_)
    if (s.compat != detail::OptionSlot::Compat::kUnavailable) valid.push_back(s.name);
  valid.insert(valid.end(), {"config", "dump-config", "help", "version"});
  REALMT_USAGE_FAIL(
      "{}: unknown option '{}{}' {}; did you mean '{}{}'? ({} --help lists all options)", program_,
      prefix, name, where, prefix, closest_name(name, valid), program_);
}

std::string OptionSet::help() const {
  std::ostringstream os;
  os << program_ << ": " << summary_ << "\n\nUsage: " << program_
     << " [options] [-c config.yml ...]";
  if (positional_) os << " [" << positional_name_ << "...]";
  os << "\n";
  if (!details_.empty()) os << "\n" << details_ << "\n";
  if (positional_) {
    os << "\nArguments:\n";
    write_row(os, positional_name_ + "...", positional_help_);
  }
  os << "\nConfig:\n";
  write_row(os, "-c, --config FILE...",
            "YAML config files (flat maps, Marian style), merged in order; the command line "
            "overrides them");
  write_row(os, "--dump-config [full|minimal|expand]",
            "Print the effective config as YAML (minimal: only options that were set; expand: also "
            "what presets set) and exit");
  write_row(os, "-h, --help", "Print this help and exit");
  write_row(os, "--version", "Print the program's version and exit");
  write_row(os, "@FILE",
            "Read more arguments from FILE (whitespace-separated; quotes group words)");
  for (const auto& group : groups_) {
    bool header = false;
    for (const auto& s : slots_) {
      if (s.group != group || s.compat == detail::OptionSlot::Compat::kUnavailable) continue;
      if (!header) os << "\n" << group << ":\n", header = true;
      std::string left = s.short_name ? std::string("-") + s.short_name + ", --" : "--";
      left += s.name;
      if (s.implicit)
        left += " [" + s.metavar + "]";
      else if (!s.is_bool)
        left += " " + s.metavar;
      std::string right = s.help;
      if (s.compat == detail::OptionSlot::Compat::kNoEffect) {
        right += " (accepted for Marian configs; no effect)";
      } else {
        right += " (default: " + shown(s.default_text, s.is_list);
        if (s.implicit) right += "; alone: " + *s.implicit;
        right += s.required ? "; required)" : ")";
      }
      write_row(os, left, right);
    }
  }
  return os.str();
}

}  // namespace realmt
