// realmt.metrics' C++ side: the sacreBLEU-exact metrics of src/metrics/ (statistics, corpus
// scores, signatures, sacreBLEU's score formatting). The sacreBLEU-shaped classes are Python
// (python/realmt/metrics.py); every number comes from here.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>

#include "bindings.h"
#include "core/error.h"
#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "metrics/report.h"
#include "metrics/ter.h"

namespace py = pybind11;

namespace realmt::python {
namespace {

// One metric with its cached references. Statistics are computed without the GIL.
class PyMetric {
 public:
  explicit PyMetric(std::unique_ptr<metrics::Metric> metric) : metric_(std::move(metric)) {}

  // refs[r][i]: reference r of segment i (sacreBLEU's layout).
  void set_references(const std::vector<std::vector<std::string>>& refs) {
    py::gil_scoped_release unlocked;
    metric_->set_references(refs);
  }
  // Per-segment statistics rows.
  std::vector<std::vector<double>> segment_stats(const std::vector<std::string>& hyps,
                                                 int threads) const {
    metrics::CorpusStats stats;
    {
      py::gil_scoped_release unlocked;
      stats = metric_->corpus_stats(hyps, std::max(1, threads));
    }
    std::vector<std::vector<double>> rows;
    for (size_t i = 0; i < stats.num_segments(); ++i)
      rows.emplace_back(stats.row(i), stats.row(i) + stats.num_stats);
    return rows;
  }
  // The corpus's summed statistics (sacreBLEU's sum_of_lists order).
  std::vector<double> corpus_sums(const std::vector<std::string>& hyps, int threads) const {
    py::gil_scoped_release unlocked;
    return metrics::Metric::sum_rows(metric_->corpus_stats(hyps, std::max(1, threads)));
  }
  py::tuple score(const std::vector<double>& sums) const {
    check_sums(sums);
    const metrics::Score s = metric_->score_from_sums(sums);
    return py::make_tuple(s.score, s.verbose);
  }
  // BLEU only: (score, precisions, bp, sys_len, ref_len, verbose, counts, totals).
  py::tuple bleu_detail(const std::vector<double>& sums) const {
    check_sums(sums);
    const auto* bleu = dynamic_cast<const metrics::Bleu*>(metric_.get());
    REALMT_CHECK(bleu != nullptr, "bleu_detail: {} is not BLEU", metric_->name());
    const metrics::BleuDetail d = bleu->detail_from_sums(sums);
    return py::make_tuple(d.score, d.precisions, d.bp, d.sys_len, d.ref_len, d.verbose(), d.counts,
                          d.totals);
  }
  // (key, short key, value) per field, in sacreBLEU's order.
  std::vector<std::tuple<std::string, std::string, std::string>> signature() const {
    std::vector<std::tuple<std::string, std::string, std::string>> out;
    for (const auto& f : metric_->signature().fields) out.emplace_back(f.key, f.short_key, f.value);
    return out;
  }
  std::string name() const { return metric_->name(); }
  size_t num_stats() const { return metric_->num_stats(); }

 private:
  void check_sums(const std::vector<double>& sums) const {
    REALMT_CHECK(sums.size() == metric_->num_stats(), "{}: {} statistics given, {} expected",
                 metric_->name(), sums.size(), metric_->num_stats());
  }
  std::unique_ptr<metrics::Metric> metric_;
};

PyMetric make_bleu(const std::string& tokenize, const std::string& trg_lang, bool lowercase,
                   const std::string& smooth_method, std::optional<double> smooth_value,
                   bool effective_order, int max_ngram_order) {
  REALMT_CHECK(max_ngram_order >= 1, "max_ngram_order must be at least 1, got {}", max_ngram_order);
  metrics::BleuOptions b;
  b.tokenizer = metrics::parse_tokenizer(
      tokenize.empty() ? metrics::default_bleu_tokenizer(trg_lang, "give tokenize=") : tokenize);
  b.lowercase = lowercase;
  b.smoothing = metrics::parse_smoothing(smooth_method);
  b.smooth_value = smooth_value;
  b.effective_order = effective_order;
  b.max_ngram_order = max_ngram_order;
  return PyMetric(std::make_unique<metrics::Bleu>(b));
}

PyMetric make_chrf(int char_order, int word_order, int beta, bool lowercase, bool whitespace,
                   bool eps_smoothing) {
  return PyMetric(
      std::make_unique<metrics::Chrf>(metrics::ChrfOptions{.char_order = char_order,
                                                           .word_order = word_order,
                                                           .beta = beta,
                                                           .lowercase = lowercase,
                                                           .whitespace = whitespace,
                                                           .eps_smoothing = eps_smoothing}));
}

PyMetric make_ter(bool normalized, bool no_punct, bool asian_support, bool case_sensitive) {
  return PyMetric(
      std::make_unique<metrics::Ter>(metrics::TerOptions{.normalized = normalized,
                                                         .no_punct = no_punct,
                                                         .asian_support = asian_support,
                                                         .case_sensitive = case_sensitive}));
}

// sacreBLEU's Score.format (without confidence intervals).
std::string format_score(const std::string& name, double score, const std::string& verbose,
                         int width, bool score_only, const std::string& signature, bool is_json) {
  metrics::ScoreLine line;
  line.name = name;
  line.score = score;
  line.verbose = verbose;
  return metrics::format_score(line, width, score_only, signature, is_json);
}

}  // namespace

void add_metrics(py::module_& m) {
  py::class_<PyMetric>(m, "Metric")
      .def("set_references", &PyMetric::set_references)
      .def("segment_stats", &PyMetric::segment_stats, py::arg("hyps"), py::arg("threads") = 1)
      .def("corpus_sums", &PyMetric::corpus_sums, py::arg("hyps"), py::arg("threads") = 1)
      .def("score", &PyMetric::score)
      .def("bleu_detail", &PyMetric::bleu_detail)
      .def("signature", &PyMetric::signature)
      .def_property_readonly("name", &PyMetric::name)
      .def_property_readonly("num_stats", &PyMetric::num_stats);
  m.def("make_bleu", &make_bleu);
  m.def("make_chrf", &make_chrf);
  m.def("make_ter", &make_ter);
  m.def("format_score", &format_score);
}

}  // namespace realmt::python
