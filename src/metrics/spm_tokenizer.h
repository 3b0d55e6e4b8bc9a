// sacreBLEU's SentencePiece tokenizers (tokenizers/tokenizer_spm.py): "
// ".join(EncodeAsPieces(line)) with the model sacreBLEU uses for each, read from $SACREBLEU/models
// (default ~/.sacrebleu/models), where sacreBLEU downloads it: spm and flores101 share
// sacrebleu_tokenizer_spm.model, flores200 reads flores200sacrebleuspm. realmt-bleu downloads
// nothing: a missing model is an error naming the file and the URL (tools/fetch-sacrebleu-models
// fetches them).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "metrics/tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace realmt::metrics {

struct SpmModelFile {
  std::string file;  // basename under CACHE/models
  std::string url;   // where sacreBLEU downloads it from
};
// The model of an spm kind (kSpm, kFlores101, kFlores200).
SpmModelFile spm_model_file(TokenizerKind kind);

class SpmTokenizer {
 public:
  // Loads the model; throws realmt::Error naming the file (and the URL when it is missing).
  explicit SpmTokenizer(const std::string& path, const std::string& url);
  ~SpmTokenizer();
  // The pieces of `line` joined by single spaces (out is overwritten). Thread-safe.
  void tokenize(std::string_view line, std::string& out) const;

 private:
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

// The process's tokenizer for an spm kind, loaded on first use from the cache's models folder.
const SpmTokenizer& spm_tokenizer(TokenizerKind kind);

}  // namespace realmt::metrics
