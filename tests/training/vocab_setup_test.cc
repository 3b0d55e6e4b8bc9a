// Marian's vocabulary flows in realmt-train (training/vocab_setup.h): a missing .spm trained on
// the train-sets, a missing .yml created, two vocabularies untied, and models trained with them
// translated.
#include "training/vocab_setup.h"

#include <gtest/gtest.h>
#include <sentencepiece_processor.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/error.h"
#include "data/marian_vocab.h"
#include "data/vocab.h"
#include "models/safetensors.h"
#include "search/translator.h"
#include "training/trainer.h"

namespace realmt::training {
namespace {

namespace fs = std::filesystem;

const char* kEn[] = {"cat", "dog", "house", "tree", "car", "book", "red", "blue", "big", "small"};
const char* kFr[] = {"chat",  "chien", "maison", "arbre", "voiture",
                     "livre", "rouge", "bleu",   "grand", "petit"};

class VocabSetup : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("realmt_vocab_setup_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // A word-for-word task: random words, French the image of English.
    std::ofstream src(path("train.en")), tgt(path("train.fr"));
    std::mt19937 g(5);
    for (int i = 0; i < 1000; ++i) {
      const int n = 2 + static_cast<int>(g() % 4);
      for (int j = 0; j < n; ++j) {
        const int k = static_cast<int>(g() % 10);
        src << (j ? " " : "") << kEn[k];
        tgt << (j ? " " : "") << kFr[k];
      }
      src << "\n";
      tgt << "\n";
    }
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  TrainOptions options(std::vector<std::string> vocabs, const std::string& after) const {
    TrainOptions o;
    o.train_sets = {path("train.en"), path("train.fr")};
    o.vocabs = std::move(vocabs);
    o.model = path("model.safetensors");
    o.mini_batch_words = 300;
    o.after = Duration::parse(after);
    o.disp_freq = Duration::parse("1000u");
    o.save_freq = Duration::parse("1000u");
    o.learn_rate = 0.003;
    o.lr_warmup = Duration::parse("20u");
    o.quiet_progress = true;
    o.quiet = true;
    o.cpu_threads = 1;  // a tiny model: more threads only contend
    models::ModelConfig& m = o.model_config;
    m.enc_depth = m.dec_depth = 1;
    m.dim_emb = 32;
    m.heads = 2;
    m.dim_ffn = 64;
    m.admin_init = models::AdminInit::kClosedForm;
    return o;
  }

  std::vector<std::string> pieces(const std::string& spm) const {
    sentencepiece::SentencePieceProcessor sp;
    EXPECT_TRUE(sp.Load(spm).ok()) << spm;
    std::vector<std::string> out;
    for (int i = 0; i < sp.GetPieceSize(); ++i) out.push_back(sp.IdToPiece(i));
    return out;
  }

  fs::path dir_;
};

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST_F(VocabSetup, MissingSpmIsTrainedOnBothSidesOnceWithMarianIds) {
  TrainOptions o = options({path("v/joint.spm"), path("v/joint.spm")}, "1u");
  o.created_vocab_sizes = {22, 22};
  o.sentencepiece_options = "--model_type=word";
  EXPECT_EQ(create_missing_vocabs(o), (std::vector<std::string>{path("v/joint.spm")}));
  const std::vector<std::string> p = pieces(path("v/joint.spm"));
  ASSERT_EQ(p.size(), 22u);  // dim-vocabs: the 20 words of both sides and 2 special pieces
  EXPECT_EQ(p[0], "</s>");   // Marian's special pieces: </s> 0, <unk> 1, no <s> nor <pad>
  EXPECT_EQ(p[1], "<unk>");
  EXPECT_TRUE(has(p,
                  "\xe2\x96\x81"
                  "cat") &&
              has(p,
                  "\xe2\x96\x81"
                  "chat"))
      << "a joint model has both sides";
  EXPECT_FALSE(fs::exists(path("v/joint.vocab")));  // as Marian, only the model
  // An existing vocabulary is used as it is.
  const auto written = fs::last_write_time(path("v/joint.spm"));
  EXPECT_TRUE(create_missing_vocabs(o).empty());
  EXPECT_EQ(fs::last_write_time(path("v/joint.spm")), written);
  EXPECT_EQ(data::Vocab(path("v/joint.spm")).size(), 22 + 2);  // realmt adds pad and bos
}

TEST_F(VocabSetup, SentencepieceMaxLinesSamplesTheCorpus) {
  // Each line one character of its own: a character model of a sample of k lines has k of them.
  {
    std::ofstream src(path("chars.en")), tgt(path("chars.fr"));
    for (int i = 0; i < 200; ++i) {
      const std::u8string a = {char8_t(0xe4), char8_t(0xb8 + i / 64),
                               char8_t(0x80 + i % 64)};  // U+4E00 + i
      const std::u8string b = {char8_t(0xe5), char8_t(0x80 + i / 64),
                               char8_t(0x80 + i % 64)};  // U+5000 + i
      src << std::string(a.begin(), a.end()) << "\n";
      tgt << std::string(b.begin(), b.end()) << "\n";
    }
  }
  auto cjk_pieces = [&](int64_t max_lines, const std::string& name) {
    TrainOptions o = options({path(name), path(name)}, "1u");
    o.train_sets = {path("chars.en"), path("chars.fr")};
    o.created_vocab_sizes = {1000};
    o.sentencepiece_max_lines = max_lines;
    o.sentencepiece_options = "--model_type=char --character_coverage=1.0 --hard_vocab_limit=false";
    create_missing_vocabs(o);
    int n = 0;
    for (const std::string& p : pieces(path(name)))
      n += p.size() == 3 && (p[0] == '\xe4' || p[0] == '\xe5');
    return n;
  };
  EXPECT_EQ(cjk_pieces(0, "all.spm"), 400);  // 0: every line of both sides
  EXPECT_EQ(cjk_pieces(10, "ten.spm"), 10);
}

TEST_F(VocabSetup, TwoVocabulariesGiveUntiedTablesOfTheirSizes) {
  TrainOptions o = options({path("src.spm"), path("tgt.spm")}, "2u");
  o.model_config.tied_embeddings_all =
      false;  // what realmt-train's parsing does for two vocabularies
  o.created_vocab_sizes = {12, 8};
  o.sentencepiece_options = "--model_type=word";
  Trainer(o).run();
  // Each side's own text: the source model has English words only, the target French.
  EXPECT_TRUE(has(pieces(path("src.spm")),
                  "\xe2\x96\x81"
                  "cat"));
  EXPECT_FALSE(has(pieces(path("src.spm")),
                   "\xe2\x96\x81"
                   "chat"));
  EXPECT_EQ(pieces(path("tgt.spm")).size(), 8u);
  const models::SafetensorsFile f = models::load_safetensors_header(o.model);
  EXPECT_EQ(f.entry("source_embeddings.weight").shape.vec(), (std::vector<int64_t>{12 + 2, 32}));
  EXPECT_EQ(f.entry("embeddings.weight").shape.vec(), (std::vector<int64_t>{8 + 2, 32}));
  EXPECT_EQ(f.entry("output.weight").shape.vec(), (std::vector<int64_t>{8 + 2, 32}));
  // Translation needs both: one side's vocabulary alone is not the model's.
  EXPECT_NO_THROW(search::Translator::load(
      {o.model}, std::vector<std::string>{path("src.spm"), path("tgt.spm")}, Device::cpu()));
  EXPECT_THROW(
      search::Translator::load({o.model}, std::vector<std::string>{path("src.spm")}, Device::cpu()),
      Error);
}

TEST_F(VocabSetup, TiedEmbeddingsWithTwoVocabulariesAreRefusedNamingBoth) {
  TrainOptions o =
      options({path("src.spm"), path("tgt.spm")}, "1u");  // tied-embeddings-all: realmt's default
  try {
    o.validate();
    ADD_FAILURE() << "tied-embeddings-all with two vocabularies was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path("src.spm")), std::string::npos) << what;
    EXPECT_NE(what.find(path("tgt.spm")), std::string::npos) << what;
    EXPECT_NE(what.find("tied-embeddings-all"), std::string::npos) << what;
  }
  o.model_config.tied_embeddings_all = false;
  o.model_config.tied_embeddings_src = true;
  EXPECT_THROW(o.validate(), Error);
  o.model_config.tied_embeddings_src = false;
  o.model_config.tied_embeddings = true;  // the target side and the output layer may share
  EXPECT_NO_THROW(o.validate());
}

TEST_F(VocabSetup, WordListsOfPreSegmentedTextTrainAndTranslate) {
  TrainOptions o = options({path("vocab.en.yml"), path("vocab.fr.yml")}, "300u");
  o.model_config.tied_embeddings_all = false;
  Trainer(o).run();
  const std::vector<std::string> en = data::read_word_list(path("vocab.en.yml"));
  ASSERT_EQ(en.size(), 12u);  // </s> <unk> and the 10 words
  EXPECT_EQ(en[0], "</s>");
  EXPECT_TRUE(has(en, "cat") && !has(en, "chat"));
  const search::Translator t = search::Translator::load(
      {o.model}, std::vector<std::string>{path("vocab.en.yml"), path("vocab.fr.yml")},
      Device::cpu());
  const std::vector<std::string> lines = {"cat dog", "big red car", "small blue book tree",
                                          "house"};
  const std::vector<std::string> want = {"chat chien", "grand rouge voiture",
                                         "petit bleu livre arbre", "maison"};
  const auto out = t.translate_lines(lines, search::SearchOptions{}, search::BatchingOptions{});
  int right = 0;
  for (size_t i = 0; i < lines.size(); ++i)
    right += !out[i].hypotheses.empty() && out[i].hypotheses[0].text == want[i];
  std::string got;
  for (const auto& r : out) got += (r.hypotheses.empty() ? r.error : r.hypotheses[0].text) + " / ";
  EXPECT_GE(right, 3) << got;
}

}  // namespace
}  // namespace realmt::training
