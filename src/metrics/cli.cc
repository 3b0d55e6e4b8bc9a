#include "metrics/cli.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <random>

#include "core/error.h"
#include "core/log.h"
#include "metrics/cli_moses.h"
#include "metrics/report.h"
#include "metrics/significance.h"
#include "metrics/test_sets.h"
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

// The sets of -t (comma-separated: concatenated), checked in sacreBLEU's order; empty without -t.
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

struct Systems {
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> hyps;
};

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

std::unique_ptr<Metric> make_metric(const std::string& name, const CliOptions& o) {
  if (name == "bleu") {
    BleuOptions b;
    std::string tok = o.tokenize.value_or("");
    if (tok.empty()) {
      const std::string trg = o.language_pair && o.language_pair->find('-') != std::string::npos
                                  ? o.language_pair->substr(o.language_pair->find('-') + 1)
                                  : "";
      REALMT_CHECK(trg != "ja" && trg != "ko", "the {}-mecab tokenizer (chosen by -l for target '{}') is not "
                   "supported by realmt-bleu; pass -tok explicitly", trg, trg);
      tok = trg == "zh" ? "zh" : "13a";
    }
    if (tok == "spm") log::warn("realmt-bleu: Tokenizer 'spm' has been changed to 'flores101', and may be removed in the future.");
    if (is_moses_tokenizer(tok))
      b.moses = make_moses_tokenizer(o, tok);
    else
      b.tokenizer = parse_tokenizer(tok);
    b.lowercase = o.bleu_lowercase;
    b.smoothing = parse_smoothing(o.smooth_method);
    b.smooth_value = o.smooth_value;
    b.effective_order = o.sentence_level;
    return std::make_unique<Bleu>(b);
  }
  if (name == "chrf") return std::make_unique<Chrf>(o.chrf);
  return std::make_unique<Ter>(o.ter);
}

// --list: sacreBLEU's layout, over the test sets realmt knows.
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

// --echo: the requested fields of each test set, tab-separated, line by line.
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

uint64_t entropy_seed() { return (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}(); }

// sacreBLEU's checks of the inputs against the mode, in its order and with its messages.
void check_inputs(const CliOptions& o, const std::vector<std::vector<std::string>>& refs, const Systems& sys) {
  const bool paired = o.paired_bs || o.paired_ar;
  const size_t num_sys = sys.hyps.size();
  if (o.sentence_level) {
    if (num_sys > 1) fatal(1, "Only one system can be evaluated in sentence-level mode.");
    if (o.confidence || paired) fatal(1, "Statistical tests are unavailable in sentence-level mode.");
  }
  if (paired && num_sys == 1) fatal(1, "Paired tests require multiple input systems given to --input (-i).");
  if (num_sys > 1 && o.confidence) fatal(1, "Use paired tests (--paired) for multiple systems.");
  for (size_t k = 0; k < num_sys; ++k) {
    if (sys.hyps[k].empty()) {
      fatal(1, "Test set " + (o.test_set ? "'" + *o.test_set + "'" : std::string("None")) + " contains no sentence (system '" +
                   sys.names[k] + "' is empty)");
    }
    for (const auto& r : refs) {
      if (r.size() != sys.hyps[k].size()) {
        fatal(1, format("System and reference streams have different lengths. ('{}' has {} lines, a reference has {})",
                        sys.names[k], sys.hyps[k].size(), r.size()));
      }
    }
  }
  check_moses_options(o, num_sys);
}

// The -m metrics, each once (by sacreBLEU's class name), in -m order, with the references set.
std::vector<std::unique_ptr<Metric>> make_metrics(const CliOptions& o,
                                                  const std::vector<std::vector<std::string>>& refs) {
  std::vector<std::unique_ptr<Metric>> metrics;
  for (const auto& name : o.metrics) {
    auto m = make_metric(name, o);
    const bool dup = std::any_of(metrics.begin(), metrics.end(), [&](const auto& x) { return x->key() == m->key(); });
    if (dup) continue;
    m->set_references(refs);
    metrics.push_back(std::move(m));
  }
  return metrics;
}

// --sentence-level: one line a segment.
void print_sentence_scores(const CliOptions& o, Metric& m, const std::vector<std::string>& hyps, std::ostream& out) {
  const CorpusStats stats = m.corpus_stats(hyps, o.threads);
  const std::string sig = m.signature().format(o.short_sig);
  std::string text;
  for (size_t i = 0; i < stats.num_segments(); ++i) {
    const std::vector<double> row(stats.row(i), stats.row(i) + stats.num_stats);
    const Score s = m.score_from_sums(row);
    text += format_score({m.name(), s.score, s.verbose, std::nullopt, ""}, o.width, o.score_only, sig, false) + "\n";
  }
  out << text;
}

// One system: a score line a metric (with --confidence, its bootstrap interval).
void print_single_system(const CliOptions& o, const std::vector<Metric*>& sorted, const std::vector<std::string>& hyps,
                         uint64_t seed, const std::string& seed_label, std::ostream& out) {
  const bool json = o.format == OutputFormat::kJson;
  std::vector<std::string> results;
  for (Metric* m : sorted) {
    const CorpusStats stats = m->corpus_stats(hyps, o.threads);
    const Score s = m->corpus_score(stats);
    ScoreLine line{m->name(), s.score, s.verbose, std::nullopt, json ? implementation_name() : ""};
    Signature sig = m->signature();
    if (o.confidence && o.confidence_n > 1) {
      line.ci = estimate_ci_python(bootstrap_scores(*m, stats, static_cast<size_t>(o.confidence_n), seed));
      sig.set_common("bs", std::to_string(o.confidence_n));
      sig.set_common("seed", seed_label);
    }
    results.push_back(format_score(line, o.width, o.score_only, sig.format(json ? false : o.short_sig), json));
  }
  out << single_results(results, json);
}

