#include "metrics/cli_inputs.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/log.h"
#include "metrics/text_io.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {

namespace {

[[noreturn]] void fatal(int code, const std::string& msg) { throw CliExit{code, msg}; }

std::vector<std::string> split_tabs(std::string_view s, size_t max_split) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t tab = out.size() < max_split ? s.find('\t', start) : std::string_view::npos;
    if (tab == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, tab - start));
    start = tab + 1;
  }
}

// Python's repr of a list of names: ['wmt14', 'wmt13'].
std::string python_list(const std::vector<std::string>& names) {
  std::string out = "[";
  for (const auto& n : names) out += (out.size() > 1 ? ", '" : "'") + n + "'";
  return out + "]";
}

// sacreBLEU's message for a set it does not have, and where realmt-bleu looked.
[[noreturn]] void unknown_test_set(const std::string& name) {
  const std::string cache = sacrebleu_cache_dir();
  std::string hint = "realmt-bleu reads test sets from the cache " + cache +
                     " ($SACREBLEU, else ~/.sacrebleu) and never downloads: fill it with sacreBLEU "
                     "(sacrebleu -t " +
                     name + " -l SRC-TRG --echo src downloads it)";
  if (find_test_set(name) != nullptr) {
    hint +=
        ", with realmt-data testsets --from DIR (the WMT SGM or plain-text files under DIR) or "
        "tools/prepare-wmt14-enfr --out DIR";
  }
  fatal(1, "Unknown test set '" + name +
               "'\nPlease run with --list to see the available test sets.\n" + hint + ".");
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = std::min(s.find(',', start), s.size());
    out.push_back(s.substr(start, comma - start));
    if (comma == s.size()) return out;
    start = comma + 1;
  }
}

void check_language_pair(const CachedTestSet& t, const std::string& pair) {
  if (t.fields.count(pair) != 0) return;
  std::string msg =
      "No such language pair '" + pair + "'\nAvailable language pairs for '" + t.name + "' are:";
  for (const auto& p : t.pairs()) msg += "\n > " + p;
  fatal(1, msg);
}

}  // namespace

std::vector<CachedTestSet> selected_test_sets(const CliOptions& o) {
  if (o.num_refs != 1 && (o.test_set || o.refs.size() > 1)) {
    fatal(1,
          "The --num-refs argument allows you to provide any number of tab-delimited references in "
          "a single "
          "file.\nYou can only use it with externally provided references, however (i.e., not with "
          "`-t`),\n"
          "and you cannot then provide multiple reference files.");
  }
  std::vector<CachedTestSet> sets;
  const std::string cache = sacrebleu_cache_dir();
  if (!o.test_set) {
    if (o.refs.empty()) {
      fatal(1,
            "If manual references given, make sure to provide them before the -i/--input argument "
            "to avoid "
            "confusion.\nOtherwise, I need a predefined test set (-t) from the following list:\n" +
                python_list(cached_test_set_names(cache)));
    }
    return sets;
  }
  for (const std::string& name : split_commas(*o.test_set)) {
    auto set = find_cached_test_set(cache, name);
    if (!set) unknown_test_set(name);
    sets.push_back(std::move(*set));
  }
  if (!o.refs.empty())
    fatal(1, "I need exactly one of (a) a predefined test set (-t) or (b) a list of references");
  if (!o.language_pair)
    fatal(1,
          "I need a language pair (-l). Use --list to see available language pairs for this test "
          "set.");
  for (const CachedTestSet& t : sets) check_language_pair(t, *o.language_pair);
  return sets;
}

// The -t sets' references, concatenated set after set (sacreBLEU's concat_ref_files).
std::vector<std::vector<std::string>> read_test_set_references(
    const CliOptions& o, const std::vector<CachedTestSet>& sets) {
  const std::string& pair = *o.language_pair;
  std::vector<std::vector<std::string>> refs(
      std::max<size_t>(sets[0].reference_fields(pair).size(), 1));
  for (const CachedTestSet& t : sets) {
    const auto fields = t.reference_fields(pair);
    if (fields.empty())
      log::warn("realmt-bleu: No references found for test set {}/{}.", t.name, pair);
    if (fields.size() > refs.size()) {
      fatal(1, format("test set {}/{} has {} references, the first test set of -t {}", t.name, pair,
                      fields.size(), refs.size()));
    }
    for (size_t r = 0; r < fields.size(); ++r) {
      for (const auto& line : read_lines_file(t.file(pair, fields[r])))
        refs[r].emplace_back(py_rstrip(line));
    }
  }
  return refs;
}

std::vector<std::vector<std::string>> read_references(const CliOptions& o,
                                                      const std::vector<CachedTestSet>& sets) {
  if (!sets.empty()) return read_test_set_references(o, sets);
  std::vector<std::vector<std::string>> refs(
      std::max<size_t>(o.refs.size(), static_cast<size_t>(std::max(o.num_refs, 1))));
  for (size_t f = 0; f < o.refs.size(); ++f) {
    const auto lines = read_lines_file(o.refs[f]);
    for (size_t l = 0; l < lines.size(); ++l) {
      const std::string line(py_rstrip(lines[l]));
      if (o.num_refs == 1) {
        refs[f].push_back(line);
        continue;
      }
      auto fields = split_tabs(line, static_cast<size_t>(o.num_refs - 1));
      if (fields.size() != static_cast<size_t>(o.num_refs)) {
        fatal(17, format("FATAL: line {}: expected {} fields, but found {}.", l + 1, o.num_refs,
                         fields.size()));
      }
      for (size_t r = 0; r < fields.size(); ++r) refs[r].push_back(fields[r]);
    }
  }
  return refs;
}


