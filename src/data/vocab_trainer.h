// Trains a joint SentencePiece vocabulary with libsentencepiece. The model gets realmt's fixed
// special ids (vocab.h: pad=0 unk=1 bos=2 eos=3), so Vocab loads it without complaint, or
// Marian's (eos=0 unk=1, no bos nor pad: Vocab adds those two).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace realmt::data {

struct VocabTrainOptions {
  std::vector<std::string> inputs;   // text files (plain or gzip), one sentence a line; for a
                                     // joint vocabulary pass both sides
  std::string output;                // the model file to write (.spm); a .vocab text listing of
                                     // piece<TAB>score is written beside it
  int vocab_size = 32000;            // pieces, special ones included
  double character_coverage = 1.0;   // share of characters the pieces must cover (0.9995 for CJK)
  int64_t sampled_lines = 10000000;  // lines sampled for training (0: all lines); a uniform sample
  std::vector<std::string> user_symbols;   // extra symbols always kept whole (e.g. <sep>)
  std::string model_type = "unigram";      // unigram | bpe | char | word
  std::string normalization = "nmt_nfkc";  // nmt_nfkc | nfkc | nmt_nfkc_cf | nfkc_cf | identity
  int threads = 2;
  uint32_t seed = 1;        // sampling is reproducible for the same seed and inputs
  bool marian_ids = false;  // Marian's special ids (</s> 0, <unk> 1) instead of realmt's
  bool listing = true;      // also write the .vocab listing
  // Further SentencePiece trainer flags (spm_train's names), applied last: they win.
  std::vector<std::pair<std::string, std::string>> flags;
};

// "--key=value --flag ..." (Marian's sentencepiece-options) as flags; a bare --flag is "true".
// Fails naming `option` on a word that is not a --flag.
std::vector<std::pair<std::string, std::string>> parse_spm_flags(const std::string& text,
                                                                 const std::string& option);

struct VocabTrainReport {
  int64_t lines_read = 0;     // lines offered to the trainer (empty lines are not offered)
  int64_t empty_lines = 0;    // empty lines skipped
  int64_t lines_sampled = 0;  // lines the trainer got: at most sampled_lines of lines_read
  int32_t vocab_size = 0;     // pieces in the written model
};

VocabTrainReport train_vocab(const VocabTrainOptions& options);

}  // namespace realmt::data
