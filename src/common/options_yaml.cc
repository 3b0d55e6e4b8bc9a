// OptionSet: YAML config files in, the effective config out. Values are read as text
// (Node::Scalar) and parsed by the same code as the command line, so "1e-4" or "2e" mean the
// same thing in both places.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

// GCC 12 reports false -Wdangling-pointer positives inside yaml-cpp 0.7's node headers (clang,
// used for the fuzz build, has no such warning).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
#include <yaml-cpp/yaml.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "common/options.h"
#include "core/error.h"

namespace realmt {
namespace {

const char* kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "map";
    case YAML::NodeType::Sequence: return "list";
    case YAML::NodeType::Scalar: return "scalar";
    default: return "null";
  }
}

std::string at(const std::string& origin, const YAML::Node& node) {
  return format("{}:{}", origin, node.Mark().line + 1);  // yaml-cpp counts lines from 0
}

// Plain scalars that YAML reads as null must be quoted to stay strings.
bool null_like(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

void emit_text(YAML::Emitter& e, const std::string& s) {
  if (null_like(s)) e << YAML::DoubleQuoted;
  e << s;
}

}  // namespace

void OptionSet::load_yaml_file(const std::string& path) {
  // A directory opens as an empty stream on Linux: it would count as an empty config.
  std::error_code ec;
  REALMT_CHECK(!std::filesystem::is_directory(path, ec),
               "{}: config '{}' is a directory, not a YAML file", program_, path);
  std::ifstream in(path, std::ios::binary);
  REALMT_CHECK(in.good(), "{}: cannot read config file '{}'", program_, path);
  std::ostringstream text;
  text << in.rdbuf();
  REALMT_CHECK(!in.bad(), "{}: cannot read config file '{}'", program_, path);
  load_yaml_string(text.str(), path);
}

void OptionSet::load_yaml_string(const std::string& text, const std::string& origin) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    REALMT_FAIL("{}: invalid YAML in {}:{}:{}: {}", program_, origin, e.mark.line + 1,
                e.mark.column + 1, e.msg);
  }
  if (root.IsNull()) return;  // an empty file sets nothing
  REALMT_CHECK(root.IsMap(),
               "{}: {} must be a map of 'option: value' lines (as in Marian configs), not a {}",
               program_, at(origin, root), kind(root));
  std::set<std::string> seen;
  for (auto it = root.begin(); it != root.end(); ++it) {
    // Copies, not references: the iterator's operator-> returns a temporary pair, so a
    // reference to its members would dangle (stack use-after-scope under ASan).
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    const std::string where = at(origin, key);
    REALMT_CHECK(key.IsScalar(), "{}: {}: option names must be plain strings", program_, where);
    const std::string& name = key.Scalar();
    REALMT_CHECK(!(value.IsMap() && value.size() == 0),
                 "{}: option '{}' in {}: expected a value, got {{}}", program_, name, where);
    if (value.IsMap()) {
      // Name the first nested key: that is what the user must move to the top level.
      const YAML::Node inner = value.begin()->first;
      REALMT_FAIL(
          "{}: nested key '{}.{}' in {}: configs are flat maps (as in Marian); write '{}: ...' "
          "at the top level",
          program_, name, inner.IsScalar() ? inner.Scalar() : "?", at(origin, inner),
          inner.IsScalar() ? inner.Scalar() : "?");
    }
    detail::OptionSlot* slot = find(name);
    if (!slot) fail_unknown(name, "in " + where, "");
    REALMT_CHECK(seen.insert(name).second, "{}: option '{}' appears twice in {} (again at {})",
                 program_, name, origin, where);
    std::vector<std::string> values;
    if (value.IsNull()) {
      REALMT_CHECK(slot->is_list || slot->metavar == "STRING",
                   "{}: option '{}' in {} has no value; expected {}", program_, name, where,
                   slot->expected);
      if (!slot->is_list) values.push_back("");
    } else if (value.IsScalar()) {
      values.push_back(value.Scalar());
    } else {
      REALMT_CHECK(slot->is_list, "{}: option '{}' in {}: expected {}, got a list", program_, name,
                   where, slot->expected);
      for (const auto& item : value) {
        REALMT_CHECK(item.IsScalar(),
                     "{}: option '{}' in {}: list items must be plain values, not a {}", program_,
                     name, at(origin, item), kind(item));
        values.push_back(item.Scalar());
      }
    }
    assign(*slot, values, where);
  }
}

std::string OptionSet::dump_yaml(bool only_set, bool with_presets) const {
  std::ostringstream os;
  os << "# " << program_ << ": effective config ("
     << (only_set ? "options set by files or the command line" : "all options")
     << "); load it with -c\n";
  for (const auto& group : groups_) {
    bool header = false;
    for (const auto& s : slots_) {
      // Marian-compatibility options appear only when set; presets' options only when asked for.
      const bool set = s.was_set && (!s.from_preset || with_presets || !only_set);
      if (s.group != group || ((only_set || s.compat != detail::OptionSlot::Compat::kNone) && !set))
        continue;
      if (!header) os << "\n# ---- " << group << " ----\n", header = true;
      std::istringstream help(s.help);
      for (std::string line; std::getline(help, line);) os << "# " << line << "\n";
      YAML::Emitter e;
      const std::vector<std::string> values = s.get();
      if (s.is_list) {
        e << YAML::Flow << YAML::BeginSeq;
        for (const auto& v : values) emit_text(e, v);
        e << YAML::EndSeq;
      } else {
        emit_text(e, values.at(0));
      }
      os << s.name << ": " << e.c_str() << "\n";
    }
  }
  return os.str();
}

}  // namespace realmt
