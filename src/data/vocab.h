// The subword vocabulary: a SentencePiece model (.spm), trained by `realmt-data vocab` or brought
// by the user. Every model realmt uses has these fixed special ids:
//
//   id 0  <pad>   kPadId  padding in batches (never produced by encode)
//   id 1  <unk>   kUnkId  unknown piece
//   id 2  <s>     kBosId  begin of sentence (decoder start symbol)
//   id 3  </s>    kEosId  end of sentence (ends every source and target sequence in a Batch)
//
// A model whose special ids differ (e.g. SentencePiece's default, where pad is disabled and unk=0)
// is refused when loaded, with a message that says how to retrain it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace realmt::data {

inline constexpr int32_t kPadId = 0;
inline constexpr int32_t kUnkId = 1;
inline constexpr int32_t kBosId = 2;
inline constexpr int32_t kEosId = 3;
inline constexpr const char* kPadPiece = "<pad>";
inline constexpr const char* kUnkPiece = "<unk>";
inline constexpr const char* kBosPiece = "<s>";
inline constexpr const char* kEosPiece = "</s>";

class Vocab {
 public:
  // Loads a .spm file; fails with a clear message when it is missing, not a SentencePiece model,
  // or has special ids other than the fixed ones above.
  explicit Vocab(const std::string& path);
  ~Vocab();
  Vocab(Vocab&&) noexcept;
  Vocab& operator=(Vocab&&) noexcept;

  // Subword ids of `text` (no bos, no eos). Thread-safe: may be called from many threads at once.
  std::vector<int32_t> encode(std::string_view text) const;
  void encode(std::string_view text, std::vector<int32_t>& ids) const;
  // Subword pieces of `text` (for inspection and stats).
  std::vector<std::string> encode_pieces(std::string_view text) const;
  // Text of `ids`: pad and bos are skipped, decoding stops at the first eos.
  std::string decode(const std::vector<int32_t>& ids) const;

  int32_t size() const;
  std::string piece(int32_t id) const;
  int32_t id_of(std::string_view piece) const;  // kUnkId when the piece is not in the model
  const std::string& path() const { return path_; }
  // "spm-fnv1a64:<pieces>:<16 hex digits>": a hash of every piece and its score in id order.
  // Equal for the same vocabulary wherever its file lies; checkpoints record it
  // (models/checkpoint.h) so that a model is never used with another vocabulary of its size.
  std::string fingerprint() const;

 private:
  std::string path_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

}  // namespace realmt::data
