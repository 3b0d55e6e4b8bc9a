// Typed checkpoint metadata. A record names each of its keys once, in a member template that
// both directions run:
//
//   template <class V> void fields(V& v) {
//     v(kStepKey, updates);               // T: required; reading a file without it fails
//     v("realmt.grad_norm_avg", average);  // std::optional<T>: written when set, read when there
//     v.group(loss_scale);                // std::optional<Record>: there when any of its keys
//                                         //   is, and then all of them are required
//     v.family("realmt.best.", best);     // std::map<std::string, T>: one key a map entry,
//   }                                     //   "<prefix><name>"; read: every key with the prefix
//
// write_record turns a record into metadata and read_record a file's metadata back into one, so a
// key cannot be written one way and read another. A record is an aggregate whose members are all
// in its table (tests/models/checkpoint_record_test.cc checks the table covers every member).
// Field types and their text: int64_t in decimal (a count: negative is refused on read), double
// as "%.17g" (it reads back exactly; "inf"), std::string as it is, VocabTable as a JSON array of
// pieces. The key names and texts are the checkpoint format: changing one breaks older files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/checkpoint.h"
#include "models/model_config.h"

namespace realmt::models {

// A vocabulary's pieces by id: a converted model's id tables (kVocabTableKey).
using VocabTable = std::vector<std::string>;

// Where a field is read from, for errors: "<path>: <what> field '<key>' ...".
struct FieldSite {
  const std::string& path;
  const std::string& what;  // e.g. "training state"
  const std::string& key;
};

std::string field_text(int64_t value);
std::string field_text(double value);
std::string field_text(const std::string& value);
std::string field_text(const VocabTable& value);

// Each throws naming the file, the key and the text when the text is not a valid value.
void parse_field(const std::string& text, int64_t& value, const FieldSite& site);
void parse_field(const std::string& text, double& value, const FieldSite& site);
void parse_field(const std::string& text, std::string& value, const FieldSite& site);
void parse_field(const std::string& text, VocabTable& value, const FieldSite& site);

// The one reader of a vocabulary table: the table under `key` in a checkpoint's metadata, or
// nullopt when the file has none. Malformed text (not JSON, not an array, a piece that is not a
// string) is an error naming `path` and `key`.
std::optional<VocabTable> read_vocab_table(const Metadata& metadata, const std::string& key,
                                           const std::string& path);

class RecordWriter {
 public:
  explicit RecordWriter(Metadata& out) : out_(out) {}
  template <class T>
  void operator()(const std::string& key, const T& value) {
    out_[key] = field_text(value);
  }
  template <class T>
  void operator()(const std::string& key, const std::optional<T>& value) {
    if (value) (*this)(key, *value);
  }
  template <class R>
  void group(std::optional<R>& record) {
    if (record) record->fields(*this);
  }
  template <class T>
  void family(const std::string& prefix, const std::map<std::string, T>& values) {
    for (const auto& [name, value] : values) (*this)(prefix + name, value);
  }

 private:
  Metadata& out_;
};

// Every key a record's table names (a family: its prefix), in table order.
class RecordKeys {
 public:
  template <class T>
  void operator()(const std::string& key, const T&) {
    keys.push_back(key);
  }
  template <class R>
  void group(std::optional<R>&) {
    R record{};
    record.fields(*this);
  }
  template <class T>
  void family(const std::string& prefix, const std::map<std::string, T>&) {
    keys.push_back(prefix);
  }
  std::vector<std::string> keys;
};

class RecordReader {
 public:
  // `what` names the record in errors ("training state"); `missing_hint` follows a missing key's
  // error ("the file is not a realmt-train state").
  RecordReader(const Metadata& in, std::string path, std::string what, std::string missing_hint);
  template <class T>
  void operator()(const std::string& key, T& value) {
    parse_field(required(key), value, {path_, what_, key});
  }
  template <class T>
  void operator()(const std::string& key, std::optional<T>& value) {
    value.reset();
    const auto it = in_.find(key);
    if (it == in_.end()) return;
    parse_field(it->second, value.emplace(), {path_, what_, key});
  }
  template <class R>
  void group(std::optional<R>& record) {
    R read{};
    RecordKeys keys;
    read.fields(keys);
    record.reset();
    for (const std::string& key : keys.keys)
      if (in_.count(key)) {
        read.fields(*this);
        record = std::move(read);
        return;
      }
  }
  template <class T>
  void family(const std::string& prefix, std::map<std::string, T>& values) {
    values.clear();
    for (auto it = in_.lower_bound(prefix); it != in_.end() && it->first.starts_with(prefix); ++it)
      parse_field(it->second, values[it->first.substr(prefix.size())], {path_, what_, it->first});
  }

 private:
  const std::string& required(const std::string& key) const;

  const Metadata& in_;
  std::string path_, what_, missing_hint_;
};

template <class R>
void write_record(const R& record, Metadata& out) {
  RecordWriter w(out);
  R copy = record;  // fields() is one table for both directions, so it takes a mutable record
  copy.fields(w);
}

template <class R>
R read_record(const Metadata& in, const std::string& path, const std::string& what,
              const std::string& missing_hint) {
  R record{};
  RecordReader r(in, path, what, missing_hint);
  record.fields(r);
  return record;
}

// The metadata realmt writes into a model file, beside the tensors (kFormatKey and kChecksumKey
// are added by the save functions). Written by realmt-train, realmt-init, realmt-average and
// realmt-convert; each sets what it knows.
struct ModelMetadata {
  std::string config;                            // kConfigKey: the model config as YAML
  std::optional<std::string> vocab;              // kVocabKey: the vocabulary's fingerprint
  std::optional<int64_t> updates;                // "realmt.updates": realmt-train's update count
  std::optional<int64_t> averaged;               // "realmt.averaged": realmt-average's input count
  std::optional<VocabTable> vocab_table;         // kVocabTableKey: a converted model's source ids
  std::optional<VocabTable> vocab_table_target;  // kVocabTargetTableKey: its target ids
  std::optional<std::string>
      converted_from;  // kConvertedFromKey: where a converted model came from

  template <class V>
  void fields(V& v) {
    v(kConfigKey, config);
    v(kVocabKey, vocab);
    v(kUpdatesKey, updates);
    v(kAveragedKey, averaged);
    v(kVocabTableKey, vocab_table);
    v(kVocabTargetTableKey, vocab_table_target);
    v(kConvertedFromKey, converted_from);
  }
  bool operator==(const ModelMetadata&) const = default;
};

// A model file's metadata as a record; a file without kConfigKey is an error naming it.
ModelMetadata read_model_metadata(const Metadata& metadata, const std::string& path);
Metadata model_metadata_text(const ModelMetadata& record);

// The model config stored in the checkpoint at `path` (its header only; the weights are not read):
// an error naming the file when it is missing, is not a realmt checkpoint or has no config.
ModelConfig read_model_config(const std::string& path);

}  // namespace realmt::models
