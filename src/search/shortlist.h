// Marian's lexical shortlist: the decoder's output layer scores only a batch's candidate target
// ids instead of the whole vocabulary (realmt-translate --shortlist FILE [first [best
// [threshold]]], realmt-server, the Python Translator's shortlist=).
//
// The file is Marian's text shortlist (lex.s2t, what `realmt-data shortlist` writes): one entry a
// line, "TARGET SOURCE PROB", the pieces as the vocabulary writes them, PROB = p(target | source).
// Entries whose source or target is "NULL" are skipped (Marian's); so are entries with a piece the
// vocabulary lacks (counted, logged once at the debug level). A line without three fields, or
// whose PROB is not a finite number, is an error naming the file and the line.
//
// Candidates of a batch (sorted ascending, no duplicates):
//   - the target ids 0 .. first-1 (Marian's vocabularies are ordered by frequency; for a
//     SentencePiece model the first ids are the special pieces and the most probable pieces),
//   - eos and unk (always),
//   - for each source id in the batch, its `best` most probable targets among the entries with
//     PROB >= threshold (ties: the lower target id),
//   - with a joint vocabulary (one piece table for both sides), the source ids themselves, as
//     Marian does with a shared vocabulary (copied pieces: names, numbers, placeholders).
// Log-probabilities are then normalised over the candidates only (Marian's): decoding with a
// shortlist holding every target id is decoding without one.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace realmt::data {
class Vocab;
}

namespace realmt::search {

struct ShortlistOptions {
  std::string path;
  int64_t first = 100;     // target ids 0 .. first-1 are always candidates
  int64_t best = 100;      // most probable targets a source id adds
  double threshold = 0.0;  // entries with a smaller probability add nothing
  // Marian's list: FILE [first [best [threshold]]]. Throws a UsageError naming the field.
  static ShortlistOptions parse(const std::vector<std::string>& values);
};

class Shortlist {
 public:
  // Reads the file against the vocabulary (source pieces by the source side, target pieces by
  // the target side).
  static std::shared_ptr<const Shortlist> load(const ShortlistOptions& options,
                                               const data::Vocab& vocab);
  // The same from text (`name` for messages).
  static std::shared_ptr<const Shortlist> parse(const std::string& text, const std::string& name,
                                                const ShortlistOptions& options,
                                                const data::Vocab& vocab);

  // The batch's candidate target ids, sorted (see above). sources: subword ids without eos.
  std::vector<int32_t> candidates(const std::vector<std::vector<int32_t>>& sources) const;

  // Batches candidates() served and their candidates in all (for the average a log line gives).
  struct Usage {
    int64_t batches = 0, candidates = 0;
  };
  Usage usage() const { return {batches_.load(), candidate_sum_.load()}; }

  int64_t entries() const { return entries_; }  // entries kept (after best and threshold)
  int64_t unknown_entries() const {
    return unknown_;
  }  // entries skipped: a piece the vocabulary lacks
  int32_t target_vocab() const { return target_vocab_; }
  const ShortlistOptions& options() const { return options_; }

 private:
  ShortlistOptions options_;
  std::vector<std::vector<int32_t>> targets_;  // per source id: its kept targets
  std::vector<int32_t> always_;                // first ids, eos, unk
  int32_t target_vocab_ = 0;
  bool copy_source_ = false;
  int64_t entries_ = 0, unknown_ = 0;
  mutable std::atomic<int64_t> batches_{0}, candidate_sum_{0};
};

}  // namespace realmt::search
