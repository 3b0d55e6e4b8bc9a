// Marian's validation metrics and their definitions, validation scripts, and the decoder config
// written beside each saved model.
#include "training/validator.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/options.h"
#include "core/rng.h"
#include "data/vocab_trainer.h"
#include "search/decode_options.h"
#include "training/trainer_impl.h"

namespace realmt::training {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("realmt_validator_" + std::to_string(::getpid()));
  std::unique_ptr<data::Vocab> vocab;
  std::unique_ptr<models::Transformer> model;
  Fixture() {
    fs::create_directories(dir);
    Generator g(3);
    std::ofstream src(dir / "v.src"), tgt(dir / "v.tgt");
    for (int i = 0; i < 30; ++i) {
      const int n = 2 + static_cast<int>(g.next_u32() % 5);
      for (int j = 0; j < n; ++j)
        src << (j ? " " : "") << static_cast<char>('a' + g.next_u32() % 10);
      for (int j = 0; j < n; ++j)
        tgt << (j ? " " : "") << static_cast<char>('a' + g.next_u32() % 10);
      src << "\n";
      tgt << "\n";
    }
    src.close();
    tgt.close();
    data::VocabTrainOptions v;
    v.inputs = {(dir / "v.src").string(), (dir / "v.tgt").string()};
    v.output = (dir / "vocab.spm").string();
    v.vocab_size = 15;
    v.model_type = "char";
    data::train_vocab(v);
    vocab = std::make_unique<data::Vocab>(v.output);
    models::ModelConfig c;
    c.vocab_size = vocab->size();
    c.enc_depth = c.dec_depth = 1;
    c.dim_emb = 16;
    c.heads = 2;
    c.dim_ffn = 32;
    c.admin_init = models::AdminInit::kNone;
    model = std::make_unique<models::Transformer>(c);
    model->allocate(Device::cpu());
    model->init(5);
  }
  ~Fixture() { fs::remove_all(dir); }
  std::string script(const std::string& name, const std::string& body) const {
    const std::string path = (dir / name).string();
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    fs::permissions(path, fs::perms::owner_all);
    return path;
  }
};

TEST(Validator, CrossEntropiesAsMarianDefinesThem) {
  Fixture f;
  ValidatorOptions o;
  o.batch_sentences = 7;
  const Validator v((f.dir / "v.src").string(), (f.dir / "v.tgt").string(), *f.vocab, o);
  const auto m =
      v.run(*f.model, {"cross-entropy", "ce-mean", "ce-sum", "ce-mean-words", "perplexity"});
  EXPECT_NEAR(m.at("cross-entropy") * v.sentences(), m.at("ce-sum"),
              1e-6 * m.at("ce-sum"));  // per sentence
  EXPECT_EQ(m.at("ce-mean"), m.at("cross-entropy"));
  EXPECT_GT(m.at("cross-entropy"), m.at("ce-mean-words"));  // sentences have several tokens
  EXPECT_NEAR(m.at("perplexity"), std::exp(m.at("ce-mean-words")), 1e-9 * m.at("perplexity"));
  EXPECT_FALSE(Validator::higher_is_better("cross-entropy"));
  EXPECT_TRUE(Validator::higher_is_better("translation"));
  EXPECT_TRUE(Validator::better("cross-entropy", 1.0, 2.0));
  EXPECT_TRUE(Validator::better("bleu-detok", 2.0, 1.0));
}

