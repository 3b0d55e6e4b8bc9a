#include "data/vocab.h"

#include <sentencepiece_processor.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "core/error.h"
#include "data/marian_vocab.h"

namespace realmt::data {

// A converted model's id tables (from_tables): pieces by id and ids by piece, a side each (the
// target's point at the source's when one table serves both), and the target side's model.
struct Vocab::Tables {
  std::vector<std::string> source, target;
  std::unordered_map<std::string, int32_t> source_ids, target_ids;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> target_sp;
  std::string target_path;
  TableSpecialIds ids;
  bool joint = true;
};

// A word list's pieces by model id and ids by piece.
struct Vocab::Words {
  std::vector<std::string> pieces;
  std::unordered_map<std::string, int32_t> ids;
};

namespace {

std::unique_ptr<sentencepiece::SentencePieceProcessor> load_spm(const std::string& path) {
  REALMT_CHECK(std::filesystem::is_regular_file(path), "vocab not found: {}", path);
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = sp->Load(path);
  REALMT_CHECK(status.ok(),
               "vocab {} is not a SentencePiece model (.spm or .model) (SentencePiece says: {})",
               path, status.ToString());
  return sp;
}

std::unordered_map<std::string, int32_t> index_of(const std::vector<std::string>& table) {
  std::unordered_map<std::string, int32_t> ids;
  for (size_t i = 0; i < table.size(); ++i)
    ids.emplace(table[i], static_cast<int32_t>(i));  // first id wins
  return ids;
}

constexpr const char* kSpaces = " \t\n\v\f\r";
constexpr const char* kRolePieces[4] = {kPadPiece, kUnkPiece, kBosPiece, kEosPiece};

// ">>fra<<" when `text` starts with a target-language tag: ">>" up to the first "<<" (Hugging
// Face's remove_language_code); empty otherwise.
std::string_view leading_language_tag(std::string_view text) {
  if (!text.starts_with(">>")) return {};
  const size_t end = text.find("<<", 2);
  return end == std::string_view::npos ? std::string_view{} : text.substr(0, end + 2);
}

bool is_language_tag(std::string_view piece) {
  return piece.size() >= 4 && piece.starts_with(">>") && piece.ends_with("<<");
}

// The end of Hugging Face's convert_tokens_to_string: every U+2581 (left by pieces the target
// model lacks, which SentencePiece writes as they are) becomes a space, and the ends are stripped.
std::string marks_to_spaces(const std::string& text) {
  static const std::string kMark = "\xe2\x96\x81";  // U+2581 in UTF-8
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const bool mark = text.compare(i, kMark.size(), kMark) == 0;
    out += mark ? ' ' : text[i];
    i += mark ? kMark.size() : 1;
  }
  const size_t first = out.find_first_not_of(kSpaces);
  if (first == std::string::npos) return "";
  return out.substr(first, out.find_last_not_of(kSpaces) - first + 1);
}

}  // namespace

std::string with_language_tag(std::string_view tag, std::string_view line) {
  if (tag.empty() || line.find_first_not_of(kSpaces) == std::string_view::npos)
    return std::string(line);
  return std::string(tag) + " " + std::string(line);
}

std::vector<std::string> language_tag_codes(const std::vector<std::string>& tags) {
  std::vector<std::string> codes;
  for (const std::string& t : tags)
    if (is_language_tag(t) && t.size() > 4) codes.push_back(t.substr(2, t.size() - 4));
  return codes;
}

Vocab Vocab::from_tables(const std::string& source_spm, const std::string& target_spm,
                         std::vector<std::string> source_table,
                         std::vector<std::string> target_table, const TableSpecialIds& ids) {
  Vocab v;
  v.path_ = source_spm;
  v.sp_ = load_spm(source_spm);
  auto t = std::make_unique<Tables>();
  t->target_path = target_spm;
  t->target_sp = target_spm == source_spm ? nullptr : load_spm(target_spm);
  t->joint = target_table.empty();
  t->source = std::move(source_table);
  t->target = t->joint ? t->source : std::move(target_table);
  t->source_ids = index_of(t->source);
  t->target_ids = t->joint ? t->source_ids : index_of(t->target);
  t->ids = ids;
  const int32_t smallest = static_cast<int32_t>(std::min(t->source.size(), t->target.size()));
  for (int32_t id : {ids.pad, ids.unk, ids.eos, ids.decoder_start})
    REALMT_CHECK(id >= 0 && id < smallest,
                 "vocab tables of {} and {} pieces: special id {} outside them", t->source.size(),
                 t->target.size(), id);
  v.tables_ = std::move(t);
  return v;
}

