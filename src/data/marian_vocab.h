// Marian's word-list vocabularies: a YAML or JSON map {piece: id} (.yml, .yaml, .json), as
// marian-vocab writes them and Marian creates them when a --vocabs file of that kind is missing.
// Text read with such a vocabulary is pre-segmented (BPE or words): pieces are the text's
// space-separated tokens (Marian's default vocabulary; --no-spm-encode).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace realmt::data {

// Whether `path` names a word-list vocabulary (by its extension: .yml, .yaml or .json).
bool is_word_list_path(const std::string& path);

// The pieces by id (ids 0..n-1, each once). Fails naming the file when it is missing, not a map or
// its ids are not 0..n-1.
std::vector<std::string> read_word_list(const std::string& path);

// Marian's vocabulary creation (marian-vocab): "</s>" id 0, "<unk>" id 1, then the space-separated
// tokens of `inputs` (plain or gzip; "-" is stdin) by falling frequency (ties in first-seen
// order), at most `max_size` ids in all (0: every token), as YAML.
std::string word_list_yaml(const std::vector<std::string>& inputs, int64_t max_size,
                           int64_t* ids = nullptr);
// The same written to `output` atomically; returns the number of ids.
int64_t create_word_list(const std::vector<std::string>& inputs, const std::string& output,
                         int64_t max_size);

// The space-separated tokens of `text` (empty ones dropped), as Marian splits pre-segmented text.
std::vector<std::string> split_tokens(std::string_view text);

}  // namespace realmt::data
