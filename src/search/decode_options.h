// Options of realmt-translate and realmt-score (Marian's names), parsed once into typed structs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/search_options.h"
#include "search/translator.h"

namespace realmt {
class OptionSet;
}

namespace realmt::search {

// What both programs share: the models, the vocabulary, the hardware.
struct ModelOptions {
  std::vector<std::string> models;   // checkpoints (.safetensors); several: an ensemble
  std::vector<std::string> vocabs;   // the joint SentencePiece model (.spm); twice is accepted
  std::vector<double> weights;       // one per model (empty: all 1)
  std::vector<std::string> devices;  // empty: the CPU; "0" or "cuda:0": that GPU
  int cpu_threads = 0;               // 0: all cores
  int64_t mini_batch = 32;           // sentences a batch
  std::string quantize = "none";     // "int8": int8 weights and GEMMs on the CPU (faster, smaller)
  void declare(OptionSet& o, const std::string& group);
  void validate() const;
  const std::string& vocab() const { return vocabs[0]; }
};

struct TranslateOptions {
  ModelOptions model;
  std::string input = "-";   // text to translate, one sentence a line ("-": stdin; gzip read)
  std::string output = "-";  // translations in input order ("-": stdout)
  int beam_size = 4;
  double normalize = 0.0;
  double word_penalty = 0.0;
  double max_length_factor = 3.0;
  int64_t max_length = 1000;
  bool n_best = false;  // print the whole beam as a Moses-style n-best list
  std::string alignment = "none";
  bool allow_unk = false;
  int64_t mini_batch_words = 0;
  int64_t maxi_batch = 10;  // mini-batches read and length-sorted together
  bool quiet = false;       // no progress and summary lines on stderr
  void declare(OptionSet& o);
  void validate() const;
  SearchOptions search() const;
  BatchingOptions batching() const;
};

struct ScoreCliOptions {
  ModelOptions model;
  std::vector<std::string> train_sets;  // source file and target file (or n-best list)
  std::string output = "-";
  bool n_best = false;                   // the target file is an n-best list to rescore
  std::string n_best_feature = "Score";  // feature name appended to each n-best line
  std::string summary;       // "" (per-sentence scores) | perplexity | ce-sum | ce-mean-words
  bool word_scores = false;  // also print every target token's log-probability
  double normalize = 0.0;
  double word_penalty = 0.0;
  void declare(OptionSet& o);
  void validate() const;
};

}  // namespace realmt::search
