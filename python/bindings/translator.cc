// realmt.Translator's C++ side: search::Translator behind a lock, with realmt-translate's options
// struct (search::TranslateOptions) as the options of a call, so that a call decodes exactly as
// realmt-translate does with the same options: chunks of maxi-batch x mini-batch sentences, each
// sorted by length and cut into mini-batches (Translator::translate_lines / translate_ids).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <mutex>
#include <unordered_map>

#include "bindings.h"
#include "core/error.h"
#include "core/parallel.h"
#include "data/line_reader.h"
#include "search/decode_options.h"
#include "search/model_loader.h"
#include "search/scorer.h"
#include "search/translator.h"

namespace py = pybind11;

namespace realmt::python {
namespace {

// A source given as text or as SentencePiece pieces (the Python API's token lists).
using Pieces = std::vector<std::string>;

class PyTranslator {
 public:
  PyTranslator(const std::vector<std::string>& models, const std::vector<std::string>& vocabs,
               const std::string& device, const std::string& compute_type, int threads,
               const std::vector<std::string>& shortlist)
      : models_(models), vocabs_(vocabs), threads_(threads) {
    REALMT_CHECK(threads >= 0, "threads must be >= 0 (0: all cores), got {}", threads);
    const search::Quantize quantize =
        compute_type == "int8" ? search::Quantize::kInt8 : search::Quantize::kNone;
    REALMT_CHECK(compute_type == "int8" || compute_type == "float32" || compute_type == "default",
                 "compute_type must be float32 or int8, got '{}'", compute_type);
    search::ModelOptions check;
    check.models = models;
    check.vocabs = vocabs;
    check.validate();
    search::validate_shortlist(shortlist);
    std::vector<std::string> devices;
    if (!device.empty()) devices.push_back(device);
    py::gil_scoped_release unlocked;
    if (threads_ > 0) set_num_threads(threads_);
    translator_ = std::make_unique<search::Translator>(
        search::Translator::load(models, vocabs, search::parse_decode_device(devices), quantize));
    translator_->use_shortlist(search::load_shortlist(shortlist, *translator_));
  }

  // Text sources: encoded with the vocabulary (and the target-language tag) as realmt-translate
  // does.
  py::list translate_text(const std::vector<std::string>& lines, const search::TranslateOptions& o,
                          int n_best) {
    std::vector<search::LineTranslation> out;
    {
      py::gil_scoped_release unlocked;
      const std::string tag =
          o.target_language.empty() ? "" : translator_->vocab().language_tag(o.target_language);
      out = decode(lines.size(), o, n_best,
                   [&](size_t first, size_t count, const search::SearchOptions& so) {
                     std::vector<std::string> chunk;
                     for (size_t i = first; i < first + count; ++i)
                       chunk.push_back(data::with_language_tag(tag, lines[i]));
                     return translator_->translate_lines(chunk, so, o.batching());
                   });
    }
    return results(out);
  }

  // Token sources: each piece looked up in the source vocabulary (unknown pieces are <unk>).
  py::list translate_tokens(const std::vector<Pieces>& sources, const search::TranslateOptions& o,
                            int n_best) {
    std::vector<search::LineTranslation> out;
    {
      py::gil_scoped_release unlocked;
      out = decode(sources.size(), o, n_best,
                   [&](size_t first, size_t count, const search::SearchOptions& so) {
                     std::vector<std::vector<int32_t>> ids;
                     for (size_t i = first; i < first + count; ++i)
                       ids.push_back(to_ids(sources[i]));
                     return translator_->translate_ids(std::move(ids), so, o.batching());
                   });
    }
    return results(out);
  }