// Several systems without a paired test: a table of plain scores.
void add_plain_columns(const CliOptions& o, const std::vector<Metric*>& sorted, const Systems& sys,
                       TableRequest& table) {
  for (Metric* m : sorted) {
    ResultColumn col{m->name(), {}, {}};
    for (const auto& hyps : sys.hyps) {
      const Score s = m->corpus_score(m->corpus_stats(hyps, o.threads));
      col.plain.push_back(format_score({m->name(), s.score, "", std::nullopt, ""}, o.width, true, "", false));
    }
    table.columns.push_back(std::move(col));
    table.signatures.emplace_back(m->name(), m->signature().format(o.short_sig));
  }
}

// --paired-bs / --paired-ar: the first system is the baseline; a column a metric, in -m order.
void add_paired_columns(const CliOptions& o, const std::vector<std::unique_ptr<Metric>>& metrics, const Systems& sys,
                        const std::optional<uint64_t>& env_seed, const std::string& seed_label, TableRequest& table) {
  table.paired_bs = o.paired_bs;
  table.paired_ar = o.paired_ar;
  const int n_default = o.paired_bs ? 1000 : 10000;
  const int n_given = o.paired_bs ? o.paired_bs_n : o.paired_ar_n;
  const auto n = static_cast<size_t>(n_given > 0 ? n_given : n_default);
  table.paired_n = n_given;  // sacreBLEU prints the value given, even when it fell back to the default
  // In paired mode a seed of 0 counts as "no seed" (Python truthiness), as in sacreBLEU.
  const uint64_t paired_seed = env_seed && *env_seed != 0 ? *env_seed : entropy_seed();
  for (const auto& owned : metrics) {
    Metric* m = owned.get();
    const CorpusStats base = m->corpus_stats(sys.hyps[0], o.threads);
    ResultColumn col{m->name(), {}, {}};
    PairedResult b;
    b.score = m->corpus_score(base).score;
    if (o.paired_bs) {
      const Confidence c = estimate_ci_numpy(bootstrap_scores(*m, base, n, paired_seed));
      b.mean = c.mean;
      b.ci = c.ci;
    }
    col.paired.push_back(b);
    for (size_t k = 1; k < sys.hyps.size(); ++k) {
      const CorpusStats stats = m->corpus_stats(sys.hyps[k], o.threads);
      col.paired.push_back(o.paired_bs ? paired_bootstrap(*m, base, stats, n, paired_seed)
                                       : paired_approximate_randomization(*m, base, stats, n, paired_seed));
    }
    Signature sig = m->signature();
    sig.set_common("seed", seed_label);
    sig.set_common(o.paired_bs ? "bs" : "ar", std::to_string(n));
    table.signatures.emplace_back(m->name(), sig.format(o.short_sig));
    table.columns.push_back(std::move(col));
  }
}

}  // namespace

void run_cli(const CliOptions& o, std::istream& in, std::ostream& out) {
  const bool paired = o.paired_bs || o.paired_ar;
  if (o.list) return list_test_sets(o, out);
  if (o.sentence_level && o.metrics.size() > 1) fatal(1, "Only one metric can be used in sentence-level mode.");
  const std::vector<const TestSet*> sets = selected_test_sets(o);
  if (o.echo) return echo_test_sets(o, sets, out);
  if (!sets.empty() && o.tokenize && *o.tokenize == "none" &&
      std::find(o.metrics.begin(), o.metrics.end(), "bleu") != o.metrics.end()) {
    log::warn("realmt-bleu: You are turning off BLEU's internal tokenizer presumably to supply your own tokenized files.");
    log::warn("realmt-bleu: Published numbers will not be comparable to other papers.");
  }
  const auto refs = read_references(o, sets);
  const Systems sys = read_systems(o, in, paired);
  check_inputs(o, refs, sys);
  if (o.multi_bleu) {
    const auto bleu = make_metric("bleu", o);
    bleu->set_references(refs);
    out << multi_bleu_line(Metric::sum_rows(bleu->corpus_stats(sys.hyps[0], o.threads)));
    return;
  }
  // Metrics keyed by sacreBLEU's class name; -m order is kept for paired tests.
  const std::vector<std::unique_ptr<Metric>> metrics = make_metrics(o, refs);
  std::vector<Metric*> sorted;
  for (auto& m : metrics) sorted.push_back(m.get());
  std::sort(sorted.begin(), sorted.end(), [](Metric* a, Metric* b) { return a->key() < b->key(); });
  if (o.sentence_level) return print_sentence_scores(o, *metrics[0], sys.hyps[0], out);
  std::string seed_label;
  const std::optional<uint64_t> env_seed = seed_from_env(&seed_label);
  const size_t num_sys = sys.hyps.size();
  if (num_sys == 1)
    return print_single_system(o, sorted, sys.hyps[0], env_seed.value_or(entropy_seed()), seed_label, out);
  TableRequest table;
  table.systems = sys.names;
  table.json = o.format == OutputFormat::kJson;
  table.width = o.width;
  if (!o.quiet) log::info("realmt-bleu: Found {} systems.", num_sys);
  if (paired) {
    add_paired_columns(o, metrics, sys, env_seed, seed_label, table);
  } else {
    add_plain_columns(o, sorted, sys, table);
  }
  out << results_table(table);
}

}  // namespace realmt::metrics
