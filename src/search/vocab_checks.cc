#include "search/vocab_checks.h"

#include <optional>

#include "models/checkpoint_record.h"
#include "models/safetensors.h"

namespace realmt::search {

data::Vocab load_vocab(const std::vector<std::string>& vocab_paths, const std::string& model_path,
                       const models::ModelConfig& config) {
  REALMT_CHECK(!vocab_paths.empty() && vocab_paths.size() <= 2,
               "vocabs: give the SentencePiece model once, or once a side (source, target); got {}",
               vocab_paths.size());
  const models::Metadata metadata = models::load_safetensors_header(model_path).metadata;
  std::optional<models::VocabTable> source =
      models::read_vocab_table(metadata, models::kVocabTableKey, model_path);
  // A realmt model: its vocabulary, or one a side (checked against the model by
  // check_vocab_matches).
  if (!source || source->empty()) return data::Vocab::pair(vocab_paths.front(), vocab_paths.back());
  std::optional<models::VocabTable> target =
      models::read_vocab_table(metadata, models::kVocabTargetTableKey, model_path);
  const data::TableSpecialIds ids{config.pad_id, config.unk_id, config.eos_id,
                                  config.decoder_start_id};
  return data::Vocab::from_tables(vocab_paths.front(), vocab_paths.back(), std::move(*source),
                                  target ? std::move(*target) : models::VocabTable{}, ids);
}

void check_vocab_matches(const data::Vocab& vocab, const models::Transformer& model,
                         const std::string& model_path) {
  REALMT_CHECK(vocab.target_size() == model.config().target_vocab(),
               "vocabulary {} has {} target pieces but model {} has {}; pass the vocabulary the "
               "model was trained "
               "with",
               vocab.path(), vocab.target_size(), model_path, model.config().target_vocab());
  const data::TableSpecialIds ids = vocab.ids();
  const models::ModelConfig& c = model.config();
  REALMT_CHECK(ids.pad == c.pad_id && ids.unk == c.unk_id && ids.eos == c.eos_id &&
                   ids.decoder_start == c.decoder_start_id,
               "vocabulary {} ({}) and model {} (pad {}, unk {}, eos {}, decoder start {}) have "
               "other special ids; "
               "pass the vocabulary the model was trained with",
               vocab.path(), vocab.special_ids(), model_path, c.pad_id, c.unk_id, c.eos_id,
               c.decoder_start_id);
  REALMT_CHECK(vocab.size() == model.config().vocab_size,
               "vocabulary {} has {} pieces but model {} was trained with {}; pass the .spm the "
               "model was trained with",
               vocab.path(), vocab.size(), model_path, model.config().vocab_size);
  check_vocab_fingerprint(vocab, models::load_safetensors_header(model_path).metadata, model_path);
}

void check_vocab_fingerprint(const data::Vocab& vocab, const models::Metadata& metadata,
                             const std::string& checkpoint_path) {
  const auto it = metadata.find(models::kVocabKey);
  if (it == metadata.end()) return;  // written before fingerprints, or by another tool
  const std::string mine = vocab.fingerprint();
  REALMT_CHECK(it->second == mine,
               "vocabulary {} is not the one {} was trained with (fingerprint {}, the checkpoint "
               "records {}; the sizes may agree, the pieces do not); pass the .spm the model was "
               "trained with",
               vocab.path(), checkpoint_path, mine, it->second);
}

void check_ensemble_vocabularies(const std::vector<const models::Transformer*>& models) {
  const models::ModelConfig& c0 = models[0]->config();
  for (size_t m = 1; m < models.size(); ++m) {
    const models::ModelConfig& c = models[m]->config();
    REALMT_CHECK(c.vocab_size == c0.vocab_size && c.target_vocab() == c0.target_vocab(),
                 "models: ensemble member {} has vocabularies of {} and {} pieces, member 0 has {} "
                 "and {}; an "
                 "ensemble needs shared vocabularies",
                 m, c.vocab_size, c.target_vocab(), c0.vocab_size, c0.target_vocab());
    REALMT_CHECK(c.pad_id == c0.pad_id && c.unk_id == c0.unk_id && c.eos_id == c0.eos_id &&
                     c.decoder_start_id == c0.decoder_start_id,
                 "models: ensemble member {} has other special ids than member 0 (pad, unk, eos, "
                 "decoder start: {} "
                 "{} {} {} against {} {} {} {})",
                 m, c.pad_id, c.unk_id, c.eos_id, c.decoder_start_id, c0.pad_id, c0.unk_id,
                 c0.eos_id, c0.decoder_start_id);
  }
}

}  // namespace realmt::search
