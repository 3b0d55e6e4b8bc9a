#include "models/checkpoint_record.h"

#include <charconv>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "models/safetensors.h"

namespace realmt::models {

namespace {

template <typename T>
void parse_number(const std::string& text, T& value, const FieldSite& site) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  REALMT_CHECK(ec == std::errc() && end == text.data() + text.size() && !text.empty(),
               "{}: {} field '{}' is '{}', not a valid number; the file is damaged", site.path,
               site.what, site.key, text);
}

}  // namespace

std::string field_text(int64_t value) { return std::to_string(value); }

std::string field_text(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);  // 17 digits: every double reads back exactly
  return text;
}

std::string field_text(const std::string& value) { return value; }

// nlohmann's dump: compact, UTF-8 kept as it is (the bytes realmt-convert has always written).
std::string field_text(const VocabTable& value) { return nlohmann::json(value).dump(); }

void parse_field(const std::string& text, int64_t& value, const FieldSite& site) {
  parse_number(text, value, site);
  REALMT_CHECK(value >= 0, "{}: {} field '{}' is {}, a count must not be negative", site.path,
               site.what, site.key, value);
}

void parse_field(const std::string& text, double& value, const FieldSite& site) {
  parse_number(text, value, site);
}

void parse_field(const std::string& text, std::string& value, const FieldSite&) { value = text; }

void parse_field(const std::string& text, VocabTable& value, const FieldSite& site) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    REALMT_FAIL("{}: {} field '{}' is not JSON ({}); it must be a JSON array of pieces", site.path,
                site.what, site.key, e.what());
  }
  REALMT_CHECK(j.is_array(), "{}: {} field '{}' holds a JSON {}; it must be a JSON array of pieces",
               site.path, site.what, site.key, j.type_name());
  value.clear();
  value.reserve(j.size());
  for (const auto& piece : j) {
    REALMT_CHECK(piece.is_string(),
                 "{}: {} field '{}' holds a {} at id {} where a piece (a string) belongs",
                 site.path, site.what, site.key, piece.type_name(), value.size());
    value.push_back(piece.get<std::string>());
  }
}

std::optional<VocabTable> read_vocab_table(const Metadata& metadata, const std::string& key,
                                           const std::string& path) {
  std::optional<VocabTable> table;
  RecordReader(metadata, path, "metadata", "")(key, table);
  return table;
}

RecordReader::RecordReader(const Metadata& in, std::string path, std::string what,
                           std::string missing_hint)
    : in_(in),
      path_(std::move(path)),
      what_(std::move(what)),
      missing_hint_(std::move(missing_hint)) {}

const std::string& RecordReader::required(const std::string& key) const {
  const auto it = in_.find(key);
  REALMT_CHECK(it != in_.end(), "{}: {} lacks '{}'; {}", path_, what_, key, missing_hint_);
  return it->second;
}

ModelMetadata read_model_metadata(const Metadata& metadata, const std::string& path) {
  return read_record<ModelMetadata>(
      metadata, path, "model metadata",
      "the file is not a realmt model checkpoint (write one with realmt-train, "
      "realmt-init, realmt-average or realmt-convert)");
}

Metadata model_metadata_text(const ModelMetadata& record) {
  Metadata m;
  write_record(record, m);
  return m;
}

ModelConfig read_model_config(const std::string& path) {
  REALMT_CHECK(std::filesystem::exists(existing_checkpoint_file(path)),
               "model not found: {}; train one with realmt-train", path);
  // The header alone: the weights are read (and verified) by load_model.
  const SafetensorsFile f = load_safetensors_header(path);
  check_checkpoint_format(path, f.metadata);
  const auto it = f.metadata.find(kConfigKey);
  REALMT_CHECK(it != f.metadata.end(),
               "{} has no '{}' metadata, so it is not a realmt model checkpoint (write one with "
               "realmt-train, "
               "realmt-init or realmt-average)",
               path, kConfigKey);
  return ModelConfig::from_yaml(it->second, path + " (" + kConfigKey + ")");
}

}  // namespace realmt::models