Systems read_systems(const CliOptions& o, std::istream& in, bool paired) {
  Systems s;
  if (!o.inputs) {
    auto lines = read_lines_universal(in, "<stdin>");
    if (lines.empty()) lines.emplace_back();  // readline() of an empty stream: one empty line
    const auto first = split_tabs(py_rstrip(lines[0]), std::string::npos);
    s.hyps.resize(first.size());
    for (size_t k = 0; k < first.size(); ++k) s.hyps[k].push_back(first[k]);
    for (size_t l = 1; l < lines.size(); ++l) {
      const auto fields = split_tabs(py_rstrip(lines[l]), std::string::npos);
      if (fields.size() != first.size()) {
        fatal(17,
              "FATAL: the number of tab-delimited fields in the input stream differ across lines.");
      }
      for (size_t k = 0; k < fields.size(); ++k) s.hyps[k].emplace_back(py_rstrip(fields[k]));
    }
    for (size_t k = 0; k < first.size(); ++k) s.names.push_back("System " + std::to_string(k + 1));
    if (paired) {
      s.names[0] = "Baseline";
      for (size_t k = 1; k < s.names.size(); ++k) s.names[k] = "System " + std::to_string(k);
    }
    return s;
  }
  for (const auto& fname : *o.inputs) {
    if (std::find(s.names.begin(), s.names.end(), fname) != s.names.end()) {
      if (paired && fname == s.names[0]) continue;  // the baseline given again
      fatal(1, "'" + fname +
                   "' already used to name a system. Make sure to have a different basename for "
                   "each system.");
    }
    std::vector<std::string> lines = read_lines_file(fname);
    for (auto& l : lines) l = std::string(py_rstrip(l));
    s.hyps.push_back(std::move(lines));
    s.names.push_back(fname);
  }
  if (paired && !s.names.empty()) s.names[0] = "Baseline: " + s.names[0];
  return s;
}

void list_test_sets(const CliOptions& o, std::ostream& out) {
  const std::string cache = sacrebleu_cache_dir();
  if (o.test_set) {
    const auto t = find_cached_test_set(cache, *o.test_set);
    if (!t) unknown_test_set(*o.test_set);
    if (o.language_pair && t->fields.count(*o.language_pair) == 0) {
      fatal(1, "No such language pair " + t->name + "/" + *o.language_pair);
    }
    for (const auto& [pair, fields] : t->fields) {
      if (o.language_pair && *o.language_pair != pair) continue;
      std::string names;
      for (const auto& f : fields) names += (names.empty() ? "" : ", ") + f;
      out << pair << ": " << names << "\n";
    }
    return;
  }
  out << (o.language_pair ? "The available test sets for " + *o.language_pair + " are:\n"
                          : "The available test sets are:\n");
  for (const auto& name : cached_test_set_names(cache)) {
    if (o.language_pair && find_cached_test_set(cache, name)->fields.count(*o.language_pair) == 0)
      continue;
    const TestSet* known = find_test_set(name);
    const std::string description = known != nullptr ? known->description : "(in the cache)";
    out << name << std::string(name.size() < 30 ? 30 - name.size() : 0, ' ') << ": " << description
        << "\n";
  }
}

namespace {

// print_test_set's choice of fields: "all", or the names given ("ref" standing for the first
// reference where the set has none of that name); an unknown name is sacreBLEU's error.
std::vector<std::string> echo_fields(const CliOptions& o, const CachedTestSet& t) {
  const std::string& pair = *o.language_pair;
  const std::vector<std::string>& all = t.fields.at(pair);
  std::vector<std::string> fields = *o.echo;
  if (std::find(fields.begin(), fields.end(), "all") != fields.end()) {
    if (fields.size() != 1) fatal(1, "Cannot use --echo all with other fields");
    return all;
  }
  std::vector<std::string> any_ref;
  for (const auto& f : all) {
    if (f.starts_with("ref")) any_ref.push_back(f);
  }
  const bool has_ref = std::find(all.begin(), all.end(), "ref") != all.end();
  for (auto& f : fields) {
    if (f == "ref" && !has_ref && !any_ref.empty())
      f = *std::min_element(any_ref.begin(), any_ref.end());
    if (std::find(all.begin(), all.end(), f) != all.end()) continue;
    std::string avail;
    for (const auto& a : all) avail += (avail.empty() ? "" : ", ") + a;
    fatal(1, "No such field " + f + " in test set " + t.name + " for language pair " + pair +
                 ".\navailable fields for " + t.name + "/" + pair + ": " + avail);
  }
  return fields;
}

}  // namespace

void echo_test_sets(const CliOptions& o, const std::vector<CachedTestSet>& sets,
                    std::ostream& out) {
  if (!o.language_pair || sets.empty())
    fatal(1, "--echo requires a test set (--t) and a language pair (-l)");
  for (const CachedTestSet& t : sets) {
    std::vector<std::vector<std::string>> columns;
    size_t rows = std::string::npos;
    for (const auto& f : echo_fields(o, t)) {
      columns.push_back(read_lines_file(t.file(*o.language_pair, f)));
      rows = std::min(rows, columns.back().size());
    }
    std::string text;
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < columns.size(); ++c) {
        if (c) text += '\t';
        text += py_rstrip(columns[c][r]);
      }
      text += '\n';
    }
    out << text;
  }
}

}  // namespace realmt::metrics
