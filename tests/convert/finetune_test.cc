// Fine-tuning a converted model (realmt-train --pretrained-model with a realmt-convert output):
// the Hugging Face fixtures, converted, are trained a few updates on new data with their own
// vocabularies and special ids; the loss on that data goes down, the checkpoint keeps the
// converted model's parameters (ties), ids and tables, and translates with the original .spm files.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>

#include "models/checkpoint_record.h"
#include "models/safetensors.h"
#include "search/translator.h"
#include "data/batch_generator.h"
#include "training/trainer.h"
#include "training/validator.h"
#include "hf_fixture_util.h"
#include "search/vocab_checks.h"

namespace realmt::convert {
namespace {

using namespace fixtures;

// New data in the fixtures' made-up languages: the words of make_fixtures.py, the target in the
// source's order (the fixtures swap neighbours), so the converted model starts far from it.
void write_new_domain(const std::string& src_path, const std::string& tgt_path, bool tagged) {
  const char* src_words[] = {"ka", "lo", "mi", "nu", "pe", "ro",
                             "su", "ti", "va", "ze", "bo", "di"};
  const char* tgt_words[] = {"la", "le", "un", "de", "et",  "ce",
                             "il", "ne", "se", "sa", "mon", "ton"};
  std::ofstream src(src_path), tgt(tgt_path);
  std::mt19937 g(7);
  for (int i = 0; i < 400; ++i) {
    const int n = 2 + static_cast<int>(g() % 5);
    src << (tagged ? ">>fra<< " : "");
    for (int j = 0; j < n; ++j) {
      const int k = static_cast<int>(g() % 12);
      src << (j ? " " : "") << src_words[k];
      tgt << (j ? " " : "") << tgt_words[k];
    }
    src << "\n";
    tgt << "\n";
  }
}

std::vector<std::string> lines_of(const std::string& path, size_t n) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; out.size() < n && std::getline(in, line);) out.push_back(line);
  return out;
}

// Summed log-probability of the first `n` pairs under the checkpoint `model` (forced decoding).
double log_prob_of(const std::string& model, const std::string& name, const std::string& src,
                   const std::string& tgt, size_t n) {
  auto m = search::load_model(model, Device::cpu());
  const data::Vocab vocab = search::load_vocab(
      {fixture(name) + "/source.spm", fixture(name) + "/target.spm"}, model, m->config());
  const auto s = lines_of(src, n), t = lines_of(tgt, n);
  double sum = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto lp = forced_log_probs(*m, vocab.encode(s[i]), vocab.encode_target(t[i]));
    sum = std::accumulate(lp.begin(), lp.end(), sum);
  }
  return sum;
}

training::TrainOptions options(const testing::TempDir& tmp, const std::string& name,
                               const std::string& converted) {
  training::TrainOptions o;
  o.train_sets = {tmp.file("new.src"), tmp.file("new.tgt")};
  o.vocabs = {fixture(name) + "/source.spm", fixture(name) + "/target.spm"};
  o.pretrained_model = converted;
  o.model = tmp.file("tuned.safetensors");
  o.mini_batch = 32;
  o.after = Duration::parse("200u");
  o.disp_freq = Duration::parse("1000u");
  o.save_freq = Duration::parse("1000u");
  o.learn_rate = 0.01;
  o.lr_warmup = Duration::parse("0");
  o.quiet_progress = true;
  o.quiet = true;
  o.cpu_threads = 1;
  o.model_config.dropout = 0.0;
  return o;
}

std::vector<std::string> tensor_names(const std::string& path) {
  std::vector<std::string> names = models::load_safetensors_header(path).names;
  std::sort(names.begin(), names.end());
  return names;
}