TableSpecialIds Vocab::ids() const {
  return tables_ ? tables_->ids : TableSpecialIds{kPadId, kUnkId, kEosId, kBosId};
}

int32_t Vocab::target_size() const {
  if (target_) return target_->size();
  return tables_ ? static_cast<int32_t>(tables_->target.size()) : size();
}

Vocab::Vocab(const std::string& path) : path_(path) {
  REALMT_CHECK(std::filesystem::is_regular_file(path),
               "vocab not found: {}; train one with realmt-data vocab (realmt-train trains a "
               "missing .spm and "
               "creates a missing .yml from the train-sets)",
               path);
  if (is_word_list_path(path)) {
    words_ = std::make_unique<Words>();
    words_->pieces = read_word_list(path);
    words_->ids = index_of(words_->pieces);
  } else {
    sp_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
    const auto status = sp_->Load(path);
    REALMT_CHECK(status.ok(),
                 "vocab {} is not a SentencePiece model (.spm or .model) nor a word list (.yml, "
                 ".yaml, .json), which "
                 "realmt needs (SentencePiece says: {})",
                 path, status.ToString());
  }
  map_roles();
}

Vocab Vocab::pair(const std::string& source, const std::string& target) {
  Vocab v(source);
  if (target != source) v.target_ = std::make_unique<Vocab>(target);
  return v;
}

void Vocab::map_roles() {
  // realmt ids 0..3 are the roles pad, unk, bos, eos; then the model's other pieces in order.
  const int32_t pieces = model_size();
  int32_t roles[4] = {-1, -1, -1, -1};
  if (sp_) {
    const int32_t ids[4] = {sp_->pad_id(), sp_->unk_id(), sp_->bos_id(), sp_->eos_id()};
    std::copy(ids, ids + 4, roles);
  } else {
    for (int32_t r = 0; r < 4; ++r) roles[r] = model_id(kRolePieces[r]).value_or(-1);
  }
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

int32_t Vocab::model_size() const {
  return sp_ ? sp_->GetPieceSize() : static_cast<int32_t>(words_->pieces.size());
}

std::string Vocab::model_piece(int32_t m) const {
  return sp_ ? sp_->IdToPiece(m) : words_->pieces[static_cast<size_t>(m)];
}

std::optional<int32_t> Vocab::model_id(std::string_view piece) const {
  if (words_) {
    const auto it = words_->ids.find(std::string(piece));
    if (it == words_->ids.end()) return std::nullopt;
    return it->second;
  }
  const int m = sp_->PieceToId(piece);
  if (sp_->IdToPiece(m) != piece)
    return std::nullopt;  // PieceToId gives unk's id for a piece the model lacks
  return m;
}

std::string Vocab::special_ids() const {
  if (tables_) {
    const TableSpecialIds& i = tables_->ids;
    return format("pad={} unk={} eos={} decoder-start={}", i.pad, i.unk, i.eos, i.decoder_start);
  }
  const char* names[4] = {"pad", "unk", "bos", "eos"};
  std::string out;
  for (int r = 0; r < 4; ++r)
    out += format("{}{}={}", r ? " " : "", names[r],
                  to_model_[r] < 0 ? "added" : std::to_string(to_model_[r]));
  return out;
}

Vocab::~Vocab() = default;
Vocab::Vocab(Vocab&&) noexcept = default;
Vocab& Vocab::operator=(Vocab&&) noexcept = default;

void Vocab::encode(std::string_view text, std::vector<int32_t>& ids) const {
  ids.clear();
  const std::string_view tag = leading_language_tag(text);
  if (const std::optional<int32_t> id = tag.empty() ? std::nullopt : source_piece_id(tag)) {
    ids.push_back(*id);
    text.remove_prefix(tag.size());
  }
  append_text_ids(text, ids);
}

void Vocab::append_text_ids(std::string_view text, std::vector<int32_t>& ids) const {
  if (tables_) {
    // As Marian and Hugging Face: pieces, then the table's id of each (unk when it has none).
    for (const std::string& p : encode_pieces(text)) {
      const auto it = tables_->source_ids.find(p);
      ids.push_back(it == tables_->source_ids.end() ? tables_->ids.unk : it->second);
    }
    return;
  }
  if (words_) {
    // Pre-segmented text, as Marian's default vocabulary: a token the list lacks is unk.
    for (const std::string& t : split_tokens(text)) {
      const std::optional<int32_t> m = model_id(t);
      ids.push_back(m ? from_model_[static_cast<size_t>(*m)] : kUnkId);
    }
    return;
  }
  std::vector<int> out;
  const auto status = sp_->Encode(text, &out);
  REALMT_CHECK(status.ok(), "cannot encode text with {}: {}", path_, status.ToString());
  for (int m : out) ids.push_back(from_model_[static_cast<size_t>(m)]);
}

std::optional<int32_t> Vocab::source_piece_id(std::string_view piece) const {
  if (tables_) {
    const auto it = tables_->source_ids.find(std::string(piece));
    if (it == tables_->source_ids.end()) return std::nullopt;
    return it->second;
  }
  const std::optional<int32_t> m = model_id(piece);
  if (!m) return std::nullopt;
  return from_model_[static_cast<size_t>(*m)];
}

std::vector<std::string> Vocab::language_tags() const {
  std::vector<std::string> tags;
  if (tables_) {
    for (const std::string& p : tables_->source)
      if (is_language_tag(p)) tags.push_back(p);
    return tags;
  }
  for (int32_t m = 0; m < model_size(); ++m)
    if (is_language_tag(model_piece(m))) tags.push_back(model_piece(m));
  return tags;
}

std::string Vocab::language_tag(std::string_view language) const {
  const std::string tag = ">>" + std::string(language) + "<<";
  if (source_piece_id(tag)) return tag;
  const std::vector<std::string> tags = language_tags();
  REALMT_CHECK(!tags.empty(),
               "target language {}: the vocabulary {} has no tag {} nor any other >>xx<< tag "
               "(not a multilingual model: leave the target language out)",
               language, path_, tag);
  std::string some;
  for (size_t i = 0; i < std::min<size_t>(tags.size(), 8); ++i) some += (i ? " " : "") + tags[i];
  REALMT_FAIL("target language {}: the vocabulary {} has no tag {}; it has {} tags: {}{}", language,
              path_, tag, tags.size(), some, tags.size() > 8 ? " ..." : "");
}

std::vector<int32_t> Vocab::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  encode(text, ids);
  return ids;
}

