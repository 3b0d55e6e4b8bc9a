// BLEU's tokenizers (sacreBLEU's tokenizers/): 13a, intl, zh, char, none, and the SentencePiece
// ones (spm = flores101, flores200: spm_tokenizer.h) with the models sacreBLEU downloads.
// Each maps one line (already lower-cased and rstripped by the caller) to a string whose
// Python split() gives the tokens. Outputs equal sacreBLEU 2.6.0's byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace realmt::metrics {

enum class TokenizerKind { k13a, kIntl, kZh, kChar, kNone, kSpm, kFlores101, kFlores200 };

// "13a", "intl", "zh", "char", "none", "spm", "flores101", "flores200"; throws for anything else
// (names the known ones).
TokenizerKind parse_tokenizer(std::string_view name);
// The signature value ("13a", ...; spm signs as "flores101", as in sacreBLEU).
const char* tokenizer_name(TokenizerKind kind);

// Tokenizes line into out (out is overwritten). scratch is reused working memory.
// With collapse = false the final ' '.join(split()) is skipped: out then has the same split()
// tokens but may keep runs of whitespace (BLEU only splits it, so it saves a pass).
void tokenize(TokenizerKind kind, std::string_view line, std::string& out, std::string& scratch,
              bool collapse = true);

// The 13a "post-tokenizer" R1-R4 followed by whitespace collapsing (shared with zh).
void apply_13a_rules(std::string_view in, std::string& out, std::string& scratch,
                     bool collapse = true);

// The tokens of tokenize(kind, line).split() without building the tokenized string: the token
// bytes are appended back to back to `bytes` and each token's end offset (into `bytes`) to
// `ends`. 13a runs as one fused pass (same tokens as apply_13a_rules + Python split(), byte for
// byte); the other tokenizers tokenize and split. scratch is reused working memory.
void tokenize_to_tokens(TokenizerKind kind, std::string_view line, std::string& bytes,
                        std::vector<uint32_t>& ends, std::string& scratch);

// The zh tokenizer's "Chinese character" test, with the ranges sacreBLEU 2.x really applies: its
// table's two 5-digit escapes read as two characters each, so two ranges differ from the written
// ones.
bool is_zh_split_char(char32_t c);

}  // namespace realmt::metrics
