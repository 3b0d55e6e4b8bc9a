// OptionSet: what comes after the files and the command line. Presets (Marian's --task), the
// Marian options realmt accepts without effect or refuses with a reason, required options, and
// the checks the options structs register.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"

namespace realmt {
namespace {

const char* kCompatGroup = "Marian options (accepted for Marian configs and recipes; no effect)";

detail::OptionSlot owned_slot(detail::OwnedValue* v, OptionSet::Kind kind) {
  switch (kind) {
    case OptionSet::Kind::kFlag: return detail::make_slot(&v->flag);
    case OptionSet::Kind::kValue: return detail::make_slot(&v->text);
    case OptionSet::Kind::kList: return detail::make_slot(&v->list);
  }
  REALMT_ASSERT(false, "unknown option kind");
  return {};
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// "0" and "0.0", "1e-4" and "0.0001" are the same value.
bool same_value(const std::string& a, const std::string& b) {
  if (a == b) return true;
  char *ea = nullptr, *eb = nullptr;
  const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
  return !a.empty() && !b.empty() && *ea == '\0' && *eb == '\0' && x == y;
}

// A preset's value matches itself, or with a final '*' every value that starts with the rest.
bool preset_matches(const std::string& pattern, const std::string& value) {
  if (pattern.empty() || pattern.back() != '*') return value == pattern;
  return value.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
}

bool harmless(const detail::OptionSlot& s) {
  for (const std::string& v : s.get())
    if (std::none_of(s.harmless.begin(), s.harmless.end(),
                     [&](const std::string& h) { return same_value(v, h); }))
      return false;
  return true;
}

}  // namespace

namespace detail {

void throw_as_usage(const std::exception& e, const std::string& program) {
  std::string message = e.what();
  if (message.compare(0, program.size() + 2, program + ": ") != 0)
    message = program + ": " + message;
  const auto* error = dynamic_cast<const Error*>(&e);
  throw UsageError(message, error ? error->file() : __FILE__, error ? error->line() : __LINE__);
}

}  // namespace detail

OptionSet& OptionSet::add_no_effect(const std::string& name, Kind kind, const std::string& reason,
                                    std::vector<std::string> defaults) {
  owned_.push_back(std::make_unique<detail::OwnedValue>());
  detail::OptionSlot slot = owned_slot(owned_.back().get(), kind);
  slot.compat = detail::OptionSlot::Compat::kNoEffect;
  slot.compat_reason = reason;
  slot.harmless = std::move(defaults);  // kNoEffect: Marian's default values, not worth a note
  if (kind == Kind::kFlag) slot.harmless.push_back("false");
  return add_slot(kCompatGroup, name, reason, std::move(slot));
}

OptionSet& OptionSet::add_unavailable(const std::string& name, Kind kind,
                                      std::vector<std::string> harmless,
                                      const std::string& reason) {
  owned_.push_back(std::make_unique<detail::OwnedValue>());
  detail::OptionSlot slot = owned_slot(owned_.back().get(), kind);
  slot.compat = detail::OptionSlot::Compat::kUnavailable;
  slot.compat_reason = reason;
  slot.harmless = std::move(harmless);
  if (kind == Kind::kFlag) slot.harmless.push_back("false");
  return add_slot("Unavailable Marian options", name, reason, std::move(slot));
}

OptionSet& OptionSet::preset(const std::string& name, const std::string& value,
                             std::vector<std::pair<std::string, std::string>> values) {
  REALMT_ASSERT(index_.count(name), "preset for unknown option '{}'", name);
  for (const auto& [key, text] : values)
    REALMT_ASSERT(index_.count(key), "preset sets unknown option '{}'", key);
  presets_.push_back({name, value, std::move(values)});
  return *this;
}

OptionSet& OptionSet::version_line(std::function<std::string()> line) {
  version_lines_.push_back(std::move(line));
  return *this;
}

OptionSet& OptionSet::on_parsed(std::function<void(const OptionSet&)> check) {
  checks_.push_back(std::move(check));
  return *this;
}

void OptionSet::apply_presets() {
  for (const Preset& p : presets_) {
    const std::vector<std::string> chosen = get(p.option).get();
    const auto match = std::find_if(chosen.begin(), chosen.end(), [&](const std::string& v) {
      return preset_matches(p.value, v);
    });
    if (match == chosen.end()) continue;
    for (const auto& [key, text] : p.values) {
      detail::OptionSlot& slot = *find(key);
      if (slot.was_set && !slot.from_preset) continue;  // files and the command line win
      const std::string origin = p.option + " " + *match;
      assign(slot, slot.is_list ? words(text) : std::vector<std::string>{text}, origin);
      slot.from_preset = true;
    }
  }
}

void OptionSet::check_unavailable() const {
  for (const auto& s : slots_) {
    if (s.compat != detail::OptionSlot::Compat::kUnavailable || !s.was_set || harmless(s)) continue;
    const std::string where = s.origin == "command line" ? "on the command line" : "in " + s.origin;
    REALMT_USAGE_FAIL("{}: Marian option '{}' ({}) is not available in realmt: {}", program_,
                      s.name, where, s.compat_reason);
  }
}

void OptionSet::check_required() const {
  for (const auto& s : slots_)
    REALMT_USAGE_CHECK(!s.required || s.was_set,
                       "{}: option '--{}' is required ({}; see {} --help)", program_, s.name,
                       s.help, program_);
}

void OptionSet::declare_general() {
  // Marian's general options (config_parser.cpp, addOptionsGeneral), in every program.
  owned_.push_back(std::make_unique<detail::OwnedValue>());
  owned_.back()->text = "info";
  add_slot("Logging", "log-level",
           "Log verbosity: trace, debug, info, warn, err(or), critical, off (Marian's levels; "
           "trace logs as debug, "
           "critical as error); for stderr and the log file",
           detail::make_choice_slot(&owned_.back()->text, {"trace", "debug", "info", "warn", "err",
                                                           "error", "critical", "off"}));
  owned_.push_back(std::make_unique<detail::OwnedValue>());
  add_slot("Logging", "log",
           "Also append every log line to this file (Marian's --log; docs/logging.md)",
           detail::make_slot(&owned_.back()->text));
  const char* prints =
      "Marian prints this and exits; realmt has no such text (see --version and the README)";
  add_unavailable("authors", Kind::kFlag, {}, prints);
  add_unavailable("cite", Kind::kFlag, {}, prints);
  add_unavailable("build-info", Kind::kValue, {""}, prints);
}

void OptionSet::apply_log_level() const {
  const detail::OptionSlot& s = get("log-level");
  if (!s.was_set) return;  // the program's own default (tests set theirs)
  log::set_level(log::parse_level(s.get().at(0)));
}

void OptionSet::report_no_effect() const {
  for (const auto& s : slots_)
    if (s.compat == detail::OptionSlot::Compat::kNoEffect && s.was_set && !s.from_preset &&
        !harmless(s))
      log::info("{}: {} has no effect in realmt: {}", program_, s.name, s.compat_reason);
}

void OptionSet::run_checks() const {
  for (const auto& check : checks_) {
    try {
      check(*this);
    } catch (const UsageError&) {
      throw;
    } catch (const InternalError&) {
      throw;
    } catch (const Error& e) {
      detail::throw_as_usage(e, program_);
    }
  }
}

}  // namespace realmt