  // Teacher-forced scores of pairs (realmt-score's): (log_prob, score, token_log_probs) each.
  py::list score_text(const std::vector<std::string>& sources,
                      const std::vector<std::string>& targets,
                      const search::ScoreOptions& options) {
    return score_pairs(sources.size(), targets.size(), options,
                       [&](size_t i, auto& src, auto& tgt) {
                         src = translator_->vocab().encode(sources[i]);
                         tgt = translator_->vocab().encode_target(targets[i]);
                       });
  }
  py::list score_tokens(const std::vector<Pieces>& sources, const std::vector<Pieces>& targets,
                        const search::ScoreOptions& options) {
    return score_pairs(sources.size(), targets.size(), options,
                       [&](size_t i, auto& src, auto& tgt) {
                         src = to_ids(sources[i]);
                         tgt = to_target_ids(targets[i]);
                       });
  }

  std::vector<std::string> pieces(const std::string& text) const {
    return translator_->vocab().encode_pieces(text);
  }

 private:
  using ChunkFn = std::function<std::vector<search::LineTranslation>(size_t, size_t,
                                                                     const search::SearchOptions&)>;

  // realmt-translate's loop: chunks of maxi-batch x mini-batch sources, under the lock.
  std::vector<search::LineTranslation> decode(size_t n, search::TranslateOptions o, int n_best,
                                              const ChunkFn& chunk_fn) {
    o.model.models =
        models_;  // this Translator's (checked with the options, as realmt-translate's)
    o.model.vocabs = vocabs_;
    o.validate();
    search::SearchOptions so = o.search();
    so.n_best = n_best;
    so.validate(translator_->models().size());
    const std::lock_guard<std::mutex> lock(mutex_);
    if (threads_ > 0) set_num_threads(threads_);
    std::vector<search::LineTranslation> out;
    const size_t chunk = static_cast<size_t>(o.maxi_batch * o.model.mini_batch);
    for (size_t first = 0; first < n; first += chunk) {
      auto part = chunk_fn(first, std::min(chunk, n - first), so);
      for (auto& r : part) out.push_back(std::move(r));
    }
    return out;
  }

  static void check_pairs(size_t sources, size_t targets) {
    REALMT_CHECK(sources == targets, "score_batch: {} sources and {} targets (one target a source)",
                 sources, targets);
  }
  // Called without the GIL.
  // Encodes pair i with encode(i, source ids, target ids) outside the GIL, then scores them all.
  template <typename Encode>
  py::list score_pairs(size_t sources, size_t targets, const search::ScoreOptions& options,
                       Encode&& encode) {
    check_pairs(sources, targets);
    std::vector<search::PairScore> scores;
    {
      py::gil_scoped_release unlocked;
      std::vector<std::vector<int32_t>> src(sources), tgt(sources);
      for (size_t i = 0; i < sources; ++i) encode(i, src[i], tgt[i]);
      scores = score_ids(src, tgt, options);
    }
    return score_results(scores);
  }
  std::vector<search::PairScore> score_ids(const std::vector<std::vector<int32_t>>& src,
                                           const std::vector<std::vector<int32_t>>& tgt,
                                           const search::ScoreOptions& options) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (threads_ > 0) set_num_threads(threads_);
    return search::Scorer(translator_->models()).score(src, tgt, options);
  }
  static py::list score_results(const std::vector<search::PairScore>& scores) {
    py::list out;
    for (const auto& s : scores) out.append(py::make_tuple(s.log_prob, s.score, s.token_log_probs));
    return out;
  }

  std::vector<int32_t> to_ids(const Pieces& pieces) const {
    std::vector<int32_t> ids;
    for (const auto& p : pieces) ids.push_back(translator_->vocab().id_of(p));
    return ids;
  }
  // Target pieces: the same table as the source unless the model has its own target table (a
  // converted model), whose pieces are looked up by name (unknown: unk).
  std::vector<int32_t> to_target_ids(const Pieces& pieces) {
    const data::Vocab& v = translator_->vocab();
    if (!v.has_tables()) return to_ids(pieces);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (target_ids_.empty())
      for (int32_t id = 0; id < v.target_size(); ++id) target_ids_.emplace(v.piece(id), id);
    std::vector<int32_t> ids;
    for (const auto& p : pieces) {
      const auto it = target_ids_.find(p);
      ids.push_back(it != target_ids_.end() ? it->second : v.ids().unk);
    }
    return ids;
  }

