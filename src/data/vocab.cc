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
  const std::string ext = std::filesystem::path(path).extension().string();
  REALMT_CHECK(ext != ".yml" && ext != ".yaml" && ext != ".json",
               "vocab {}: a Marian {} vocabulary (word list); realmt needs a SentencePiece model (.spm or .model): "
               "train one with realmt-data vocab, or use the .spm the Marian model was trained with",
               path, ext);
  const auto status = sp_->Load(path);
  REALMT_CHECK(status.ok(),
               "vocab {} is not a SentencePiece model (.spm or .model), which realmt needs (SentencePiece says: {})",
               path, status.ToString());
  // realmt ids 0..3 are the roles pad, unk, bos, eos; then the model's other pieces in order.
  const int32_t pieces = sp_->GetPieceSize();
  const int32_t roles[4] = {sp_->pad_id(), sp_->unk_id(), sp_->bos_id(), sp_->eos_id()};
  from_model_.assign(static_cast<size_t>(pieces), -1);
  for (int32_t r = 0; r < 4; ++r) {
    const int32_t m = roles[r] >= 0 && roles[r] < pieces ? roles[r] : -1;
    to_model_.push_back(m);
    if (m >= 0) from_model_[static_cast<size_t>(m)] = r;
  }
  for (int32_t m = 0; m < pieces; ++m) {
    if (from_model_[static_cast<size_t>(m)] >= 0) continue;
    from_model_[static_cast<size_t>(m)] = static_cast<int32_t>(to_model_.size());
    to_model_.push_back(m);
  }
}

std::string Vocab::special_ids() const {
  const char* names[4] = {"pad", "unk", "bos", "eos"};
  std::string out;
  for (int r = 0; r < 4; ++r)
    out += format("{}{}={}", r ? " " : "", names[r], to_model_[r] < 0 ? "added" : std::to_string(to_model_[r]));
  return out;
}

Vocab::~Vocab() = default;
Vocab::Vocab(Vocab&&) noexcept = default;
Vocab& Vocab::operator=(Vocab&&) noexcept = default;

void Vocab::encode(std::string_view text, std::vector<int32_t>& ids) const {
  std::vector<int> out;
  const auto status = sp_->Encode(text, &out);
  REALMT_CHECK(status.ok(), "cannot encode text with {}: {}", path_, status.ToString());
  ids.resize(out.size());
  for (size_t i = 0; i < out.size(); ++i) ids[i] = from_model_[static_cast<size_t>(out[i])];
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
    kept.push_back(to_model_[static_cast<size_t>(id)]);
  }
  std::string text;
  const auto status = sp_->Decode(kept, &text);
  REALMT_CHECK(status.ok(), "cannot decode ids with {}: {}", path_, status.ToString());
  return text;
}

int32_t Vocab::size() const { return static_cast<int32_t>(to_model_.size()); }

std::string Vocab::fingerprint() const {
  // FNV-1a, 64 bits, over every piece (with its terminating NUL) and the bits of its score.
  uint64_t h = 14695981039346656037ull;
  auto mix = [&](const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  // In realmt's id order (roles the model lacks: their piece and score 0).
  for (int32_t id = 0; id < size(); ++id) {
    const std::string p = piece(id);
    mix(p.c_str(), p.size() + 1);
    const int32_t m = to_model_[static_cast<size_t>(id)];
    const float score = m < 0 ? 0.0f : sp_->GetScore(m);
    mix(&score, sizeof score);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return "spm-fnv1a64:" + std::to_string(size()) + ":" + hex;
}

std::string Vocab::piece(int32_t id) const {
  REALMT_CHECK(id >= 0 && id < size(), "id {} is outside vocab {} (size {})", id, path_, size());
  static const char* kRolePieces[4] = {kPadPiece, kUnkPiece, kBosPiece, kEosPiece};
  const int32_t m = to_model_[static_cast<size_t>(id)];
  return m < 0 ? kRolePieces[id] : sp_->IdToPiece(m);
}

int32_t Vocab::id_of(std::string_view piece) const {
  // An added role is found by realmt's name for it (the model cannot know it).
  static const char* kRolePieces[4] = {kPadPiece, kUnkPiece, kBosPiece, kEosPiece};
  for (int32_t r = 0; r < 4; ++r)
    if (to_model_[static_cast<size_t>(r)] < 0 && piece == kRolePieces[r]) return r;
  return from_model_[static_cast<size_t>(sp_->PieceToId(piece))];
}

}  // namespace realmt::data