std::vector<int32_t> Vocab::encode_target(std::string_view text) const {
  if (target_) return target_->encode(text);
  if (!tables_ || (tables_->joint && !tables_->target_sp)) return encode(text);
  std::vector<std::string> pieces;
  const auto& sp = tables_->target_sp ? *tables_->target_sp : *sp_;
  const auto status = sp.Encode(text, &pieces);
  REALMT_CHECK(status.ok(), "cannot encode text with {}: {}", tables_->target_path,
               status.ToString());
  std::vector<int32_t> ids(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    const auto it = tables_->target_ids.find(pieces[i]);
    ids[i] = it == tables_->target_ids.end() ? tables_->ids.unk : it->second;
  }
  return ids;
}

void Vocab::encode_target(std::string_view text, std::vector<int32_t>& ids) const {
  if (target_) return target_->encode(text, ids);
  if (!tables_) return encode(text, ids);
  ids = encode_target(text);
}

std::vector<std::string> Vocab::encode_pieces(std::string_view text) const {
  if (words_) return split_tokens(text);
  std::vector<std::string> pieces;
  const auto status = sp_->Encode(text, &pieces);
  REALMT_CHECK(status.ok(), "cannot encode text with {}: {}", path_, status.ToString());
  return pieces;
}

std::string Vocab::decode_tables(const std::vector<int32_t>& ids) const {
  const TableSpecialIds& i = tables_->ids;
  std::vector<std::string> pieces;
  for (int32_t id : ids) {
    if (id == i.eos) break;
    // Hugging Face's decode(..., skip_special_tokens=True) (its pipelines' and model cards'
    // choice) drops unk too.
    if (id == i.pad || id == i.decoder_start || id == i.unk) continue;
    pieces.push_back(piece(id));
  }
  std::string text;
  const auto& sp = tables_->target_sp ? *tables_->target_sp : *sp_;
  const auto status = sp.Decode(pieces, &text);
  REALMT_CHECK(status.ok(), "cannot decode pieces with {}: {}", tables_->target_path,
               status.ToString());
  return marks_to_spaces(text);
}

