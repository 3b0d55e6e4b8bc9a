#include "data/marian_vocab.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "core/error.h"
#include "core/log.h"
#include "data/line_reader.h"

namespace realmt::data {

bool is_word_list_path(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".yml" || ext == ".yaml" || ext == ".json";
}

std::vector<std::string> split_tokens(std::string_view text) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < text.size()) {
    const size_t end = std::min(text.find(' ', i), text.size());
    if (end > i) tokens.emplace_back(text.substr(i, end - i));
    i = end + 1;
  }
  return tokens;
}

std::vector<std::string> read_word_list(const std::string& path) {
  REALMT_CHECK(std::filesystem::is_regular_file(path),
               "vocab not found: {}; realmt-train creates a missing word-list vocabulary from the "
               "train-sets",
               path);
  YAML::Node y;
  try {
    y = YAML::LoadFile(path);  // JSON is YAML too
  } catch (const YAML::Exception& e) {
    REALMT_FAIL("vocab {}: not a YAML or JSON map of piece: id: {}", path, e.what());
  }
  REALMT_CHECK(y.IsMap() && y.size() > 0, "vocab {}: a YAML or JSON map of piece: id is needed",
               path);
  std::vector<std::string> table(y.size());
  std::vector<bool> seen(y.size(), false);
  for (const auto& kv : y) {
    const std::string piece = kv.first.as<std::string>();
    int64_t id = -1;
    try {
      id = kv.second.as<int64_t>();
    } catch (const YAML::Exception&) {
      REALMT_FAIL("vocab {}: the id of '{}' is not an integer", path, piece);
    }
    REALMT_CHECK(
        id >= 0 && id < static_cast<int64_t>(table.size()) && !seen[static_cast<size_t>(id)],
        "vocab {}: ids must be 0..{} and each once; '{}' has {}", path, table.size() - 1, piece,
        id);
    seen[static_cast<size_t>(id)] = true;
    table[static_cast<size_t>(id)] = piece;
  }
  return table;
}

namespace {

// Tokens of the files by falling count; equal counts keep the order they were first seen in.
std::vector<std::string> tokens_by_count(const std::vector<std::string>& inputs) {
  std::unordered_map<std::string, std::pair<int64_t, int64_t>>
      seen;  // token -> (count, first seen)
  std::string line;
  for (const std::string& file : inputs) {
    LineReader reader(file);
    while (reader.next(line))
      for (std::string& t : split_tokens(line)) {
        if (t == "</s>" || t == "<unk>") continue;
        auto [it, fresh] = seen.try_emplace(std::move(t), 0, static_cast<int64_t>(seen.size()));
        ++it->second.first;
      }
  }
  std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> v(seen.begin(), seen.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second.first != b.second.first ? a.second.first > b.second.first
                                            : a.second.second < b.second.second;
  });
  std::vector<std::string> out;
  out.reserve(v.size());
  for (auto& p : v) out.push_back(std::move(p.first));
  return out;
}

}  // namespace

std::string word_list_yaml(const std::vector<std::string>& inputs, int64_t max_size, int64_t* ids) {
  std::vector<std::string> pieces = {"</s>", "<unk>"};
  for (std::string& t : tokens_by_count(inputs)) {
    if (max_size > 0 && static_cast<int64_t>(pieces.size()) >= max_size) break;
    pieces.push_back(std::move(t));
  }
  YAML::Emitter e;
  e << YAML::BeginMap;
  for (size_t i = 0; i < pieces.size(); ++i) e << YAML::Key << pieces[i] << YAML::Value << i;
  e << YAML::EndMap;
  if (ids) *ids = static_cast<int64_t>(pieces.size());
  return std::string(e.c_str()) + "\n";
}

int64_t create_word_list(const std::vector<std::string>& inputs, const std::string& output,
                         int64_t max_size) {
  REALMT_CHECK(!inputs.empty(), "vocab {}: no text files to create it from", output);
  int64_t ids = 0;
  const std::string yaml = word_list_yaml(inputs, max_size, &ids);
  const std::string tmp = output + ".tmp";
  {
    std::ofstream out(tmp);
    REALMT_CHECK(out.good(), "vocab: cannot write {}", tmp);
    out << yaml;
    out.flush();
    REALMT_CHECK(out.good(), "vocab: writing {} failed (disk full?)", tmp);
  }
  std::filesystem::rename(tmp, output);
  return ids;
}

}  // namespace realmt::data
