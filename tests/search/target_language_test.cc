// realmt-translate's --target-language on a model whose checkpoint carries a vocabulary table
// with multilingual OPUS-MT tags (">>fra<<", ">>spa<<"), as realmt-convert writes one from a
// Hugging Face vocab.json: the tag goes before every non-blank line and is one id; a language
// the vocabulary has no tag for is an error naming the tag and listing the tags it has.
#include <gtest/gtest.h>

#include <sstream>

#include "../common/temp_dir.h"
#include "common/options.h"
#include "core/error.h"
#include "data/vocab_trainer.h"
#include "models/checkpoint.h"
#include "search/decode_options.h"
#include "search/output_format.h"
#include "search/translate_files.h"
#include "tiny_model.h"

namespace realmt::search {
namespace {

class TargetLanguage : public ::testing::Test {
 protected:
  void SetUp() override {
    spm_ = dir_.file("words.spm");
    std::string corpus;
    for (int i = 0; i < 50; ++i) corpus += "cat dog house tree car book\n";
    data::VocabTrainOptions v;
    v.inputs = {dir_.write("words.txt", corpus)};
    v.output = spm_;
    v.vocab_size = 10;
    v.model_type = "word";
    data::train_vocab(v);
    // The table: realmt's four special ids, the .spm's six words, then the two tags (ids 10, 11).
    const data::Vocab words(spm_);
    std::string table = "[";
    for (int32_t id = 0; id < words.size(); ++id) table += "\"" + words.piece(id) + "\",";
    table += "\">>fra<<\",\">>spa<<\"]";
    const auto model = test::tiny_model(5, words.size() + 2);
    models::Metadata meta{{models::kConfigKey, model->config().to_yaml()},
                          {models::kVocabTableKey, table}};
    models::save_parameters(dir_.file("m.safetensors"), model->params(), meta);
  }
  // realmt-translate's options from its command line, on `input`, n-best with scores.
  TranslateOptions options(const std::string& input, std::vector<std::string> extra) const {
    std::vector<std::string> args{
        "-m",     dir_.file("m.safetensors"), "-v", spm_, spm_, "-i", input, "--n-best", "-b", "2",
        "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    TranslateOptions o;
    OptionSet set("realmt-translate", "test");
    o.declare(set);
    std::vector<const char*> argv{"x"};
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream help;
    EXPECT_TRUE(set.parse(static_cast<int>(argv.size()), argv.data(), help));
    return o;
  }
  Translator translator(const TranslateOptions& o) const {
    return Translator::load(o.model.models, o.model.vocabs, Device::cpu());
  }
  // The n-best lines of `lines` translated as they are.
  static std::string nbest(const Translator& t, const TranslateOptions& o,
                           const std::vector<std::string>& lines) {
    std::string out;
    const auto result = t.translate_lines(lines, o.search(), o.batching());
    for (size_t i = 0; i < result.size(); ++i)
      for (const auto& h : result[i].hypotheses)
        out += format_nbest(i, h.text, h.hyp, AlignmentKind::kNone) + "\n";
    return out;
  }

  realmt::testing::TempDir dir_;
  std::string spm_;
};

TEST_F(TargetLanguage, TheOptionPutsTheTagAsOneIdBeforeEveryNonBlankLine) {
  const std::string input = dir_.write("in.txt", "cat dog\n\nbook tree car\n");
  const TranslateOptions o = options(input, {"--target-language", "fra"});
  EXPECT_EQ(o.target_language, "fra");
  const Translator t = translator(o);
  const data::Vocab& v = t.vocab();
  EXPECT_EQ(v.encode(">>fra<< cat dog"), (std::vector<int32_t>{10,
                                                               v.id_of("\xe2\x96\x81"
                                                                       "cat"),
                                                               v.id_of("\xe2\x96\x81"
                                                                       "dog")}));
  std::ostringstream out;
  translate_stream(o, t, out);
  const std::string tagged = nbest(t, o, {">>fra<< cat dog", "", ">>fra<< book tree car"});
  EXPECT_EQ(out.str(), tagged);
  EXPECT_NE(tagged, nbest(t, o, {"cat dog", "", "book tree car"}))
      << "the tag must change the scores";
}

TEST_F(TargetLanguage, ALanguageWithoutATagIsAnErrorListingTheTags) {
  const TranslateOptions o =
      options(dir_.write("in.txt", "cat dog\n"), {"--target-language", "deu"});
  const Translator t = translator(o);
  std::ostringstream out;
  try {
    translate_stream(o, t, out);
    FAIL() << "the vocabulary has no >>deu<<";
  } catch (const Error& e) {
    const std::string m = e.what();
    for (const char* part : {">>deu<<", ">>fra<< >>spa<<"})
      EXPECT_NE(m.find(part), std::string::npos) << m;
  }
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace realmt::search
