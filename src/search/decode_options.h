// Options of realmt-translate, realmt-score and realmt-server (Marian's names, short options and
// implicit values), parsed once into typed structs. Marian decoder options realmt accepts without
// effect or refuses with a reason are declared in decode_options_marian.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/enum_names.h"
#include "search/model_loader.h"
#include "search/search_options.h"
#include "search/translator.h"

namespace realmt {
class OptionSet;
}

namespace realmt::search {

// "stdin"/"-" and "stdout"/"-": Marian's names for the standard streams.
bool is_stdin(const std::string& path);
bool is_stdout(const std::string& path);

// Marian's maxi-batch-sort: accepted for its configs; realmt sorts each maxi-batch by source
// length either way (the output keeps the input order).
enum class MaxiBatchSort { kSrc, kNone };
constexpr auto enum_names(MaxiBatchSort) {
  return std::to_array<EnumName<MaxiBatchSort>>(
      {{MaxiBatchSort::kSrc, "src"}, {MaxiBatchSort::kNone, "none"}});
}

// What the decoding programs share: the models, the vocabulary, the hardware.
struct ModelOptions {
  std::vector<std::string> models;  // checkpoints (.safetensors); several: an ensemble
  std::vector<std::string> vocabs;  // the joint SentencePiece model (.spm); once a side is accepted
  std::vector<double> weights;      // one per model (empty: all 1)
  std::vector<std::string> devices;     // empty or cpu: the CPU; "0" or "cuda:0": that GPU
  int cpu_threads = 0;                  // 0: all cores
  int64_t mini_batch = 32;              // sentences a batch
  Quantize quantize = Quantize::kNone;  // int8: int8 weights and GEMMs on the CPU (faster, smaller)
  std::string gemm_type = "float32";    // Marian's --gemm-type, mapped onto quantize (MarianGemm)
  // Also declares Marian's decoder options that have no effect in realmt or that it refuses.
  void declare(OptionSet& o, const std::string& group);
  void validate() const;
  const std::string& vocab() const { return vocabs[0]; }
};

// Marian's alignment values: none, hard, soft, or a threshold in (0, 1] (1 = hard: each target
// token's most attended source token; below 1: every pair attended above the threshold).
struct AlignmentChoice {
  AlignmentKind kind = AlignmentKind::kNone;
  double threshold = 1.0;
};
AlignmentChoice parse_alignment_choice(const std::string& text);

// What Marian's --gemm-type means here: float32 is quantize none; every 8-bit type (int8*,
// intgemm8*, packed8*: the CPU-specific and tuned variants too) is quantize int8; 16-bit types
// (int16, intgemm16*, packed16) decode in f32, with a log line, since realmt has no 16-bit GEMM.
// Another value is a UsageError naming Marian's types.
enum class MarianGemm { kFloat32, kInt8, kInt16 };
MarianGemm parse_marian_gemm(const std::string& type);
// Binds --gemm-type/-g to model->gemm_type: a preset sets quantize int8 for the 8-bit types
// (quantize given in a file or on the command line wins), so --dump-config shows it; logs the
// 16-bit case.
void declare_marian_gemm_type(OptionSet& o, ModelOptions* model);

// Declares Marian's decoder options that realmt accepts without effect or refuses, for
// realmt-translate, realmt-score or realmt-server (decode_options_marian.cc).
enum class DecoderProgram { kTranslate, kScore, kServer };
void declare_marian_decoder_options(OptionSet& o, DecoderProgram program);

// Binds Marian's --shortlist FILE [first [best [threshold]]] (search/shortlist.h) to `shortlist`
// (realmt-translate and realmt-server); checked by validate_shortlist.
void declare_shortlist(OptionSet& o, std::vector<std::string>* shortlist);
void validate_shortlist(const std::vector<std::string>& shortlist);

struct TranslateOptions {
  ModelOptions model;
  std::vector<std::string> input{
      "stdin"};                   // text to translate, one sentence a line (stdin or -: standard
                                  // input; gzip read); Marian's list holds one file here
  std::string output = "stdout";  // translations in input order (stdout or -: standard output)
  int beam_size = 4;
  BeamMode beam_mode =
      BeamMode::kShrink;   // shrink (Marian) | full (Hugging Face generate, fairseq)
  double normalize = 0.0;  // alone: 1
  double word_penalty = 0.0;
  double max_length_factor = 3.0;
  int64_t max_length = 1000;     // source subwords (eos counted) at most, as Marian
  bool max_length_crop = false;  // crop longer sources instead of leaving their line empty
  int repeat_guard = 4;          // SearchOptions::repeat_ngram (0: off)
  LengthRule length_rule = LengthRule::kRealmt;  // SearchOptions::length_rule
  bool n_best = false;             // print the whole beam as a Moses-style n-best list
  std::string alignment = "none";  // none | hard | soft | threshold; alone: 1 (hard)
  bool allow_unk = false;
  bool no_spm_decode = false;   // print subword pieces instead of text
  std::string target_language;  // "fra": ">>fra<<" before every non-blank line; "": none
  int64_t mini_batch_words = 0;
  int64_t maxi_batch = 10;  // mini-batches read and length-sorted together
  MaxiBatchSort maxi_batch_sort = MaxiBatchSort::kSrc;  // realmt sorts by length either way
  bool quiet = false;              // nothing on stderr (the log file still gets the lines)
  bool quiet_translation = false;  // no "Best translation" lines
  std::vector<std::string>
      shortlist;  // FILE [first [best [threshold]]]; empty: the whole vocabulary
  void declare(OptionSet& o);
  void validate() const;
  SearchOptions search() const;
  BatchingOptions batching() const;
  AlignmentChoice alignment_choice() const { return parse_alignment_choice(alignment); }
  const std::string& input_path() const { return input[0]; }  // "stdin" and "-" mean standard input
};

struct ScoreCliOptions {
  ModelOptions model;
  std::vector<std::string> train_sets;   // source file and target file (or n-best list)
  std::string output = "stdout";         // stdout or -: standard output
  bool n_best = false;                   // the target file is an n-best list to rescore
  std::string n_best_feature = "Score";  // feature name appended to each n-best line
  // "" (per-sentence scores) | cross-entropy, ce-mean (per sentence) | ce-mean-words | ce-sum |
  // perplexity; alone: cross-entropy (Marian's)
  std::string summary;
  bool quiet = false;        // nothing on stderr
  bool word_scores = false;  // also print every target token's log-probability
  double normalize = 0.0;
  double word_penalty = 0.0;
  int64_t max_length =
      1000;  // subwords a side (eos counted); a longer pair is an error naming its line
  void declare(OptionSet& o);
  void validate() const;
};

}  // namespace realmt::search
