// What a Hugging Face MarianMTModel's joint vocab.json brings beyond the SentencePiece models:
// pieces the target .spm lacks ("▁under▁under") and the target-language tags of multilingual
// OPUS-MT models (">>fra<<"), encoded and decoded as Hugging Face's MarianTokenizer does.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "data/vocab.h"
#include "test_util.h"

namespace realmt::data {
namespace {

const std::string kJoined = "\xe2\x96\x81under\xe2\x96\x81under";  // "▁under▁under"

// A joint table as vocab.json has it: </s>, <unk>, the .spm's pieces, pieces the .spm lacks, <pad>.
std::vector<std::string> hf_table(const Vocab& spm) {
  std::vector<std::string> t{"</s>", "<unk>"};
  for (int32_t id = kEosId + 1; id < spm.size(); ++id) t.push_back(spm.piece(id));
  for (const char* extra : {">>fra<<", ">>spa<<"}) t.push_back(extra);
  t.push_back(kJoined);
  t.push_back("<pad>");
  return t;
}

class VocabLanguageTags : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::test_vocab();
    const Vocab spm(path_);
    table_ = hf_table(spm);
    ASSERT_EQ(spm.id_of(kJoined), kUnkId) << "the fixture needs a piece the .spm lacks";
    ASSERT_EQ(spm.id_of(">>fra<<"), kUnkId);
    pad_ = static_cast<int32_t>(table_.size()) - 1;
  }
  Vocab vocab() const { return Vocab::from_tables(path_, path_, table_, {}, {pad_, 1, 0, pad_}); }
  int32_t id(const std::string& piece) const {
    return static_cast<int32_t>(std::find(table_.begin(), table_.end(), piece) - table_.begin());
  }
  // ids of a, then b..., concatenated.
  static std::vector<int32_t> cat(std::vector<int32_t> a, const std::vector<int32_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }

  std::string path_;
  std::vector<std::string> table_;
  int32_t pad_ = 0;
};

TEST_F(VocabLanguageTags, ALeadingTagTheVocabularyHasIsOneIdAndTheRestAsBefore) {
  const Vocab v = vocab();
  const std::vector<int32_t> rest = v.encode("the cat sleeps");
  EXPECT_EQ(v.encode(">>fra<< the cat sleeps"), cat({id(">>fra<<")}, rest));
  EXPECT_EQ(v.encode(">>spa<<the cat sleeps"), cat({id(">>spa<<")}, rest));
  // Not at the start, or a tag the vocabulary lacks: text, as SentencePiece segments it.
  for (const std::string text :
       {"the cat >>fra<< sleeps", ">>deu<< the cat sleeps", " >>fra<< the cat"}) {
    const std::vector<std::string> pieces = Vocab(path_).encode_pieces(text);
    std::vector<int32_t> expected;
    for (const std::string& p : pieces) expected.push_back(v.id_of(p));
    EXPECT_EQ(v.encode(text), expected) << text;
  }
}

// Hugging Face: convert_tokens_to_string decodes the pieces with target.spm (which writes a piece
// it lacks as it is), then replaces every U+2581 by a space and strips the ends; decode(...,
// skip_special_tokens=True) drops eos, pad and unk first.
TEST_F(VocabLanguageTags, PiecesTheTargetModelLacksDecodeAsHuggingFaceWritesThem) {
  const Vocab v = vocab();
  const std::vector<int32_t> the_cat = v.encode("the cat"), sleeps = v.encode("sleeps");
  const int32_t joined = id(kJoined);
  EXPECT_EQ(v.decode(cat(cat(the_cat, {joined}), sleeps)), "the cat under under sleeps");
  EXPECT_EQ(v.decode(cat({pad_, joined}, the_cat)), "under under the cat");
  EXPECT_EQ(v.decode(cat(the_cat, {joined, 0, joined})), "the cat under under");
  EXPECT_EQ(v.decode(cat(cat(the_cat, {1}), sleeps)), "the cat sleeps");  // unk dropped
  EXPECT_EQ(v.decode(cat({id(">>fra<<")}, the_cat)), ">>fra<< the cat");  // not a special token
}

TEST_F(VocabLanguageTags, TheTagOfALanguageOrAnErrorListingTheVocabularysTags) {
  const Vocab v = vocab();
  EXPECT_EQ(v.language_tags(), (std::vector<std::string>{">>fra<<", ">>spa<<"}));
  EXPECT_EQ(language_tag_codes(v.language_tags()), (std::vector<std::string>{"fra", "spa"}));
  EXPECT_EQ(v.language_tag("fra"), ">>fra<<");
  try {
    v.language_tag("deu");
    FAIL() << "no >>deu<< in the vocabulary";
  } catch (const Error& e) {
    const std::string m = e.what();
    for (const char* part : {">>deu<<", ">>fra<< >>spa<<"})
      EXPECT_NE(m.find(part), std::string::npos) << m;
  }
  try {
    Vocab(path_).language_tag("fra");
    FAIL() << "a vocabulary without tags";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a multilingual model"), std::string::npos)
        << e.what();
  }
}

TEST(LanguageTagCodes, TheLanguageBetweenTheMarksAndNothingForOtherPieces) {
  EXPECT_EQ(language_tag_codes({">>pt_BR<<", "▁the", "><", ">><<", ">>zho_Hant<<"}),
            (std::vector<std::string>{"pt_BR", "zho_Hant"}));
}

TEST(WithLanguageTag, PrefixesNonBlankLinesOnly) {
  EXPECT_EQ(with_language_tag(">>fra<<", "the cat"), ">>fra<< the cat");
  EXPECT_EQ(with_language_tag(">>fra<<", " \t"), " \t");
  EXPECT_EQ(with_language_tag("", "the cat"), "the cat");
}

}  // namespace
}  // namespace realmt::data
