#include "search/translator.h"

#include <algorithm>
#include <numeric>

#include "search/model_loader.h"

namespace realmt::search {

Translator::Translator(std::vector<std::unique_ptr<models::Transformer>> models, data::Vocab vocab)
    : models_(std::move(models)), vocab_(std::move(vocab)) {
  REALMT_CHECK(!models_.empty(), "models: give at least one checkpoint");
  search_ = std::make_unique<BeamSearch>(this->models());
}

Translator Translator::load(const std::vector<std::string>& model_paths,
                            const std::string& vocab_path, Device device, Quantize quantize) {
  REALMT_CHECK(!model_paths.empty(), "models: give at least one checkpoint (.safetensors)");
  data::Vocab vocab(vocab_path);
  std::vector<std::unique_ptr<models::Transformer>> models;
  for (const std::string& p : model_paths) {
    models.push_back(load_model(p, device, quantize));
    check_vocab_matches(vocab, *models.back(), p);
  }
  return Translator(std::move(models), std::move(vocab));
}

std::vector<const models::Transformer*> Translator::models() const {
  std::vector<const models::Transformer*> out;
  for (const auto& m : models_) out.push_back(m.get());
  return out;
}

std::vector<std::vector<Hypothesis>> Translator::translate(
    const std::vector<std::vector<int32_t>>& sources, const SearchOptions& options) const {
  return search_->search(sources, options);
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

std::vector<std::vector<TextHypothesis>> Translator::translate_lines(
    const std::vector<std::string>& lines, const SearchOptions& options,
    const BatchingOptions& batching) const {
  std::vector<std::vector<int32_t>> ids(lines.size());
  std::vector<size_t> lengths(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    ids[i] = vocab_.encode(lines[i]);
    lengths[i] = ids[i].size();
  }
  std::vector<std::vector<TextHypothesis>> out(lines.size());
  for (const auto& batch : make_batches(lengths, batching)) {
    std::vector<std::vector<int32_t>> sources;
    for (size_t i : batch) sources.push_back(std::move(ids[i]));
    auto hyps = search_->search(sources, options);
    for (size_t j = 0; j < batch.size(); ++j)
      for (Hypothesis& h : hyps[j]) {
        std::string text = vocab_.decode(h.tokens);
        out[batch[j]].push_back({std::move(text), std::move(h)});
      }
  }
  return out;
}

}  // namespace realmt::search
