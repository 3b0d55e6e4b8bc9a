// realmt-analyze's job: teacher-force a held-out file pair through a model, collect attention
// entropies and cross-layer JSDs (attention_stats.h), and write the tables and picture data:
//   <output>/attention.tsv   one row per (chain, measure, layer, head): count, quartiles, mean,
//                            min, max and the paper's colour class of the median
//   <output>/attention.json  the same rows with a 40-bin histogram each (violin plots)
//   <output>/heatmap.json    with heatmap-sentence: that pair's subword pieces and every
//                            layer's and head's probabilities (tools/plot-attention draws both)
// Colour classes (RealFormer paper, appendix A.4-A.5): entropy median > 4.5 red, 1.5-4.5
// yellow, < 1.5 blue; JSD median < 0.25 blue, 0.25-0.75 yellow, > 0.75 red.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace realmt {
class OptionSet;
}

namespace realmt::analysis {

struct AnalyzeOptions {
  std::vector<std::string> models;      // one checkpoint (.safetensors)
  std::vector<std::string> vocabs;      // its joint SentencePiece vocabulary (once or once a side)
  std::vector<std::string> train_sets;  // held-out source file and target file
  std::string output = "analysis";      // folder for the files above (created)
  int64_t max_sentences = 0;            // the first N pairs (0: all)
  int64_t max_length = 256;             // longer pairs (subwords, eos counted) are skipped
  int64_t mini_batch = 32;              // pairs a forward pass
  int64_t heatmap_sentence = 0;         // 1-based line of the pair to draw (0: none)
  std::vector<std::string> devices;     // empty or cpu: the CPU; 0 or cuda:0: that GPU
  int cpu_threads = 0;                  // 0: all cores
  bool quiet = false;
  void declare(OptionSet& o);
  void validate() const;
};

struct AnalyzeResult {
  int64_t sentences = 0;  // pairs analysed
  int64_t skipped = 0;    // pairs over max-length
};

// Runs the analysis and writes the files; progress and the summary go to `log`.
AnalyzeResult analyze_files(const AnalyzeOptions& options, std::ostream& log);

// The paper's colour class of a median: "red", "yellow" or "blue".
std::string entropy_colour(double median);
std::string jsd_colour(double median);

}  // namespace realmt::analysis
