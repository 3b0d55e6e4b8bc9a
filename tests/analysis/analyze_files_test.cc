// realmt-analyze end to end (analysis/analyze_files.h): a tiny saved model and a word
// vocabulary, the files it writes, and its errors.
#include "analysis/analyze_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "core/parallel.h"
#include "data/vocab.h"
#include "data/vocab_trainer.h"
#include "models/checkpoint.h"
#include "models/transformer.h"

namespace realmt::analysis {
namespace {

namespace fs = std::filesystem;

class AnalyzeFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    set_num_threads(1);
    dir_ = fs::temp_directory_path() / ("realmt_analyze_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    {
      std::ofstream words(path("words.txt"));
      for (int i = 0; i < 50; ++i) words << "cat dog house tree car book\n";
    }
    data::VocabTrainOptions v;
    v.inputs = {path("words.txt")};
    v.output = path("vocab.spm");
    v.vocab_size = 10;
    v.model_type = "word";
    data::train_vocab(v);
    models::ModelConfig c;
    c.vocab_size = data::Vocab(path("vocab.spm")).size();
    c.enc_depth = c.dec_depth = 2;
    c.dim_emb = 8;
    c.heads = 2;
    c.dim_ffn = 16;
    c.admin_init = models::AdminInit::kClosedForm;
    models::Transformer m(c);
    m.allocate(Device::cpu());
    m.init(5);
    models::save_parameters(path("model.safetensors"), m.params(),
                            {{models::kConfigKey, c.to_yaml()}});
    write("src.txt", "cat dog\ntree car book house\ncat dog house tree car book cat dog\n");
    write("tgt.txt", "dog cat house\nbook\ncar\n");
    o_.models = {path("model.safetensors")};
    o_.vocabs = {path("vocab.spm")};
    o_.train_sets = {path("src.txt"), path("tgt.txt")};
    o_.output = path("out");
    o_.max_length = 6;  // line 3 (8 words + eos) is skipped
    o_.heatmap_sentence = 2;
    o_.quiet = true;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
  }
  std::string error_of(const AnalyzeOptions& o) const {
    std::ostringstream log;
    try {
      analyze_files(o, log);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
  AnalyzeOptions o_;
};

TEST_F(AnalyzeFiles, WritesTablesAndHeatmap) {
  std::ostringstream log;
  const AnalyzeResult r = analyze_files(o_, log);
  EXPECT_EQ(r.sentences, 2);
  EXPECT_EQ(r.skipped, 1);
  std::ifstream tsv(path("out/attention.tsv"));
  std::string line;
  std::getline(tsv, line);
  EXPECT_EQ(line, "chain\tmeasure\tlayer\thead\tcount\tq1\tmedian\tq3\tmean\tmin\tmax\tcolour");
  int rows = 0;
  while (std::getline(tsv, line)) ++rows;
  EXPECT_EQ(rows,
            3 * 2 * 2 + 3 * 1 * 2);  // entropy: 3 chains x 2 layers x 2 heads; JSD: 1 layer pair
  std::ifstream js(path("out/attention.json"));
  const nlohmann::json j = nlohmann::json::parse(js);
  EXPECT_EQ(j["sentences"], 2);
  ASSERT_EQ(j["rows"].size(), 18u);
  const auto& enc =
      j["rows"][0];  // encoder layer 1 head 1: queries of 3 + 5 source tokens, all seeing > 1 key
  EXPECT_EQ(enc["chain"], "encoder");
  EXPECT_EQ(enc["count"], 3 + 5);
  EXPECT_EQ(enc["histogram"]["counts"].size(), 40u);
  std::ifstream hm(path("out/heatmap.json"));
  const nlohmann::json h = nlohmann::json::parse(hm);
  EXPECT_EQ(h["line"], 2);
  EXPECT_EQ(h["source"].size(), 5u);  // tree car book house </s>
  EXPECT_EQ(h["target"].size(), 2u);  // <s> book
  ASSERT_EQ(h["chains"]["encoder"].size(), 2u);
  ASSERT_EQ(h["chains"]["encoder"][0].size(), 2u);
  EXPECT_EQ(h["chains"]["encoder"][0][0].size(), 5u);     // 5 queries
  EXPECT_EQ(h["chains"]["decoder"][1][1][1].size(), 2u);  // query 2 sees 2 positions
  EXPECT_EQ(h["chains"]["cross"][0][0][0].size(), 5u);
}

TEST_F(AnalyzeFiles, ErrorsNameTheProblem) {
  AnalyzeOptions o = o_;
  o.heatmap_sentence = 3;
  EXPECT_NE(error_of(o).find("longer than max-length"), std::string::npos) << error_of(o);
  o = o_;
  o.max_sentences = 1;
  EXPECT_NE(error_of(o).find("heatmap-sentence: line 2 is not among the 1 pairs"),
            std::string::npos);
  write("short.txt", "car\n");
  o = o_;
  o.train_sets[1] = path("short.txt");
  EXPECT_NE(error_of(o).find("src.txt has 3 lines but " + path("short.txt") + " has 1"),
            std::string::npos)
      << error_of(o);
  o = o_;
  o.train_sets.pop_back();
  EXPECT_NE(error_of(o).find("train-sets: give a source file and a target file"),
            std::string::npos);
}

}  // namespace
}  // namespace realmt::analysis
