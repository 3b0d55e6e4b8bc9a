#include "training/vocab_setup.h"

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/log.h"
#include "data/marian_vocab.h"
#include "data/vocab_trainer.h"

namespace realmt::training {

namespace {

constexpr int64_t kMarianSpmSize = 32000;  // Marian's size of a SentencePiece model it trains

// The training files of the sides whose vocabulary is `path` (both for a joint one).
std::vector<std::string> files_for(const TrainOptions& o, const std::string& path) {
  REALMT_CHECK(o.train_sets.size() == 2,
               "vocabs {} does not exist: realmt-train creates it from separate source and target "
               "train-sets files, "
               "not from one TSV file; create it with realmt-data vocab",
               path);
  std::vector<std::string> files;
  for (size_t side = 0; side < 2; ++side)
    if (o.vocabs[std::min(side, o.vocabs.size() - 1)] == path) files.push_back(o.train_sets[side]);
  return files;
}

// The dim-vocabs value of the first side whose vocabulary is `path` (0: not given).
int64_t size_for(const TrainOptions& o, const std::string& path) {
  const size_t side = o.vocabs.size() == 2 && o.vocabs[0] != path ? 1 : 0;
  const std::vector<int64_t>& sizes = o.created_vocab_sizes;
  if (sizes.empty()) return 0;
  return sizes[std::min(side, sizes.size() - 1)];
}

void train_spm(const TrainOptions& o, const std::string& path,
               const std::vector<std::string>& files) {
  data::VocabTrainOptions t;
  t.inputs = files;
  t.output = path;
  const int64_t size = size_for(o, path);
  t.vocab_size = static_cast<int>(size > 0 ? size : kMarianSpmSize);
  if (size <= 0)
    log::info("[data] vocabulary size not given (dim-vocabs): {} pieces, as Marian", t.vocab_size);
  t.sampled_lines = o.sentencepiece_max_lines;
  t.character_coverage = 0.9995;  // SentencePiece's default, which Marian keeps
  t.marian_ids = true;
  t.listing = false;  // Marian leaves only the model
  t.seed = static_cast<uint32_t>(o.seed);
  t.flags = data::parse_spm_flags(o.sentencepiece_options, "sentencepiece-options");
  log::info("[data] training SentencePiece vocabulary {} on {} line(s) at most of {}", path,
            o.sentencepiece_max_lines,
            files.front() + (files.size() > 1 ? ", " + files.back() : ""));
  data::train_vocab(t);
}

}  // namespace

std::vector<std::string> create_missing_vocabs(const TrainOptions& o) {
  std::vector<std::string> created;
  for (const std::string& path : o.vocabs) {
    if (std::filesystem::exists(path) ||
        std::find(created.begin(), created.end(), path) != created.end())
      continue;
    const std::vector<std::string> files = files_for(o, path);
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
    if (data::is_word_list_path(path)) {
      const int64_t ids = data::create_word_list(files, path, size_for(o, path));
      log::info("[data] created vocabulary {} ({} ids) from {}", path, ids, files.front());
    } else {
      REALMT_CHECK(path.ends_with(".spm"),
                   "vocab not found: {}; realmt-train creates a missing vocabulary named .spm "
                   "(SentencePiece) or "
                   ".yml (word list), as Marian; train one with realmt-data vocab",
                   path);
      train_spm(o, path, files);
    }
    created.push_back(path);
  }
  return created;
}

}  // namespace realmt::training
