#include "metrics/cli_inputs.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
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

std::string known_test_set_names() {
  std::string names;
  for (const auto& t : known_test_sets()) names += (names.empty() ? "" : ", ") + t.name;
  return names;
}

// The lines of one field of a cached test set; a missing file says how to fill the cache.
std::vector<std::string> read_test_set_field(const TestSet& t, const std::string& pair, const std::string& field) {
  const std::string cache = sacrebleu_cache_dir();
  const std::string path = test_set_file(cache, t, pair, field);
  if (!std::filesystem::is_regular_file(path)) {
    const TestSetPair& p = *t.find_pair(pair);
    const bool document = field != "src" && field != "ref";
    fatal(1, "test set " + t.name + " (" + pair + "): " + path + " not found in the cache " + cache +
                 " ($SACREBLEU, else ~/.sacrebleu). " +
                 (document ? "The " + field + " field is written only from the SGM files (" + p.src_sgm + "); "
                           : std::string()) +
                 "Fill it from local files with `realmt-data testsets --from DIR` (" + p.plain + "." +
                 pair.substr(0, pair.find('-')) + "/." + pair.substr(pair.find('-') + 1) + " or " + p.src_sgm +
                 " under DIR), or download them with tools/prepare-wmt14-enfr --out DIR, which fills it too.");
  }
  return read_lines_file(path);
}

}  // namespace

std::vector<const TestSet*> selected_test_sets(const CliOptions& o) {
  std::vector<const TestSet*> sets;
  if (o.num_refs != 1 && (o.test_set || o.refs.size() > 1)) {
    fatal(1, "The --num-refs argument allows you to provide any number of tab-delimited references in a single "
             "file; you can only use it with externally provided references (not with -t), and you cannot then "
             "provide multiple reference files.");
  }
  if (!o.test_set) {
    if (o.refs.empty()) {
      fatal(1, "If manual references given, make sure to provide them before the -i/--input argument to avoid "
               "confusion. Otherwise, I need a predefined test set (-t) from the following list: " +
                   known_test_set_names());
    }
    return sets;
  }
  size_t start = 0;
  for (;;) {
    const size_t comma = std::min(o.test_set->find(',', start), o.test_set->size());
    const std::string name = o.test_set->substr(start, comma - start);
    const TestSet* t = find_test_set(name);
    if (t == nullptr) {
      fatal(1, "Unknown test set '" + name + "': realmt-bleu knows " + known_test_set_names() +
                   " (--list; sacreBLEU's other test sets are not supported)");
    }
    sets.push_back(t);
    if (comma == o.test_set->size()) break;
    start = comma + 1;
  }
  if (!o.refs.empty()) fatal(1, "I need exactly one of (a) a predefined test set (-t) or (b) a list of references");
  if (!o.language_pair) fatal(1, "I need a language pair (-l). Use --list to see available language pairs for this test set.");
  for (const TestSet* t : sets) {
    if (t->find_pair(*o.language_pair) == nullptr) {
      std::string pairs;
      for (const auto& p : t->pairs) pairs += " " + p.pair;
      fatal(1, "No such language pair '" + *o.language_pair + "'. Available language pairs for '" + t->name +
                   "' are:" + pairs);
    }
  }
  return sets;
}

std::vector<std::vector<std::string>> read_references(const CliOptions& o, const std::vector<const TestSet*>& sets) {
  if (!sets.empty()) {
    std::vector<std::vector<std::string>> refs(1);
    for (const TestSet* t : sets) {
      for (const auto& line : read_test_set_field(*t, *o.language_pair, "ref")) refs[0].emplace_back(py_rstrip(line));
    }
    return refs;
  }
  std::vector<std::vector<std::string>> refs(std::max<size_t>(o.refs.size(), static_cast<size_t>(std::max(o.num_refs, 1))));
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
        fatal(17, format("FATAL: line {}: expected {} fields, but found {}.", l + 1, o.num_refs, fields.size()));
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
        fatal(17, "FATAL: the number of tab-delimited fields in the input stream differ across lines.");
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
      fatal(1, "'" + fname + "' already used to name a system. Make sure to have a different basename for each system.");
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
  if (o.test_set) {
    const TestSet* t = find_test_set(*o.test_set);
    if (t == nullptr) fatal(1, "Unknown test set '" + *o.test_set + "': realmt-bleu knows " + known_test_set_names());
    std::string fields;
    for (const auto& f : t->fields()) fields += (fields.empty() ? "" : ", ") + f;
    for (const auto& p : t->pairs) {
      if (!o.language_pair || *o.language_pair == p.pair) out << p.pair << ": " << fields << "\n";
    }
    return;
  }
  out << (o.language_pair ? "The available test sets for " + *o.language_pair + " are:\n" : "The available test sets are:\n");
  std::vector<const TestSet*> sets;
  for (const auto& t : known_test_sets()) {
    if (!o.language_pair || t.find_pair(*o.language_pair) != nullptr) sets.push_back(&t);
  }
  std::sort(sets.begin(), sets.end(), [](const TestSet* a, const TestSet* b) { return a->name < b->name; });
  for (const TestSet* t : sets) out << t->name << std::string(t->name.size() < 30 ? 30 - t->name.size() : 0, ' ') << ": " << t->description << "\n";
}

void echo_test_sets(const CliOptions& o, const std::vector<const TestSet*>& sets, std::ostream& out) {
  if (!o.language_pair || sets.empty()) fatal(1, "--echo requires a test set (-t) and a language pair (-l)");
  for (const TestSet* t : sets) {
    std::vector<std::string> fields = *o.echo;
    const auto all = t->fields();
    if (std::find(fields.begin(), fields.end(), "all") != fields.end()) {
      if (fields.size() != 1) fatal(1, "Cannot use --echo all with other fields");
      fields = all;
    }
    std::vector<std::vector<std::string>> columns;
    size_t rows = std::string::npos;
    for (const auto& f : fields) {
      if (std::find(all.begin(), all.end(), f) == all.end()) {
        std::string avail;
        for (const auto& a : all) avail += (avail.empty() ? "" : ", ") + a;
        fatal(1, "No such field " + f + " in test set " + t->name + " for language pair " + *o.language_pair +
                     ". available fields for " + t->name + "/" + *o.language_pair + ": " + avail);
      }
      columns.push_back(read_test_set_field(*t, *o.language_pair, f));
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
