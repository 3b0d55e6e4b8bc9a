// BLEU exactly as sacreBLEU 2.6.0 computes it (its metrics/bleu.py).
// Statistics per segment: [hyp_len, ref_len, correct_1..N, total_1..N].
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/enum_names.h"
#include "metrics/metric.h"
#include "metrics/moses_bleu.h"
#include "metrics/tokenizer.h"

namespace realmt::metrics {

enum class Smoothing { kExp, kFloor, kAddK, kNone };
// In sacreBLEU's order of its --smooth-method choices (its error message lists them so).
constexpr auto enum_names(Smoothing) {
  return std::to_array<EnumName<Smoothing>>({{Smoothing::kNone, "none"},
                                             {Smoothing::kFloor, "floor"},
                                             {Smoothing::kAddK, "add-k"},
                                             {Smoothing::kExp, "exp"}});
}

// "exp", "floor", "add-k", "none"; another name is an error naming them.
Smoothing parse_smoothing(const std::string& name);

struct BleuOptions {
  TokenizerKind tokenizer = TokenizerKind::k13a;
  bool lowercase = false;
  Smoothing smoothing = Smoothing::kExp;
  std::optional<double> smooth_value;  // floor: default 0.1; add-k: default 1; ignored otherwise
  bool effective_order = false;        // the CLI forces it on in sentence-level mode
  int max_ngram_order = 4;             // API only; not in the signature
  // Set: the papers' Moses pipeline tokenizes instead of `tokenizer` (moses_bleu.h).
  std::shared_ptr<const MosesBleuTokenizer> moses{};
};

// The tokenizer sacreBLEU picks when none is given, from the target language: zh for Chinese,
// 13a otherwise; ja and ko (its MeCab tokenizers) are an error that ends with `give_one` (how the
// caller's user names a tokenizer: "pass -tok explicitly").
std::string default_bleu_tokenizer(const std::string& target_language, const std::string& give_one);

// The result of compute_bleu, with the pieces the verbose string shows.
struct BleuDetail {
  double score = 0.0;
  std::vector<double> precisions;
  double bp = 0.0;
  long long sys_len = 0;
  long long ref_len = 0;
  // The n-gram counts as sacreBLEU's BLEUScore keeps them: add-k smoothing has added k to the
  // orders from 2 up to the first order without n-grams.
  std::vector<double> counts, totals;
  std::string verbose() const;
};

// sacreBLEU's BLEU.compute_bleu on double-precision statistics.
BleuDetail compute_bleu(std::vector<double> correct, std::vector<double> total, long long sys_len,
                        long long ref_len, Smoothing smoothing, std::optional<double> smooth_value,
                        bool effective_order);

class Bleu final : public Metric {
 public:
  explicit Bleu(BleuOptions options);
  std::string name() const override { return "BLEU"; }
  std::string key() const override { return "BLEU"; }
  size_t num_stats() const override {
    return 2 + 2 * static_cast<size_t>(options_.max_ngram_order);
  }
  void set_references(const std::vector<std::vector<std::string>>& refs) override;
  CorpusStats corpus_stats(const std::vector<std::string>& hyps, int threads) const override;
  Score score_from_sums(const std::vector<double>& sums) const override;
  // The same with its pieces (precisions, brevity penalty, lengths).
  BleuDetail detail_from_sums(const std::vector<double>& sums) const;
  PyNum bootstrap_score(const std::vector<float>& sums) const override;
  Signature signature() const override;

  // Lower-case (optional), rstrip, tokenize: the string whose split() gives the tokens.
  std::string preprocess(const std::string& line) const;

 private:
  BleuOptions options_;
  size_t nrefs_ = 0;
  // The references' tokens, stored per worker of set_references: token bytes back to back,
  // token j spanning [ends[j], ends[j + 1]), and each token's token_hash.
  struct TokenStore {
    std::string bytes;
    std::vector<uint32_t> ends{0};
    std::vector<uint64_t> hashes;
  };
  struct TokenRange {
    uint32_t store, first, count;
  };
  std::vector<TokenStore> ref_stores_;
  std::vector<TokenRange> ref_tokens_;  // [segment * nrefs_ + reference]
};

}  // namespace realmt::metrics
