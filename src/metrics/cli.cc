#include "metrics/cli.h"

#include <algorithm>
#include <memory>
#include <random>

#include "core/error.h"
#include "core/log.h"
#include "metrics/cli_inputs.h"
#include "metrics/cli_moses.h"
#include "metrics/report.h"
#include "metrics/significance.h"

namespace realmt::metrics {

namespace {

[[noreturn]] void fatal(int code, const std::string& msg) { throw CliExit{code, msg}; }

std::unique_ptr<Metric> make_metric(const std::string& name, const CliOptions& o) {
  if (name == "bleu") {
    BleuOptions b;
    std::string tok = o.tokenize.value_or("");
    if (tok.empty()) {
      const std::string trg = o.language_pair && o.language_pair->find('-') != std::string::npos
                                  ? o.language_pair->substr(o.language_pair->find('-') + 1)
                                  : "";
      tok = default_bleu_tokenizer(trg, "pass -tok explicitly");
    }
    if (tok == "spm")
      log::warn(
          "realmt-bleu: Tokenizer 'spm' has been changed to 'flores101', and may be removed in the "
          "future.");
    if (is_moses_tokenizer(tok))
      b.moses = make_moses_tokenizer(o, tok);
    else
      b.tokenizer = parse_tokenizer(tok);
    b.lowercase = o.bleu_lowercase;
    b.smoothing = o.smooth_method;
    b.smooth_value = o.smooth_value;
    b.effective_order = o.sentence_level;
    return std::make_unique<Bleu>(b);
  }
  if (name == "chrf") return std::make_unique<Chrf>(o.chrf);
  return std::make_unique<Ter>(o.ter);
}

uint64_t entropy_seed() {
  return (static_cast<uint64_t>(std::random_device{}()) << 32) | std::random_device{}();
}

// sacreBLEU's checks of the inputs against the mode, in its order and with its messages.
void check_inputs(const CliOptions& o, const std::vector<std::vector<std::string>>& refs,
                  const Systems& sys) {
  const bool paired = o.paired_bs || o.paired_ar;
  const size_t num_sys = sys.hyps.size();
  if (o.sentence_level) {
    if (num_sys > 1) fatal(1, "Only one system can be evaluated in sentence-level mode.");
    if (o.confidence || paired)
      fatal(1, "Statistical tests are unavailable in sentence-level mode.");
  }
  if (paired && num_sys == 1)
    fatal(1, "Paired tests require multiple input systems given to --input (-i).");
  if (num_sys > 1 && o.confidence) fatal(1, "Use paired tests (--paired) for multiple systems.");
  for (size_t k = 0; k < num_sys; ++k) {
    if (sys.hyps[k].empty()) {
      fatal(1, "Test set " + (o.test_set ? "'" + *o.test_set + "'" : std::string("None")) +
                   " contains no sentence (system '" + sys.names[k] + "' is empty)");
    }
    for (const auto& r : refs) {
      if (r.size() != sys.hyps[k].size()) {
        fatal(1, format("System and reference streams have different lengths. ('{}' has {} lines, "
                        "a reference has {})",
                        sys.names[k], sys.hyps[k].size(), r.size()));
      }
    }
  }
  check_moses_options(o, num_sys);
}

// The -m metrics, each once (by sacreBLEU's class name), in -m order, with the references set.
std::vector<std::unique_ptr<Metric>> make_metrics(
    const CliOptions& o, const std::vector<std::vector<std::string>>& refs) {
  std::vector<std::unique_ptr<Metric>> metrics;
  for (const auto& name : o.metrics) {
    auto m = make_metric(name, o);
    const bool dup = std::any_of(metrics.begin(), metrics.end(),
                                 [&](const auto& x) { return x->key() == m->key(); });
    if (dup) continue;
    m->set_references(refs);
    metrics.push_back(std::move(m));
  }
  return metrics;
}

// --sentence-level: one line a segment.
void print_sentence_scores(const CliOptions& o, Metric& m, const std::vector<std::string>& hyps,
                           std::ostream& out) {
  const CorpusStats stats = m.corpus_stats(hyps, o.threads);
  const std::string sig = m.signature().format(o.short_sig);
  std::string text;
  for (size_t i = 0; i < stats.num_segments(); ++i) {
    const std::vector<double> row(stats.row(i), stats.row(i) + stats.num_stats);
    const Score s = m.score_from_sums(row);
    text += format_score({m.name(), s.score, s.verbose, std::nullopt, ""}, o.width, o.score_only,
                         sig, false) +
            "\n";
  }
  out << text;
}

// One system: a score line a metric (with --confidence, its bootstrap interval).
void print_single_system(const CliOptions& o, const std::vector<Metric*>& sorted,
                         const std::vector<std::string>& hyps, uint64_t seed,
                         const std::string& seed_label, std::ostream& out) {
  const bool json = o.format == OutputFormat::kJson;
  std::vector<std::string> results;
  for (Metric* m : sorted) {
    const CorpusStats stats = m->corpus_stats(hyps, o.threads);
    const Score s = m->corpus_score(stats);
    ScoreLine line{m->name(), s.score, s.verbose, std::nullopt, json ? implementation_name() : ""};
    Signature sig = m->signature();
    if (o.confidence && o.confidence_n > 1) {
      line.ci = estimate_ci_python(
          bootstrap_scores(*m, stats, static_cast<size_t>(o.confidence_n), seed));
      sig.set_common("bs", std::to_string(o.confidence_n));
      sig.set_common("seed", seed_label);
    }
    results.push_back(
        format_score(line, o.width, o.score_only, sig.format(json ? false : o.short_sig), json));
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
      col.plain.push_back(
          format_score({m->name(), s.score, "", std::nullopt, ""}, o.width, true, "", false));
    }
    table.columns.push_back(std::move(col));
    table.signatures.emplace_back(m->name(), m->signature().format(o.short_sig));
  }
}

// --paired-bs / --paired-ar: the first system is the baseline; a column a metric, in -m order.
void add_paired_columns(const CliOptions& o, const std::vector<std::unique_ptr<Metric>>& metrics,
                        const Systems& sys, const std::optional<uint64_t>& env_seed,
                        const std::string& seed_label, TableRequest& table) {
  table.paired_bs = o.paired_bs;
  table.paired_ar = o.paired_ar;
  const int n_default = o.paired_bs ? 1000 : 10000;
  const int n_given = o.paired_bs ? o.paired_bs_n : o.paired_ar_n;
  const auto n = static_cast<size_t>(n_given > 0 ? n_given : n_default);
  table.paired_n =
      n_given;  // sacreBLEU prints the value given, even when it fell back to the default
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
      col.paired.push_back(o.paired_bs
                               ? paired_bootstrap(*m, base, stats, n, paired_seed)
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
  if (o.sentence_level && o.metrics.size() > 1)
    fatal(1, "Only one metric can be used in sentence-level mode.");
  const std::vector<CachedTestSet> sets = selected_test_sets(o);
  if (o.echo) return echo_test_sets(o, sets, out);
  if (!sets.empty() && o.tokenize && *o.tokenize == "none" &&
      std::find(o.metrics.begin(), o.metrics.end(), "bleu") != o.metrics.end()) {
    log::warn(
        "realmt-bleu: You are turning off BLEU's internal tokenizer presumably to supply your own "
        "tokenized files.");
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
    return print_single_system(o, sorted, sys.hyps[0], env_seed.value_or(entropy_seed()),
                               seed_label, out);
  TableRequest table;
  table.systems = sys.names;
  table.json = o.format == OutputFormat::kJson;
  table.latex = o.format == OutputFormat::kLatex;
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