std::string Vocab::decode_words(const std::vector<int32_t>& ids) const {
  std::string text;
  for (int32_t id : ids) {
    if (id == kEosId) break;
    if (id == kPadId || id == kBosId) continue;
    text += (text.empty() ? "" : " ") + piece(id);
  }
  return text;
}

std::string Vocab::decode(const std::vector<int32_t>& ids) const {
  if (tables_) return decode_tables(ids);
  if (target_) return target_->decode(ids);
  if (words_) return decode_words(ids);
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

int32_t Vocab::size() const {
  return tables_ ? static_cast<int32_t>(tables_->source.size())
                 : static_cast<int32_t>(to_model_.size());
}

std::string Vocab::fingerprint() const {
  if (target_) {
    return fingerprint_side() + " " + target_->fingerprint();
  }
  return fingerprint_side();
}

std::string Vocab::fingerprint_side() const {
  // FNV-1a, 64 bits, over every piece (with its terminating NUL) and the bits of its score.
  uint64_t h = 14695981039346656037ull;
  auto mix = [&](const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  char hex[17];
  if (tables_) {
    // The tables' pieces in id order (the target table after a NUL when there are two).
    for (const std::string& p : tables_->source) mix(p.c_str(), p.size() + 1);
    if (!tables_->joint) {
      mix("", 1);
      for (const std::string& p : tables_->target) mix(p.c_str(), p.size() + 1);
    }
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return "table-fnv1a64:" + std::to_string(size()) + ":" + hex;
  }
  // In realmt's id order (roles the model lacks: their piece and score 0).
  for (int32_t id = 0; id < size(); ++id) {
    const int32_t m = to_model_[static_cast<size_t>(id)];
    const std::string p = m < 0 ? kRolePieces[id] : model_piece(m);  // this side's, also in a pair
    mix(p.c_str(), p.size() + 1);
    const float score = m < 0 || !sp_ ? 0.0f : sp_->GetScore(m);
    mix(&score, sizeof score);
  }
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return (sp_ ? "spm-fnv1a64:" : "words-fnv1a64:") + std::to_string(size()) + ":" + hex;
}

std::string Vocab::piece(int32_t id) const {
  if (tables_) {
    REALMT_CHECK(id >= 0 && id < target_size(), "id {} is outside the vocabulary of {} (size {})",
                 id, path_, target_size());
    return tables_->target[static_cast<size_t>(id)];
  }
  if (target_) return target_->piece(id);
  return side_piece(id);
}

std::string Vocab::source_piece(int32_t id) const {
  if (tables_) {
    REALMT_CHECK(id >= 0 && id < static_cast<int32_t>(tables_->source.size()),
                 "id {} is outside the source table of {} (size {})", id, path_,
                 tables_->source.size());
    return tables_->source[static_cast<size_t>(id)];
  }
  return side_piece(id);
}

bool Vocab::joint() const { return !target_ && (!tables_ || tables_->joint); }

std::string Vocab::side_piece(int32_t id) const {
  REALMT_CHECK(id >= 0 && id < size(), "id {} is outside vocab {} (size {})", id, path_, size());
  const int32_t m = to_model_[static_cast<size_t>(id)];
  return m < 0 ? kRolePieces[id] : model_piece(m);
}

int32_t Vocab::id_of(std::string_view piece) const {
  if (tables_) {
    const auto it = tables_->source_ids.find(std::string(piece));
    return it == tables_->source_ids.end() ? tables_->ids.unk : it->second;
  }
  // An added role is found by realmt's name for it (the model cannot know it).
  for (int32_t r = 0; r < 4; ++r)
    if (to_model_[static_cast<size_t>(r)] < 0 && piece == kRolePieces[r]) return r;
  if (words_) {
    const std::optional<int32_t> m = model_id(piece);
    return m ? from_model_[static_cast<size_t>(*m)] : kUnkId;
  }
  return from_model_[static_cast<size_t>(sp_->PieceToId(piece))];
}

}  // namespace realmt::data
