// Typed checkpoint metadata (models/checkpoint_record.h): the model files' record written and
// read by one field table, the texts older files hold, and the one vocabulary-table reader's
// errors (the file and the field named, never a JSON library exception).
#include "models/checkpoint_record.h"

#include "../common/record_table.h"
#include "models/safetensors.h"
#include "test_util.h"

namespace realmt::models::test {
namespace {

ModelMetadata every_field_set() {
  return {.config = "# model\ndim-emb: 8\n",
          .vocab = "spm-fnv1a64:24:a8cd993044799c45",
          .updates = 1234,
          .averaged = 3,
          .vocab_table = VocabTable{"<pad>", "▁été", "a\"b\\c", ""},
          .vocab_table_target = VocabTable{"</s>", "x"},
          .converted_from = "hf:Helsinki-NLP/opus-mt-en-fr"};
}

TEST(ModelMetadataRecord, TheFieldTableCoversEveryMember) {
  EXPECT_EQ(realmt::testing::record_table_holes<ModelMetadata>(), "");
}

TEST(ModelMetadataRecord, EveryFieldSurvivesARoundTrip) {
  const ModelMetadata m = every_field_set();
  const Metadata text = model_metadata_text(m);
  EXPECT_EQ(text.size(), 7u);  // one key a field: no two fields share a key
  EXPECT_EQ(read_model_metadata(text, "m.safetensors"), m);
}

TEST(ModelMetadataRecord, WritesTheTextsOlderFilesHold) {
  // What realmt-train, realmt-convert and realmt-average wrote before the record: the keys and
  // their texts are the format, so files written by earlier versions read the same.
  const Metadata want = {{"realmt.config", "# model\ndim-emb: 8\n"},
                         {"realmt.vocab", "spm-fnv1a64:24:a8cd993044799c45"},
                         {"realmt.updates", "1234"},
                         {"realmt.averaged", "3"},
                         {"realmt.vocab-table", R"(["<pad>","▁été","a\"b\\c",""])"},
                         {"realmt.vocab-table-target", R"(["</s>","x"])"},
                         {"realmt.converted-from", "hf:Helsinki-NLP/opus-mt-en-fr"}};
  EXPECT_EQ(model_metadata_text(every_field_set()), want);
  // Fields left unset write no key.
  ModelMetadata config_only;
  config_only.config = "c";
  EXPECT_EQ(model_metadata_text(config_only), (Metadata{{"realmt.config", "c"}}));
}

TEST(ModelMetadataRecord, AFileWithoutTheConfigIsNamedWithTheKey) {
  TempDir dir;
  const std::string path = dir.file("foreign.safetensors");
  save_checkpoint(path, {{"w", Tensor::zeros({2})}}, {{"realmt.vocab", "v"}});
  expect_error([&] { read_model_metadata(load_safetensors_header(path).metadata, path); },
               {path + ": model metadata lacks 'realmt.config'", "not a realmt model checkpoint"});
}

TEST(ModelMetadataRecord, DamagedNumbersAreNamed) {
  Metadata m = model_metadata_text(every_field_set());
  m["realmt.updates"] = "12x";
  expect_error([&] { read_model_metadata(m, "m.st"); },
               {"m.st: model metadata field 'realmt.updates' is '12x', not a valid number"});
  m["realmt.updates"] = "-2";
  expect_error([&] { read_model_metadata(m, "m.st"); },
               {"m.st: model metadata field 'realmt.updates' is -2"});
}

TEST(VocabTableReader, ReadsTheTableOrNothing) {
  const Metadata m = model_metadata_text(every_field_set());
  EXPECT_EQ(read_vocab_table(m, kVocabTableKey, "m.st"), every_field_set().vocab_table);
  EXPECT_EQ(read_vocab_table({}, kVocabTableKey, "m.st"), std::nullopt);
}

// Every malformed table is a realmt::Error naming the file and the field (expect_error fails on
// any other exception, e.g. the JSON library's).
TEST(VocabTableReader, MalformedTablesNameTheFileAndTheField) {
  auto table = [](const std::string& text) {
    return [text] {
      read_vocab_table({{kVocabTableKey, text}}, kVocabTableKey, "conv.safetensors");
    };
  };
  expect_error(table(R"(["a", "b")"),
               {"conv.safetensors: metadata field 'realmt.vocab-table' is not JSON"});
  expect_error(table(""), {"conv.safetensors: metadata field 'realmt.vocab-table' is not JSON"});
  expect_error(table(R"({"a": 1})"), {"conv.safetensors: metadata field 'realmt.vocab-table' holds "
                                      "a JSON object; it must be a JSON array"});
  expect_error(table(R"("a")"), {"field 'realmt.vocab-table' holds a JSON string"});
  expect_error(table(R"(["a", "b", 7])"), {"conv.safetensors: metadata field 'realmt.vocab-table' "
                                           "holds a number at id 2 where a piece"});
  expect_error(table(R"(["a", null])"), {"holds a null at id 1"});
  expect_error(
      [] {
        read_vocab_table({{kVocabTargetTableKey, "[["}}, kVocabTargetTableKey, "t.st");
      },
      {"t.st: metadata field 'realmt.vocab-table-target' is not JSON"});
}

}  // namespace
}  // namespace realmt::models::test
