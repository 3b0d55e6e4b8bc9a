#include "metrics/spm_tokenizer.h"

#include <sentencepiece_processor.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "metrics/test_sets.h"

namespace realmt::metrics {

SpmModelFile spm_model_file(TokenizerKind kind) {
  // sacreBLEU's SPM_MODELS: the file is the URL's basename under SACREBLEU_DIR/models.
  if (kind == TokenizerKind::kFlores200)
    return {"flores200sacrebleuspm", "https://tinyurl.com/flores200sacrebleuspm"};
  REALMT_CHECK(kind == TokenizerKind::kSpm || kind == TokenizerKind::kFlores101,
               "{} is not a SentencePiece tokenizer", tokenizer_name(kind));
  return {"sacrebleu_tokenizer_spm.model",
          "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model"};
}

SpmTokenizer::SpmTokenizer(const std::string& path, const std::string& url)
    : sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
  REALMT_CHECK(std::filesystem::is_regular_file(path),
               "SentencePiece model {} not found: sacreBLEU downloads it from {}; fetch it with "
               "tools/fetch-sacrebleu-models (or: curl -fL --create-dirs -o {} {})",
               path, url, path, url);
  const auto status = sp_->Load(path);
  REALMT_CHECK(status.ok(), "cannot load the SentencePiece model {}: {}", path, status.ToString());
}

SpmTokenizer::~SpmTokenizer() = default;

void SpmTokenizer::tokenize(std::string_view line, std::string& out) const {
  thread_local std::vector<std::string> pieces;
  pieces.clear();
  const auto status = sp_->Encode(line, &pieces);
  REALMT_CHECK(status.ok(), "SentencePiece encoding failed: {}", status.ToString());
  out.clear();
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i) out += ' ';
    out += pieces[i];
  }
}

const SpmTokenizer& spm_tokenizer(TokenizerKind kind) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<SpmTokenizer>> loaded;  // by path
  const SpmModelFile m = spm_model_file(kind);
  const std::string path = sacrebleu_cache_dir() + "/models/" + m.file;
  std::lock_guard<std::mutex> lock(mutex);
  auto& t = loaded[path];
  if (!t) t = std::make_unique<SpmTokenizer>(path, m.url);
  return *t;
}

}  // namespace realmt::metrics
