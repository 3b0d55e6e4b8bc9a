// The subword vocabulary: a SentencePiece model (.spm), trained by `realmt-data vocab` or
// realmt-train (for a missing --vocabs file) or brought by the user, or a Marian word list (below).
// Inside realmt every vocabulary has these fixed special ids:
//
//   id 0  <pad>   kPadId  padding in batches (never produced by encode)
//   id 1  <unk>   kUnkId  unknown piece
//   id 2  <s>     kBosId  begin of sentence (decoder start symbol)
//   id 3  </s>    kEosId  end of sentence (ends every source and target sequence in a Batch)
//
// Any SentencePiece model is accepted: realmt's ids are mapped from the model's own. Each
// special id takes the model's piece for that role (pad_id, unk_id, bos_id, eos_id); a role the
// model lacks (spm_train's defaults have no pad; Marian's models have neither pad nor bos) is
// added as a symbol of its own that no text encodes to, as Marian adds padding. The model's
// other pieces follow from id 4 in the model's order. A model realmt-data vocab trained
// (pad=0 unk=1 bos=2 eos=3) maps to itself; a model with spm_train's defaults (unk=0 bos=1
// eos=2) gets size() = pieces + 1. The embedding table has size() rows.
//
// Marian's word-list vocabularies (.yml, .yaml, .json: {piece: id}, data/marian_vocab.h) read
// pre-segmented text: the pieces are the text's space-separated tokens (a token the list lacks is
// unk) and decode() joins the pieces with spaces, as Marian's default vocabulary does. Their ids
// are mapped as a SentencePiece model's: the roles by Marian's pieces "<pad>", "<unk>", "<s>",
// "</s>" (a list marian-vocab wrote has </s> 0 and <unk> 1, so pad and bos are added), then the
// other pieces in the list's order.
//
// Marian's --vocabs src tgt with two different files is a pair (Vocab::pair): the source side's
// vocabulary for encode(), the target side's for encode_target(), decode(), piece() and
// target_size(); each side has realmt's special ids.
//
// A converted Marian or Hugging Face model (realmt-convert) brings its own ids instead: an id table
// (Marian's vocab.yml, Hugging Face's vocab.json; one for both sides or one a side) lists the
// model's piece of every id, and its special ids are the model's (models::ModelConfig: eos 0,
// unk 1, pad last). Such a vocabulary (from_tables) segments the input with the source side's
// SentencePiece model, looks the pieces up in the source table (a piece the table lacks is unk,
// as in Marian and Hugging Face), and turns output ids into text through the target table's
// pieces and the target side's SentencePiece model.
//
// As Hugging Face's MarianTokenizer (which also gives Marian's OPUS-MT output):
// - A line that starts with a target-language tag (">>fra<<", the multilingual OPUS-MT models)
//   encodes the tag as one id when the source side has that piece, the rest as before; without
//   the piece the tag is text like any other (Hugging Face would make it unk).
// - A table's decode() drops unk (as decode(..., skip_special_tokens=True)), decodes the pieces
// with
//   the target model (a piece that model lacks comes out as it is written), then writes every
//   U+2581 as a space and strips the ends: a joint vocab.json's piece "▁under▁under" that
//   target.spm lacks gives "under under", not "▁under▁under".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
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

// The special ids of a converted model's tables (its ModelConfig's).
struct TableSpecialIds {
  int32_t pad = 0, unk = 1, eos = 3, decoder_start = 2;
};

class Vocab {
 public:
  // Loads a .spm file or a word list (.yml, .yaml, .json); fails with a clear message when it is
  // missing or not a SentencePiece model.
  explicit Vocab(const std::string& path);
  // One vocabulary a side (see above); equal paths give Vocab(source).
  static Vocab pair(const std::string& source, const std::string& target);
  // A converted model's vocabulary (see above). target_table empty: the source table serves both
  // sides. Fails naming the file when a SentencePiece model cannot be loaded.
  static Vocab from_tables(const std::string& source_spm, const std::string& target_spm,
                           std::vector<std::string> source_table,
                           std::vector<std::string> target_table, const TableSpecialIds& ids);
  ~Vocab();
  Vocab(Vocab&&) noexcept;
  Vocab& operator=(Vocab&&) noexcept;