void fine_tune(const std::string& name, bool tagged) {
  SCOPED_TRACE(name);
  testing::TempDir tmp;
  const std::string converted = tmp.file("converted.safetensors");
  write_realmt(import_hf(fixture(name)), converted);
  write_new_domain(tmp.file("new.src"), tmp.file("new.tgt"), tagged);
  const training::TrainOptions o = options(tmp, name, converted);
  const double before = log_prob_of(converted, name, o.train_sets[0], o.train_sets[1], 50);
  training::Trainer(o).run();
  const double after = log_prob_of(o.model, name, o.train_sets[0], o.train_sets[1], 50);
  std::cout << name << ": log-probability of 50 training pairs " << before << " before, " << after
            << " after\n";
  // Log-probabilities are negative: a quarter of the loss gone at least.
  EXPECT_GT(after, 0.75 * before) << "log-probability of 50 training pairs: " << before
                                  << " before, " << after << " after 200 updates";
  // The converted model's special ids and parameters (its ties) are kept.
  const models::ModelConfig was = models::read_model_config(converted),
                            is = models::read_model_config(o.model);
  EXPECT_EQ(is.pad_id, was.pad_id);
  EXPECT_EQ(is.eos_id, was.eos_id);
  EXPECT_EQ(is.decoder_start_id, was.decoder_start_id);
  EXPECT_EQ(is.tied_embeddings_all, was.tied_embeddings_all);
  EXPECT_EQ(is.tied_embeddings, was.tied_embeddings);
  EXPECT_EQ(tensor_names(o.model), tensor_names(converted));
  // It translates with the original vocabularies, as the converted model does, and has learnt
  // the new data: three quarters of its sentences come out right (19 or 20 of 20 seen).
  const auto t = search::Translator::load(
      {o.model}, std::vector<std::string>{o.vocabs[0], o.vocabs[1]}, Device::cpu());
  const auto src = lines_of(o.train_sets[0], 20), tgt = lines_of(o.train_sets[1], 20);
  const auto out = t.translate_lines(src, search::SearchOptions{}, search::BatchingOptions{});
  ASSERT_EQ(out.size(), src.size());
  size_t right = 0;
  std::string got;
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_FALSE(out[i].hypotheses.empty()) << out[i].error;
    right += out[i].hypotheses[0].text == tgt[i];
    got += out[i].hypotheses[0].text + " / ";
  }
  std::cout << name << ": " << right << " of " << src.size()
            << " training sentences translated as their reference\n";
  EXPECT_GE(right, 15u) << got;
}

// The batches and decoder inputs of a converted model's vocabulary use its ids (Hugging Face's:
// eos 0, pad and decoder start last), not realmt's.
TEST(FineTuneConverted, BatchesUseTheModelsSpecialIds) {
  testing::TempDir tmp;
  const std::string converted = tmp.file("converted.safetensors");
  write_realmt(import_hf(fixture("swish_tied")), converted);
  write_new_domain(tmp.file("new.src"), tmp.file("new.tgt"), false);
  const models::ModelConfig c = models::read_model_config(converted);
  ASSERT_NE(c.pad_id, data::kPadId);
  ASSERT_NE(c.eos_id, data::kEosId);
  data::BatchGeneratorOptions o = options(tmp, "swish_tied", converted).loader_options();
  o.vocab = std::make_shared<data::Vocab>(search::load_vocab(
      {fixture("swish_tied") + "/source.spm", fixture("swish_tied") + "/target.spm"}, converted,
      c));
  o.prefetch = 0;
  o.maxi_batch = 1;  // one batch of the first lines, of several lengths
  o.shuffle = false;
  data::BatchGenerator batches(o);
  const std::optional<data::Batch> b = batches.next();
  ASSERT_TRUE(b.has_value());
  // Every row of both sides: pieces, the model's eos, then the model's pad up to the end.
  int64_t pads = 0;
  auto check_rows = [&](const std::vector<int32_t>& ids, int64_t len) {
    for (int64_t r = 0; r < b->size; ++r) {
      const auto row = ids.begin() + r * len, end = row + len;
      const auto eos = std::find(row, end, c.eos_id);
      ASSERT_NE(eos, end) << "row " << r << " has no eos " << c.eos_id;
      EXPECT_EQ(std::count(row, eos, c.pad_id), 0) << "row " << r;
      EXPECT_EQ(std::count(eos + 1, end, c.pad_id), end - eos - 1)
          << "row " << r << " is not padded with " << c.pad_id;
      pads += end - eos - 1;
    }
  };
  check_rows(b->src, b->src_len);
  check_rows(b->tgt, b->tgt_len);
  EXPECT_GT(pads, 0);  // the batch has rows of several lengths
  Tensor in, out;
  training::shift_target(b->tgt, b->size, b->tgt_len, o.vocab->ids(), &in, &out);
  const std::vector<int32_t> v = in.to_vector<int32_t>();
  for (int64_t r = 0; r < b->size; ++r)
    EXPECT_EQ(v[static_cast<size_t>(r * b->tgt_len)], c.decoder_start_id);
}

TEST(FineTuneConverted, TiedOneVocabularyLowersTheLossAndTranslates) {
  fine_tune("swish_tied", false);
}
TEST(FineTuneConverted, TwoVocabulariesLowerTheLossAndTranslate) {
  fine_tune("gelu_two_vocabs", false);
}
TEST(FineTuneConverted, UntiedOutputLayerLowersTheLossAndTranslates) {
  fine_tune("relu_untied", false);
}

}  // namespace
}  // namespace realmt::convert