  // Per source: (error, skipped, [(text, pieces, score, log_prob, token_log_probs, alignment)]).
  py::list results(const std::vector<search::LineTranslation>& out) const {
    py::list list;
    for (const auto& r : out) {
      py::list hyps;
      for (const auto& h : r.hypotheses) {
        std::vector<std::string> pieces;
        for (int32_t id : h.hyp.tokens) pieces.push_back(translator_->vocab().piece(id));
        hyps.append(py::make_tuple(h.text, pieces, h.hyp.score, h.hyp.log_prob,
                                   h.hyp.token_log_probs, h.hyp.alignment));
      }
      list.append(py::make_tuple(r.error, r.skipped, hyps));
    }
    return list;
  }

  std::vector<std::string> models_, vocabs_;
  int threads_ = 0;
  std::unique_ptr<search::Translator> translator_;
  std::mutex mutex_;  // one decoding call at a time (docs/python.md: several Python threads)
  std::unordered_map<std::string, int32_t>
      target_ids_;  // target pieces of a converted model, when asked
};

void add_translate_options(py::module_& m) {
  using O = search::TranslateOptions;
  py::class_<O>(m, "TranslateOptions", "realmt-translate's options (search/decode_options.h)")
      .def(py::init<>())
      .def_readwrite("beam_size", &O::beam_size)
      .def_property(
          "beam_mode", [](const O& o) { return std::string(enum_name(o.beam_mode)); },
          [](O& o, const std::string& name) {
            o.beam_mode = parse_enum<search::BeamMode>(name, "beam_mode");
          })
      .def_readwrite("normalize", &O::normalize)
      .def_readwrite("word_penalty", &O::word_penalty)
      .def_readwrite("max_length_factor", &O::max_length_factor)
      .def_readwrite("max_length", &O::max_length)
      .def_readwrite("max_length_crop", &O::max_length_crop)
      .def_readwrite("repeat_guard", &O::repeat_guard)
      .def_readwrite("allow_unk", &O::allow_unk)
      .def_readwrite("alignment", &O::alignment)
      .def_readwrite("target_language", &O::target_language)
      .def_readwrite("mini_batch_words", &O::mini_batch_words)
      .def_readwrite("maxi_batch", &O::maxi_batch)
      .def_property(
          "mini_batch", [](const O& o) { return o.model.mini_batch; },
          [](O& o, int64_t n) { o.model.mini_batch = n; })
      .def_property(
          "weights", [](const O& o) { return o.model.weights; },
          [](O& o, std::vector<double> w) { o.model.weights = std::move(w); });
  using S = search::ScoreOptions;
  py::class_<S>(m, "ScoreOptions", "realmt-score's scoring options (search/scorer.h)")
      .def(py::init<>())
      .def_readwrite("normalize", &S::normalize)
      .def_readwrite("word_penalty", &S::word_penalty)
      .def_readwrite("weights", &S::weights)
      .def_readwrite("mini_batch", &S::mini_batch);
}

}  // namespace

void add_translator(py::module_& m) {
  add_translate_options(m);
  py::class_<PyTranslator>(m, "Translator")
      .def(py::init<const std::vector<std::string>&, const std::vector<std::string>&,
                    const std::string&, const std::string&, int, const std::vector<std::string>&>(),
           py::arg("models"), py::arg("vocabs"), py::arg("device"), py::arg("compute_type"),
           py::arg("threads"), py::arg("shortlist"))
      .def("translate_text", &PyTranslator::translate_text)
      .def("translate_tokens", &PyTranslator::translate_tokens)
      .def("score_text", &PyTranslator::score_text)
      .def("score_tokens", &PyTranslator::score_tokens)
      .def("pieces", &PyTranslator::pieces);
}

}  // namespace realmt::python
