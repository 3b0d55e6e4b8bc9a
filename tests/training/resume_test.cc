// Exact resume: a run stopped and resumed from its checkpoint produces the same updates,
// losses and final weights as the uninterrupted run (dropout, data order, optimizer-delay and
// exponential smoothing included).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/rng.h"
#include "data/vocab_trainer.h"
#include "models/safetensors.h"
#include "training/trainer.h"

namespace realmt::training {
namespace {

namespace fs = std::filesystem;

// A reversal corpus of letter sequences ("c a f" -> "f a c") and its character vocabulary.
struct Corpus {
  fs::path dir;
  // The process id keeps concurrent runs (ctest -j, several build trees) apart.
  explicit Corpus(const std::string& name)
      : dir(fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    Generator g(5);
    std::ofstream src(dir / "train.src"), tgt(dir / "train.tgt");
    for (int i = 0; i < 400; ++i) {
      const int n = 2 + static_cast<int>(g.next_u32() % 6);
      std::vector<char> s(n);
      for (char& c : s) c = static_cast<char>('a' + g.next_u32() % 12);
      for (int j = 0; j < n; ++j) src << (j ? " " : "") << s[j];
      for (int j = n - 1; j >= 0; --j) tgt << (j < n - 1 ? " " : "") << s[j];
      src << "\n";
      tgt << "\n";
    }
    src.close();
    tgt.close();
    data::VocabTrainOptions v;
    v.inputs = {(dir / "train.src").string(), (dir / "train.tgt").string()};
    v.output = (dir / "vocab.spm").string();
    v.vocab_size = 24;
    v.model_type = "char";
    data::train_vocab(v);
  }
  ~Corpus() { fs::remove_all(dir); }
};

TrainOptions options(const Corpus& c, const fs::path& run_dir, const std::string& after) {
  TrainOptions o;
  o.train_sets = {(c.dir / "train.src").string(), (c.dir / "train.tgt").string()};
  o.vocabs = {(c.dir / "vocab.spm").string()};
  o.valid_sets = o.train_sets;
  o.model = (run_dir / "model.safetensors").string();
  o.mini_batch_words = 200;
  o.maxi_batch = 4;
  o.after = Duration::parse(after);
  o.disp_freq = Duration::parse("2u");
  o.save_freq = Duration::parse("5u");
  o.valid_freq = Duration::parse("5u");
  o.optimizer = OptimizerKind::kRadam;
  o.learn_rate = 1e-3;
  o.lr_warmup = Duration::parse("4u");
  o.optimizer_delay = 2;
  o.exponential_smoothing = 0.01;
  o.clip_norm = 1.0;
  o.seed = 77;
  o.quiet_progress = true;
  models::ModelConfig& m = o.model_config;
  m.enc_depth = m.dec_depth = 2;
  m.dim_emb = 16;
  m.heads = 2;
  m.dim_ffn = 32;
  m.dropout = 0.1;
  m.dropout_attention = 0.1;
  m.admin_init = models::AdminInit::kProfile;
  return o;
}

void expect_same_file_tensors(const fs::path& a, const fs::path& b) {
  const models::SafetensorsFile fa = models::load_safetensors(a.string());
  const models::SafetensorsFile fb = models::load_safetensors(b.string());
  ASSERT_EQ(fa.names, fb.names);
  for (const std::string& n : fa.names) {
    const Tensor ta = fa.get(n), tb = fb.get(n);
    ASSERT_EQ(ta.nbytes(), tb.nbytes()) << n;
    EXPECT_EQ(std::memcmp(ta.raw(), tb.raw(), ta.nbytes()), 0) << "tensor " << n << " differs";
  }
}

TEST(Resume, StoppedAndResumedRunEqualsUninterruptedRun) {
  Corpus corpus("realmt_resume_test");
  const fs::path full = corpus.dir / "full", split = corpus.dir / "split";
  fs::create_directories(full);
  fs::create_directories(split);
  // 23 updates cross an epoch boundary (400 pairs at ~30 a batch, 2 batches an update).
  TrainResult whole = Trainer(options(corpus, full, "23u")).run();
  ASSERT_EQ(whole.updates, 23);
  TrainResult first = Trainer(options(corpus, split, "10u")).run();
  ASSERT_EQ(first.updates, 10);
  TrainResult second = Trainer(options(corpus, split, "23u")).run();
  ASSERT_EQ(second.updates, 23);
  ASSERT_EQ(second.losses.size(), 13u);
  for (size_t i = 0; i < 13; ++i)
    EXPECT_EQ(second.losses[i], whole.losses[10 + i]) << "update " << 11 + i;
  EXPECT_GE(whole.epochs, 1);
  expect_same_file_tensors(full / "model.safetensors", split / "model.safetensors");
  expect_same_file_tensors(full / "model.state.safetensors", split / "model.state.safetensors");
}

TEST(Resume, BadOptionsAreReportedBeforeTraining) {
  Corpus corpus("realmt_resume_opts");
  TrainOptions o = options(corpus, corpus.dir, "4u");
  o.optimizer_params = {0.9};
  EXPECT_THROW(Trainer{o}, Error);
  o = options(corpus, corpus.dir, "4u");
  o.train_sets = {"/nonexistent/a", "/nonexistent/b"};
  EXPECT_THROW(Trainer{o}, Error);
}

}  // namespace
}  // namespace realmt::training
