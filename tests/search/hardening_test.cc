// Bad input and bad models at the decoding boundary: empty lines, over-long lines, models whose
// scores are NaN, checkpoints of another vocabulary, damaged or foreign checkpoints for
// averaging. Each gets a clear per-sentence or per-file error, never a crash or a silent result.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "data/vocab_trainer.h"
#include "models/checkpoint.h"
#include "models/safetensors.h"
#include "models/average.h"
#include "search/model_loader.h"
#include "search/translator.h"
#include "tiny_model.h"

namespace realmt::search {
namespace {

namespace fs = std::filesystem;

// A directory of its own (pid: concurrent test processes) with a word vocabulary of 10 pieces
// (4 special + 6 words) and checkpoints of a tiny model of that vocabulary.
class SearchHardening : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("realmt_search_hardening_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    vocab_ = train("words.txt", "cat dog house tree car book\n", "vocab.spm");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string train(const std::string& text_name, const std::string& line,
                    const std::string& spm) const {
    std::ofstream out(path(text_name));
    for (int i = 0; i < 50; ++i) out << line;
    out.close();
    data::VocabTrainOptions o;
    o.inputs = {path(text_name)};
    o.output = path(spm);
    o.vocab_size = 10;
    o.model_type = "word";
    data::train_vocab(o);
    return o.output;
  }
  Translator translator(std::unique_ptr<models::Transformer> model) const {
    std::vector<std::unique_ptr<models::Transformer>> models;
    models.push_back(std::move(model));
    return Translator(std::move(models), data::Vocab(vocab_));
  }
  void save(const models::Transformer& m, const std::string& file,
            models::Metadata extra = {}) const {
    extra[models::kConfigKey] = m.config().to_yaml();
    models::save_parameters(path(file), m.params(), extra);
  }

  fs::path dir_;
  std::string vocab_;
};

template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a realmt::Error";
  return "";
}

#define EXPECT_HAS(haystack, needle)                               \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) \
      << "missing: " << (needle) << "\nin: " << (haystack)

TEST_F(SearchHardening, EmptyLinesTranslateToEmptyTextWithoutASearch) {
  const Translator t = translator(test::tiny_model(3, 10));
  SearchOptions so;
  so.beam_size = 2;
  so.n_best = 2;
  const auto out = t.translate_lines({"", "cat dog", "   ", "tree"}, so, BatchingOptions{});
  ASSERT_EQ(out.size(), 4u);
  for (size_t i : {size_t(0), size_t(2)}) {
    EXPECT_EQ(out[i].error, "");
    ASSERT_EQ(out[i].hypotheses.size(), 1u) << i;
    EXPECT_EQ(out[i].hypotheses[0].text, "");
    EXPECT_TRUE(out[i].hypotheses[0].hyp.tokens.empty());
    EXPECT_EQ(out[i].hypotheses[0].hyp.score, 0.0);  // no model score: nothing was searched
    EXPECT_EQ(out[i].hypotheses[0].hyp.model_log_probs, std::vector<double>{0.0});
  }
  for (size_t i : {size_t(1), size_t(3)}) {
    EXPECT_EQ(out[i].error, "");
    EXPECT_EQ(out[i].hypotheses.size(), 2u) << i;
    EXPECT_LT(out[i].hypotheses[0].hyp.score, 0.0);
  }
}

TEST_F(SearchHardening, ModelWithNaNScoresGivesAnErrorPerSentenceNotACrash) {
  auto model = test::tiny_model(3, 10);
  const Tensor& flat = model->params().values().flat();
  flat.copy_from(
      Tensor::full(flat.shape(), std::numeric_limits<double>::quiet_NaN(), flat.dtype()));
  const Translator t = translator(std::move(model));
  const auto out =
      t.translate_lines({"cat dog", "", "tree car book"}, SearchOptions{}, BatchingOptions{});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].error, kNoFiniteTranslation);
  EXPECT_TRUE(out[0].hypotheses.empty());
  EXPECT_EQ(out[1].error, "");  // the empty line needs no model
  EXPECT_EQ(out[2].error, kNoFiniteTranslation);
}