  // Subword ids of `text` (no bos, no eos). Thread-safe: may be called from many threads at once.
  std::vector<int32_t> encode(std::string_view text) const;
  void encode(std::string_view text, std::vector<int32_t>& ids) const;
  // The same for target-side text (scoring): differs from encode() only with separate tables.
  std::vector<int32_t> encode_target(std::string_view text) const;
  void encode_target(std::string_view text, std::vector<int32_t>& ids) const;
  // Subword pieces of `text` (for inspection and stats).
  std::vector<std::string> encode_pieces(std::string_view text) const;
  // Text of target-side `ids`: pad and bos (the decoder start) are skipped, decoding stops at the
  // first eos.
  std::string decode(const std::vector<int32_t>& ids) const;

  int32_t size() const;         // realmt ids: the model's pieces plus the special roles it lacks
  int32_t target_size() const;  // = size() but with separate tables
  std::string piece(int32_t id) const;         // the target side's piece with separate tables
  std::string source_piece(int32_t id) const;  // the source side's piece (= piece() when joint())
  // One piece table for both sides (not a pair, no separate target table): a source id is the
  // target id of the same piece.
  bool joint() const;
  // The source side's target-language tags (pieces ">>xx<<"), in id order.
  std::vector<std::string> language_tags() const;
  // ">>fra<<" for "fra" when the source side has that piece; fails naming the tag and listing a
  // few the vocabulary has otherwise.
  std::string language_tag(std::string_view language) const;
  int32_t id_of(
      std::string_view piece) const;  // unk when the piece is not in the model (source side)
  bool has_tables() const { return tables_ != nullptr; }
  bool is_pair() const { return target_ != nullptr; }  // a vocabulary a side (pair())
  // The special ids: realmt's (kPadId ...) or the tables'.
  TableSpecialIds ids() const;
  const std::string& path() const { return path_; }
  // "spm-fnv1a64:<pieces>:<16 hex digits>": a hash of every piece and its score in id order
  // ("words-fnv1a64:..." for a word list, "table-fnv1a64:<ids>:<hex>" with tables: a hash of the
  // tables' pieces; a pair: the source's and the target's, a space between).
  // Equal for the same vocabulary wherever its file lies; checkpoints record it
  // (models/checkpoint.h) so that a model is never used with another vocabulary of its size.
  std::string fingerprint() const;
  // The model's own ids of the four roles ("pad=added unk=0 bos=1 eos=2"), for messages.
  std::string special_ids() const;

 private:
  struct Tables;
  struct Words;
  Vocab() = default;
  std::string path_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;  // a SentencePiece model, or
  std::unique_ptr<Words> words_;                               // a word list
  std::unique_ptr<Tables> tables_;
  std::unique_ptr<Vocab> target_;  // a pair's target side
  void map_roles();                // fills to_model_ and from_model_
  int32_t model_size() const;
  std::string model_piece(int32_t m) const;
  std::optional<int32_t> model_id(std::string_view piece) const;  // none: the model lacks the piece
  std::string decode_words(const std::vector<int32_t>& ids) const;
  std::string side_piece(int32_t id) const;  // this side's piece (no tables, not the pair's target)
  std::string fingerprint_side() const;      // this side's fingerprint (without a pair's target)
  std::optional<int32_t> source_piece_id(
      std::string_view piece) const;  // none: the source side lacks it
  void append_text_ids(std::string_view text, std::vector<int32_t>& ids) const;
  std::string decode_tables(const std::vector<int32_t>& ids) const;
  std::vector<int32_t> to_model_;    // realmt id -> model id; -1 for a role the model lacks
  std::vector<int32_t> from_model_;  // model id -> realmt id
};

// `line` with `tag` (language_tag()) and a space in front; a blank line (or an empty tag) is left
// as it is, so that it still translates to the empty text.
std::string with_language_tag(std::string_view tag, std::string_view line);
// The languages of `tags` (">>fra<<" gives "fra"), in their order.
std::vector<std::string> language_tag_codes(const std::vector<std::string>& tags);

}  // namespace realmt::data