TEST(Validator, TranslationMetricsAndScripts) {
  Fixture f;
  ValidatorOptions o;
  // Marian runs "<valid-script-path> <valid-script-args> <file>" through the shell; the score is
  // what it prints. This one prints the number of lines it got.
  o.script_path =
      "sh " + f.script("count.sh", "wc -l < \"$2\"; echo \"$1\" > " + (f.dir / "arg").string());
  o.script_args = {"first-arg"};
  o.translation_output = (f.dir / "valid.{U}.out").string();
  const Validator v((f.dir / "v.src").string(), (f.dir / "v.tgt").string(), *f.vocab, o);
  ValidationContext c;
  c.updates = 40;
  std::vector<std::string> logged;
  c.log = [&](const std::string& line) { logged.push_back(line); };
  const auto m =
      v.run(*f.model, {"translation", "bleu", "bleu-detok", "bleu-segmented", "chrf"}, c);
  EXPECT_EQ(m.at("translation"), 30.0);
  EXPECT_TRUE(fs::exists(f.dir / "valid.40.out"));  // {U} filled in
  std::ifstream arg(f.dir / "arg");
  std::string a;
  std::getline(arg, a);
  EXPECT_EQ(a, "first-arg");
  EXPECT_EQ(m.at("bleu"), m.at("bleu-detok"));
  EXPECT_GE(m.at("bleu-segmented"), 0.0);
  ASSERT_GE(logged.size(), 3u);
  EXPECT_EQ(logged.front(), "Translating validation set...");
  EXPECT_EQ(logged[1].rfind("Best translation 0 : ", 0), 0u);
  EXPECT_EQ(logged.back().rfind("Total translation time: ", 0), 0u);
  // 0..5, then 10 and 20 of the 30 sentences: Marian's geometric sample.
  EXPECT_EQ(logged.size(), 1u + 8u + 1u);
}

TEST(Validator, ValidScriptScoresTheSavedModelAndFailuresAreClear) {
  Fixture f;
  ValidatorOptions o;
  o.script_path =
      "sh " + f.script("score.sh", "test -f " + (f.dir / "m.dev.npz").string() + " && echo 17.5");
  const Validator v((f.dir / "v.src").string(), (f.dir / "v.tgt").string(), *f.vocab, o);
  ValidationContext c;
  c.dev_model_path = (f.dir / "m.dev.npz").string();
  c.save_model = [](const std::string& path) { std::ofstream(path) << "weights"; };
  EXPECT_EQ(v.run(*f.model, {"valid-script"}, c).at("valid-script"), 17.5);
  ValidatorOptions bad = o;
  bad.script_path = "sh " + f.script("bad.sh", "echo no score here");
  const Validator w((f.dir / "v.src").string(), (f.dir / "v.tgt").string(), *f.vocab, bad);
  try {
    w.run(*f.model, {"valid-script"}, c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("printed no number"), std::string::npos) << e.what();
  }
  bad.script_path = "false";
  const Validator x((f.dir / "v.src").string(), (f.dir / "v.tgt").string(), *f.vocab, bad);
  EXPECT_THROW(x.run(*f.model, {"valid-script"}, c), Error);
}

TEST(DecoderConfig, IsMariansAndRealmtTranslateReadsIt) {
  TrainOptions t;
  t.vocabs = {"vocab.spm", "vocab.spm"};
  t.valid_beam_size = 6;
  t.valid_normalize = 0.6;
  t.valid_mini_batch = 64;
  const std::string yaml = decoder_config_yaml("model/model.iter5000.npz", t);
  EXPECT_EQ(
      yaml,
      "models:\n  - model/model.iter5000.npz\nvocabs:\n  - vocab.spm\n  - vocab.spm\nbeam-size: 6\n"
      "normalize: 0.6\nword-penalty: 0\nmini-batch: 64\nmaxi-batch: 100\nmaxi-batch-sort: src\n"
      "relative-paths: false\n");
  search::TranslateOptions d;
  OptionSet set("realmt-translate", "test");
  d.declare(set);
  set.load_yaml_string(yaml, "model.iter5000.npz.decoder.yml");
  EXPECT_EQ(d.model.models, std::vector<std::string>{"model/model.iter5000.npz"});
  EXPECT_EQ(d.beam_size, 6);
  EXPECT_DOUBLE_EQ(d.normalize, 0.6);
  EXPECT_EQ(d.model.mini_batch, 64);
  EXPECT_NO_THROW(d.validate());
}

}  // namespace
}  // namespace realmt::training