TEST_F(SearchHardening, LinesOverMaxLengthAreSkippedWithAReasonAndTheOthersTranslated) {
  const Translator t = translator(test::tiny_model(3, 10));
  BatchingOptions b;
  b.max_length = 4;  // eos counted: three subwords fit
  const auto out = t.translate_lines({"cat dog house tree", "cat dog house"}, SearchOptions{}, b);
  EXPECT_HAS(out[0].error, "5 subwords (eos counted), more than max-length 4");
  EXPECT_TRUE(out[0].skipped);
  EXPECT_TRUE(out[0].hypotheses.empty());
  EXPECT_EQ(out[1].error, "");
  EXPECT_FALSE(out[1].skipped);
  EXPECT_EQ(out[1].hypotheses.size(), 1u);
  b.max_length_crop = true;
  const auto cropped = t.translate_lines({"cat dog house tree"}, SearchOptions{}, b);
  EXPECT_EQ(cropped[0].error, "");
  EXPECT_EQ(cropped[0].hypotheses.size(), 1u);
}

TEST_F(SearchHardening, CheckpointOfAnotherVocabularyOfTheSameSizeIsRefused) {
  const std::string other = train("other.txt", "un deux trois quatre cinq six\n", "other.spm");
  const data::Vocab mine(vocab_), theirs(other);
  ASSERT_EQ(mine.size(), theirs.size());
  const auto m = test::tiny_model(3, 10);
  save(*m, "m.safetensors", {{models::kVocabKey, mine.fingerprint()}});
  EXPECT_NO_THROW(Translator::load({path("m.safetensors")}, vocab_, Device::cpu()));
  const std::string msg =
      error_of([&] { Translator::load({path("m.safetensors")}, other, Device::cpu()); });
  EXPECT_HAS(msg, "vocabulary " + other + " is not the one " + path("m.safetensors") +
                      " was trained with");
  // A checkpoint without a fingerprint (older realmt, other tools) is still accepted.
  save(*m, "old.safetensors");
  EXPECT_NO_THROW(Translator::load({path("old.safetensors")}, other, Device::cpu()));
}

TEST_F(SearchHardening, AverageRefusesItsInputAsOutputUnderAnyNameAndDamagedInputs) {
  const auto m = test::tiny_model(3, 10);
  save(*m, "m1.safetensors", {{models::kVocabKey, "v1"}});
  save(*m, "m2.safetensors", {{models::kVocabKey, "v1"}});
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  const std::string same = error_of([&] {
    models::average_checkpoints({"m1.safetensors", "m2.safetensors"}, "./m2.safetensors");
  });
  fs::current_path(cwd);
  EXPECT_HAS(same, "output ./m2.safetensors is also an input (m2.safetensors)");
  fs::create_symlink(path("m1.safetensors"), path("link.safetensors"));
  EXPECT_HAS(error_of([&] {
               models::average_checkpoints({path("m1.safetensors")}, path("link.safetensors"));
             }),
             "is also an input");
  // The output keeps the inputs' vocabulary fingerprint and gets checksums.
  models::average_checkpoints({path("m1.safetensors"), path("m2.safetensors")},
                              path("avg.safetensors"));
  const auto meta = models::load_safetensors_header(path("avg.safetensors")).metadata;
  EXPECT_EQ(meta.at(models::kVocabKey), "v1");
  EXPECT_EQ(meta.count(models::kChecksumKey), 1u);
  // Another vocabulary, NaN weights, another format: refused, naming the file.
  save(*m, "v2.safetensors", {{models::kVocabKey, "v2"}});
  EXPECT_HAS(error_of([&] {
               models::average_checkpoints({path("m1.safetensors"), path("v2.safetensors")},
                                           path("o.safetensors"));
             }),
             "another vocabulary");
  auto bad = test::tiny_model(3, 10);
  const Tensor& w = bad->params().values()[0];
  w.copy_from(Tensor::full(w.shape(), std::numeric_limits<double>::infinity(), w.dtype()));
  save(*bad, "inf.safetensors");
  EXPECT_HAS(error_of([&] {
               models::average_checkpoints({path("m1.safetensors"), path("inf.safetensors")},
                                           path("o.safetensors"));
             }),
             path("inf.safetensors") + ": tensor '" + bad->params().names()[0] + "' holds");
  const models::SafetensorsFile f = models::load_safetensors(path("m1.safetensors"));
  std::vector<std::pair<std::string, Tensor>> tensors;
  for (const auto& n : f.names) tensors.emplace_back(n, f.get(n));
  models::save_safetensors(
      path("f2.safetensors"), tensors,
      {{models::kFormatKey, "2"}, {models::kConfigKey, m->config().to_yaml()}});
  EXPECT_HAS(error_of([&] {
               models::average_checkpoints({path("f2.safetensors"), path("m1.safetensors")},
                                           path("o.safetensors"));
             }),
             "checkpoint format '2'");
  EXPECT_FALSE(fs::exists(path("o.safetensors")));
}

}  // namespace
}  // namespace realmt::search
