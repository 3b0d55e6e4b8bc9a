// realmt-train under bad conditions: a stop signal during start-up, a corpus with no pair that
// fits max-length, damaged training states and checkpoints (NaN, bad numbers, another
// vocabulary). Each ends the run promptly with an error naming the file and the field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <limits>

#include "common/stop_signal.h"
#include "core/log.h"
#include "core/rng.h"
#include "data/vocab_trainer.h"
#include "models/checkpoint.h"
#include "models/safetensors.h"
#include "training/trainer.h"

namespace realmt::training {
namespace {

namespace fs = std::filesystem;

// A tiny reversal corpus and its character vocabulary in a directory of its own.
class TrainHardening : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("realmt_train_hardening_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Generator g(11);
    std::ofstream src(dir_ / "train.src"), tgt(dir_ / "train.tgt");
    for (int i = 0; i < 120; ++i) {
      const int n = 3 + static_cast<int>(g.next_u32() % 4);
      std::string s, t;
      for (int j = 0; j < n; ++j) s += std::string(j ? " " : "") + char('a' + g.next_u32() % 8);
      for (int j = n - 1; j >= 0; --j) t += std::string(j < n - 1 ? " " : "") + s[size_t(2 * j)];
      src << s << "\n";
      tgt << t << "\n";
    }
    src.close();
    tgt.close();
    vocab_ = vocab("vocab.spm", {(dir_ / "train.src").string(), (dir_ / "train.tgt").string()});
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string vocab(const std::string& name, std::vector<std::string> inputs) const {
    data::VocabTrainOptions v;
    v.inputs = std::move(inputs);
    v.output = (dir_ / name).string();
    v.vocab_size = 13;  // 4 special + 8 letters + the word boundary
    v.model_type = "char";
    data::train_vocab(v);
    return v.output;
  }

  TrainOptions options(const std::string& after) const {
    TrainOptions o;
    o.train_sets = {(dir_ / "train.src").string(), (dir_ / "train.tgt").string()};
    o.vocabs = {vocab_};
    o.model = (dir_ / "model.safetensors").string();
    o.mini_batch_words = 100;
    o.maxi_batch = 2;
    o.after = Duration::parse(after);
    o.disp_freq = Duration::parse("100u");
    o.save_freq = Duration::parse("100u");
    o.seed = 3;
    o.quiet_progress = true;
    models::ModelConfig& m = o.model_config;
    m.enc_depth = m.dec_depth = 1;
    m.dim_emb = 8;
    m.heads = 2;
    m.dim_ffn = 16;
    m.dropout = 0.0;
    m.admin_init = models::AdminInit::kClosedForm;
    return o;
  }

  // Rewrites a checkpoint through `edit` (tensors and metadata); checksums are recomputed, so
  // that only the edited content is wrong.
  template <typename Edit>
  void rewrite(const std::string& path, Edit edit) const {
    const models::SafetensorsFile f = models::load_safetensors(path);
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (const auto& n : f.names) tensors.emplace_back(n, f.get(n).clone());
    models::Metadata meta = f.metadata;
    edit(tensors, meta);
    models::save_checkpoint(path, tensors, meta);
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

TEST_F(TrainHardening, SigtermDuringStartUpStopsBeforeTheFirstUpdate) {
  install_stop_signal_handlers();
  TrainResult r;
  {
    Trainer t(options("20u"));  // start-up: corpus indexed, model built
    std::raise(SIGTERM);        // arrives before run()
    r = t.run();
  }
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
  EXPECT_EQ(r.stop_reason, StopReason::kSignal);
  EXPECT_EQ(r.updates, 0);
  // The signal was acted on: the next run trains.
  EXPECT_EQ(Trainer(options("2u")).run().updates, 2);
}

// The quickstart bounds training by time-limit only: its log lines show the time left (it
// showed "ETA ?" when the ETA came from `after` alone).
TEST_F(TrainHardening, LogLinesShowTheEtaOfTheTimeLimit) {
  TrainOptions o = options("0");
  o.time_limit_minutes = 0.03;  // 1.8 s
  o.disp_freq = Duration::parse("1u");
  const std::string log_path = (dir_ / "train.log").string();
  log::set_file(log_path);  // what --log does (common/options_cli.cc)
  const int64_t updates = Trainer(o).run().updates;
  log::set_file("");
  EXPECT_GT(updates, 0);
  std::ifstream in(log_path);
  std::string line;
  int with_eta = 0;
  while (std::getline(in, line)) {
    if (line.find(" : ETA ") == std::string::npos) continue;
    EXPECT_EQ(line.find(" : ETA ?"), std::string::npos) << line;
    ++with_eta;
  }
  EXPECT_GT(with_eta, 0);
}

TEST_F(TrainHardening, NoPairFittingMaxLengthIsAnErrorNotEndlessEmptyEpochs) {
  TrainOptions o = options("3e");
  o.max_length = 2;  // every pair has 3 to 6 characters a side
  EXPECT_HAS(error_of([&] { Trainer(o).run(); }),
             "no sentence pair fits max-length 2 (120 of 120 usable pairs");
}

TEST_F(TrainHardening, DamagedNumbersInTheTrainingStateAreNamed) {
  ASSERT_EQ(Trainer(options("2u")).run().updates, 2);
  const std::string state = (dir_ / "model.state.safetensors").string();
  rewrite(state, [](auto&, models::Metadata& m) {
    for (auto& [key, value] : m)
      if (key.rfind("realmt.best", 0) == 0) value = "1.5x";  // the metric's best and the older key
  });
  const std::string damaged = error_of([&] { Trainer(options("4u")).run(); });
  EXPECT_HAS(damaged, state + ": training state field 'realmt.best");
  EXPECT_HAS(damaged, "is '1.5x', not a valid number");
  rewrite(state, [](auto&, models::Metadata& m) {
    m["realmt.best"] = "inf";
    m[models::kStepKey] = "";
  });
  EXPECT_HAS(error_of([&] { Trainer(options("4u")).run(); }), "field 'realmt.step' is ''");
  rewrite(state, [](auto&, models::Metadata& m) {
    m[models::kStepKey] = "2";
    m["realmt.tokens"] = "-5";
  });
  EXPECT_HAS(error_of([&] { Trainer(options("4u")).run(); }), "'realmt.tokens' is -5");
}

TEST_F(TrainHardening, AStateMissingARequiredKeyIsNamedWithTheFile) {
  ASSERT_EQ(Trainer(options("2u")).run().updates, 2);
  const std::string state = (dir_ / "model.state.safetensors").string();
  rewrite(state, [](auto&, models::Metadata& m) { m.erase("realmt.sentences"); });
  EXPECT_HAS(error_of([&] { Trainer(options("4u")).run(); }),
             state + ": training state lacks 'realmt.sentences'");
}

TEST_F(TrainHardening, AStateWithoutTheKeysLaterVersionsAddedResumes) {
  ASSERT_EQ(Trainer(options("2u")).run().updates, 2);
  const std::string state = (dir_ / "model.state.safetensors").string();
  // As realmt wrote states before the epoch start, the gNorm average and the fingerprint were kept.
  rewrite(state, [](auto&, models::Metadata& m) {
    for (const char* key : {"realmt.epoch_start_updates", "realmt.epoch_start_sentences",
                            "realmt.grad_norm_avg", "realmt.vocab"})
      ASSERT_EQ(m.erase(key), 1u) << key;
  });
  EXPECT_EQ(Trainer(options("4u")).run().updates, 4);
}

TEST_F(TrainHardening, NaNInTheTrainingStateIsRefusedAtResume) {
  ASSERT_EQ(Trainer(options("2u")).run().updates, 2);
  const std::string state = (dir_ / "model.state.safetensors").string();
  std::string poisoned;
  rewrite(state, [&](std::vector<std::pair<std::string, Tensor>>& t, auto&) {
    poisoned = t[3].first;
    t[3].second.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();
  });
  EXPECT_HAS(error_of([&] { Trainer(options("4u")).run(); }),
             state + ": tensor '" + poisoned + "' holds 1 non-finite value(s)");
}

TEST_F(TrainHardening, CheckpointsRecordTheVocabularyAndAnotherOneIsRefused) {
  ASSERT_EQ(Trainer(options("2u")).run().updates, 2);
  const std::string model = (dir_ / "model.safetensors").string();
  const std::string fingerprint = data::Vocab(vocab_).fingerprint();
  EXPECT_EQ(models::load_safetensors_header(model).metadata.at(models::kVocabKey), fingerprint);
  EXPECT_EQ(models::load_safetensors_header((dir_ / "model.state.safetensors").string())
                .metadata.at(models::kVocabKey),
            fingerprint);
  // Same size, other pieces: a vocabulary of eight other letters.
  std::ofstream((dir_ / "other.txt").string()) << "i j k l\nm n o p\ni k m o\n";
  const std::string other = vocab("other.spm", {(dir_ / "other.txt").string()});
  ASSERT_EQ(data::Vocab(other).size(), data::Vocab(vocab_).size());
  ASSERT_NE(data::Vocab(other).fingerprint(), fingerprint);
  TrainOptions o = options("4u");
  o.vocabs = {other};
  EXPECT_HAS(error_of([&] { Trainer(o).run(); }),
             "is not the one " + (dir_ / "model.state.safetensors").string());
  o.model = (dir_ / "fresh.safetensors").string();
  o.pretrained_model = model;
  EXPECT_HAS(error_of([&] { Trainer(o).run(); }), "is not the one " + model + " was trained with");
}

}  // namespace
}  // namespace realmt::training
