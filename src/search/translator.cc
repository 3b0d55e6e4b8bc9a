#include "search/translator.h"

#include <algorithm>
#include <numeric>

#include "core/allocator.h"
#include "search/model_loader.h"
#include "search/vocab_checks.h"

namespace realmt::search {

Translator::Translator(std::vector<std::unique_ptr<models::Transformer>> models, data::Vocab vocab)
    : models_(std::move(models)), vocab_(std::move(vocab)) {
  REALMT_CHECK(!models_.empty(), "models: give at least one checkpoint");
  search_ = std::make_unique<BeamSearch>(this->models());
}

Translator Translator::load(const std::vector<std::string>& model_paths,
                            const std::string& vocab_path, Device device, Quantize quantize) {
  return load(model_paths, std::vector<std::string>{vocab_path}, device, quantize);
}

Translator Translator::load(const std::vector<std::string>& model_paths,
                            const std::vector<std::string>& vocab_paths, Device device,
                            Quantize quantize) {
  REALMT_CHECK(!model_paths.empty(), "models: give at least one checkpoint (.safetensors)");
  std::vector<std::unique_ptr<models::Transformer>> models;
  models.push_back(load_model(model_paths[0], device, quantize));
  data::Vocab vocab = load_vocab(vocab_paths, model_paths[0], models[0]->config());
  check_vocab_matches(vocab, *models[0], model_paths[0]);
  for (size_t i = 1; i < model_paths.size(); ++i) {
    models.push_back(load_model(model_paths[i], device, quantize));
    check_vocab_matches(vocab, *models.back(), model_paths[i]);
  }
  return Translator(std::move(models), std::move(vocab));
}

void Translator::use_shortlist(std::shared_ptr<const Shortlist> shortlist) {
  shortlist_ = std::move(shortlist);
  search_ = std::make_unique<BeamSearch>(models(), shortlist_);
}

std::shared_ptr<const Shortlist> load_shortlist(const std::vector<std::string>& spec,
                                                const Translator& translator) {
  if (spec.empty()) return nullptr;
  const ShortlistOptions options = ShortlistOptions::parse(spec);
  REALMT_USAGE_CHECK(translator.models()[0]->device().is_cpu(),
                     "shortlist: decoding with a lexical shortlist runs on the CPU only; leave out "
                     "--devices (or give "
                     "cpu) to use {}",
                     options.path);
  return Shortlist::load(options, translator.vocab());
}

std::string shortlist_usage(const Shortlist& shortlist) {
  const Shortlist::Usage u = shortlist.usage();
  const int64_t average = u.batches > 0 ? (u.candidates + u.batches / 2) / u.batches : 0;
  return format("shortlist: {} batches, {} candidate target ids a batch on average (of {})",
                u.batches, average, shortlist.target_vocab());
}

std::vector<const models::Transformer*> Translator::models() const {
  std::vector<const models::Transformer*> out;
  for (const auto& m : models_) out.push_back(m.get());
  return out;
}

std::vector<std::vector<Hypothesis>> Translator::translate(
    const std::vector<std::vector<int32_t>>& sources, const SearchOptions& options) const {
  // An empty source (an empty or blank line) translates to the empty text: searching from a
  // lone eos would make the model invent a sentence.
  std::vector<std::vector<int32_t>> nonempty;
  std::vector<size_t> where;
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].empty()) continue;
    nonempty.push_back(sources[i]);
    where.push_back(i);
  }
  std::vector<std::vector<Hypothesis>> out(sources.size());
  if (nonempty.size() == sources.size()) {
    out = search_->search(sources, options);
  } else if (!nonempty.empty()) {
    auto hyps = search_->search(nonempty, options);
    for (size_t j = 0; j < where.size(); ++j) out[where[j]] = std::move(hyps[j]);
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i].empty()) continue;
    Hypothesis h;
    h.model_log_probs.assign(models_.size(), 0.0);
    out[i].push_back(std::move(h));
  }
  return out;
}

std::vector<std::vector<size_t>> make_batches(const std::vector<size_t>& lengths,
                                              const BatchingOptions& b) {
  REALMT_CHECK(b.mini_batch >= 0 && b.mini_batch_words >= 0,
               "mini-batch and mini-batch-words must be >= 0");
  std::vector<size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return lengths[x] < lengths[y]; });
  std::vector<std::vector<size_t>> batches;
  std::vector<size_t> cur;
  size_t longest = 0;
  for (size_t i : order) {
    const size_t len = std::max(longest, lengths[i] + 1);  // + eos
    const bool full_sentences =
        b.mini_batch > 0 && static_cast<int64_t>(cur.size()) >= b.mini_batch;
    const bool full_words =
        b.mini_batch_words > 0 && static_cast<int64_t>((cur.size() + 1) * len) > b.mini_batch_words;
    if (!cur.empty() && (full_sentences || full_words)) {
      batches.push_back(std::move(cur));
      cur.clear();
      longest = 0;
    }
    cur.push_back(i);
    longest = std::max(longest, lengths[i] + 1);
  }
  if (!cur.empty()) batches.push_back(std::move(cur));
  return batches;
}

std::vector<LineTranslation> Translator::translate_lines(const std::vector<std::string>& lines,
                                                         const SearchOptions& options,
                                                         const BatchingOptions& batching) const {
  std::vector<std::vector<int32_t>> ids;
  ids.reserve(lines.size());
  for (const std::string& line : lines) ids.push_back(vocab_.encode(line));
  return translate_ids(std::move(ids), options, batching);
}

std::vector<LineTranslation> Translator::translate_ids(std::vector<std::vector<int32_t>> ids,
                                                       const SearchOptions& options,
                                                       const BatchingOptions& batching) const {
  std::vector<LineTranslation> out(ids.size());
  std::vector<size_t> lengths, line_of;  // of the sources that are decoded
  const size_t limit = static_cast<size_t>(batching.max_length);
  for (size_t i = 0; i < ids.size(); ++i) {
    std::vector<int32_t>& encoded = ids[i];
    if (limit > 0 && encoded.size() + 1 > limit) {  // Marian counts the eos
      if (!batching.max_length_crop) {
        out[i].error = format(
            "{} subwords (eos counted), more than max-length {}; not translated "
            "(max-length-crop crops it)",
            encoded.size() + 1, limit);
        out[i].skipped = true;
        continue;
      }
      encoded.resize(limit - 1);
    }
    lengths.push_back(encoded.size());
    line_of.push_back(i);
  }
  for (const auto& batch : make_batches(lengths, batching)) {
    std::vector<std::vector<int32_t>> sources;
    for (size_t k : batch) sources.push_back(std::move(ids[line_of[k]]));
    auto hyps = translate(sources, options);
    // The batch's tensors are free now: on the CPU the memory goes back to the system, so the
    // peak is the largest batch's, not the sum of every shape the cache has seen.
    if (models_[0]->device().is_cpu()) release_host_memory();
    for (size_t j = 0; j < batch.size(); ++j) {
      LineTranslation& line = out[line_of[batch[j]]];
      if (hyps[j].empty()) line.error = kNoFiniteTranslation;
      for (Hypothesis& h : hyps[j]) {
        std::string text = vocab_.decode(h.tokens);
        line.hypotheses.push_back({std::move(text), std::move(h)});
      }
    }
  }
  return out;
}

}  // namespace realmt::search
