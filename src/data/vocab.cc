#include "data/vocab.h"

#include <sentencepiece_processor.h>

#include <cstdio>
#include <filesystem>

#include "core/error.h"

namespace realmt::data {

Vocab::Vocab(const std::string& path)
    : path_(path), sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
  REALMT_CHECK(std::filesystem::is_regular_file(path),
               "vocab not found: {}; train one with realmt-data vocab", path);
  const auto status = sp_->Load(path);
  REALMT_CHECK(status.ok(), "cannot load vocab {} as a SentencePiece model: {}", path,
               status.ToString());
  const int pad = sp_->pad_id(), unk = sp_->unk_id(), bos = sp_->bos_id(), eos = sp_->eos_id();
  REALMT_CHECK(pad == kPadId && unk == kUnkId && bos == kBosId && eos == kEosId,
               "vocab {} has special ids pad={} unk={} bos={} eos={}, but realmt needs pad=0 "
               "unk=1 bos=2 eos=3; train one with realmt-data vocab, or retrain with spm_train "
               "--pad_id=0 --unk_id=1 --bos_id=2 --eos_id=3",
               path, pad, unk, bos, eos);
}

Vocab::~Vocab() = default;
Vocab::Vocab(Vocab&&) noexcept = default;
Vocab& Vocab::operator=(Vocab&&) noexcept = default;

void Vocab::encode(std::string_view text, std::vector<int32_t>& ids) const {
  std::vector<int> out;
  const auto status = sp_->Encode(text, &out);
  REALMT_CHECK(status.ok(), "cannot encode text with {}: {}", path_, status.ToString());
  ids.assign(out.begin(), out.end());
}

std::vector<int32_t> Vocab::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  encode(text, ids);
  return ids;
}

std::vector<std::string> Vocab::encode_pieces(std::string_view text) const {
  std::vector<std::string> pieces;
  const auto status = sp_->Encode(text, &pieces);
  REALMT_CHECK(status.ok(), "cannot encode text with {}: {}", path_, status.ToString());
  return pieces;
}

std::string Vocab::decode(const std::vector<int32_t>& ids) const {
  std::vector<int> kept;
  kept.reserve(ids.size());
  for (int32_t id : ids) {
    if (id == kEosId) break;
    if (id == kPadId || id == kBosId) continue;
    REALMT_CHECK(id >= 0 && id < size(), "id {} is outside vocab {} (size {})", id, path_, size());
    kept.push_back(id);
  }
  std::string text;
  const auto status = sp_->Decode(kept, &text);
  REALMT_CHECK(status.ok(), "cannot decode ids with {}: {}", path_, status.ToString());
  return text;
}

int32_t Vocab::size() const { return sp_->GetPieceSize(); }

std::string Vocab::fingerprint() const {
  // FNV-1a, 64 bits, over every piece (with its terminating NUL) and the bits of its score.
  uint64_t h = 14695981039346656037ull;
  auto mix = [&](const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  for (int32_t id = 0; id < size(); ++id) {
    const std::string& piece = sp_->IdToPiece(id);
    mix(piece.c_str(), piece.size() + 1);
    const float score = sp_->GetScore(id);
    mix(&score, sizeof score);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return "spm-fnv1a64:" + std::to_string(size()) + ":" + hex;
}

std::string Vocab::piece(int32_t id) const {
  REALMT_CHECK(id >= 0 && id < size(), "id {} is outside vocab {} (size {})", id, path_, size());
  return sp_->IdToPiece(id);
}

int32_t Vocab::id_of(std::string_view piece) const { return sp_->PieceToId(piece); }

}  // namespace realmt::data
