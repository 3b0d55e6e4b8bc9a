// realmt-convert's options and the conversion they ask for (apps/realmt_convert.cc parses them).
//   realmt-convert --from hf opus-mt-en-fr/ -o enfr.realmt
//   realmt-convert --from marian opus.npz --vocabs opus.vocab.yml -o enfr.realmt
//   realmt-convert --from realmt enfr.realmt --to ctranslate2 -o enfr-ct2/ [--vocabs v.spm]
//   realmt-convert --from realmt model.safetensors --to marian -o model.npz --vocabs v.spm
#pragma once

#include <string>
#include <vector>

namespace realmt {
class OptionSet;
}

namespace realmt::convert {

struct ConvertOptions {
  std::vector<std::string> from;  // FORMAT PATH: hf DIR | marian MODEL.npz | realmt CHECKPOINT
  std::string to =
      "realmt";  // realmt (a checkpoint file) | ctranslate2 (a model directory) | marian (.npz)
  std::string output;  // the checkpoint or directory to write
  std::vector<std::string>
      vocabs;  // marian: the .yml vocabularies; realmt-trained -> ctranslate2: the .spm
  int64_t max_positions = 1024;  // ctranslate2: rows of the position tables

  void declare(OptionSet& o);
  void validate() const;
  // "hf", "marian" or "realmt", and the path.
  const std::string& format() const { return from[0]; }
  const std::string& input() const { return from[1]; }
};

// Runs the conversion; returns a one-line summary for the log.
std::string run_conversion(const ConvertOptions& o);

}  // namespace realmt::convert
