// realmt-bleu's test sets (-t/-l, --echo, --list), the cache realmt-data testsets fills (from SGM
// and from plain text) and the SentencePiece tokenizers. regression/bleu checks the same against
// sacreBLEU itself; these pin the behaviour without Python.
#include <gtest/gtest.h>
#include <sentencepiece_trainer.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../common/temp_dir.h"
#include "core/error.h"
#include "metrics/bleu.h"
#include "metrics/cli.h"
#include "metrics/cli_options.h"
#include "metrics/spm_tokenizer.h"
#include "metrics/test_set_cache.h"
#include "metrics/test_sets.h"
#include "metrics/text_io.h"

namespace realmt::metrics {
namespace {

namespace fs = std::filesystem;

// Points $SACREBLEU at a fresh directory for one test and restores it afterwards.
class CacheEnv {
 public:
  explicit CacheEnv(const std::string& dir) {
    if (const char* old = std::getenv("SACREBLEU")) old_ = old;
    setenv("SACREBLEU", dir.c_str(), 1);
  }
  ~CacheEnv() {
    if (old_)
      setenv("SACREBLEU", old_->c_str(), 1);
    else
      unsetenv("SACREBLEU");
  }

 private:
  std::optional<std::string> old_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs the CLI; returns stdout, or "exit N: message" when it stops with CliExit.
std::string cli(const std::vector<std::string>& args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out;
  try {
    run_cli(parse_cli(args), in, out);
  } catch (const CliExit& e) {
    return "exit " + std::to_string(e.code) + ": " + e.message;
  }
  return out.str();
}

TEST(TestSets, CachePathsFollowSacreBleu) {
  const TestSet* full = find_test_set("wmt14/full");
  ASSERT_NE(full, nullptr);
  EXPECT_EQ(test_set_file("/c", *full, "en-fr", "ref"), "/c/wmt14/full/wmt14_full.en-fr.ref");
  EXPECT_EQ(test_set_file("/c", *find_test_set("wmt13"), "fr-en", "ref:A"),
            "/c/wmt13/wmt13.fr-en.ref-A");
  EXPECT_EQ(find_test_set("wmt14")->fields(),
            (std::vector<std::string>{"src", "ref", "docid", "genre", "origlang"}));
  EXPECT_EQ(find_test_set("wmt08")->fields(), (std::vector<std::string>{"src", "ref"}));
  EXPECT_EQ(find_test_set("wmt19"), nullptr);
  const CacheEnv env("/some/where");
  EXPECT_EQ(sacrebleu_cache_dir(), "/some/where");
}

TEST(TestSets, SgmLinesAsSacreBleuConvertsThem) {
  // _clean: strip, runs of Python whitespace (tab, NBSP, ideographic space) -> one space.
  EXPECT_EQ(sacrebleu_clean(" a \t b\xC2\xA0\xC2\xA0"
                            "c\xE3\x80\x80 "),
            "a b c");
  EXPECT_EQ(sgm_segment_text("<seg id=\"1\"> Hello   world </seg>\n"), "Hello world");
  EXPECT_EQ(sgm_segment_text("<seg id=\"2\">x &amp; y</seg> tail"),
            "x &amp; y tail");  // no entity decoding
  EXPECT_EQ(sgm_segment_text("<seg id=\"3\">a</seg> b </seg>"),
            "a</seg> b");  // greedy to the last </seg>
  EXPECT_EQ(sgm_segment_text("<seg id=\"4\">unclosed"), "<seg id=\"4\">unclosed");
  EXPECT_EQ(sgm_segment_text("<p>"), std::nullopt);
  EXPECT_EQ(sgm_segment_text(" <seg id=\"5\">x</seg>"), std::nullopt);  // must start the line
  EXPECT_EQ(sgm_doc_attribute(
                "<doc sysid=\"ref\" docid=\"1012-bbc\" genre=\"news\" origlang=\"en\">", "docid"),
            "1012-bbc");
  EXPECT_EQ(sgm_doc_attribute("<doc docid=\"a\">", "origlang"), std::nullopt);
  EXPECT_EQ(sgm_doc_attribute("<seg docid=\"a\">", "docid"), std::nullopt);
}

TEST(TestSets, FillFromSgmWritesEveryFieldAndFromPlainTextOnlySrcRef) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "from/test-full");
  dir.write("from/test-full/newstest2014-fren-src.en.sgm",
            "<srcset setid=\"newstest2014\" srclang=\"any\">\n"
            "<doc sysid=\"ref\" docid=\"d1\" genre=\"news\" origlang=\"fr\">\n"
            "<seg id=\"1\">One  sentence.</seg>\n<seg id=\"2\">\tTwo\xC2\xA0:</seg>\r\n</doc>\n"
            "<doc sysid=\"ref\" docid=\"d2\" origlang=\"en\">\n<seg "
            "id=\"1\">Three</seg>\n</doc>\n</srcset>\n");
  dir.write(
      "from/test-full/newstest2014-fren-ref.fr.sgm",
      "<refset>\n<doc docid=\"d1\">\n<seg id=\"1\">Une phrase.</seg>\n<seg id=\"2\">Deux :</seg>\n"
      "</doc>\n<doc docid=\"d2\">\n<seg id=\"1\">Trois</seg>\n</doc>\n</refset>\n");
  const std::string cache = dir.file("cache");
  const TestSetCacheReport r = fill_test_set_cache({dir.file("from")}, cache, {"wmt14"});
  ASSERT_EQ(r.filled.size(), 1u);  // en-fr from SGM; fr-en has no files here
  EXPECT_TRUE(r.filled[0].sgm);
  EXPECT_EQ(r.filled[0].segments, 3u);
  EXPECT_EQ(r.missing, (std::vector<std::string>{"wmt14 fr-en"}));
  const std::string base = cache + "/wmt14/wmt14.en-fr.";
  EXPECT_EQ(slurp(base + "src"), "One sentence.\nTwo :\nThree\n");
  EXPECT_EQ(slurp(base + "ref"), "Une phrase.\nDeux :\nTrois\n");
  EXPECT_EQ(slurp(base + "docid"), "d1\nd1\nd2\n");
  EXPECT_EQ(slurp(base + "genre"),
            "news\nnews\nnews\n");  // kept from the previous <doc>, as sacreBLEU does
  EXPECT_EQ(slurp(base + "origlang"), "fr\nfr\nen\n");

  // Plain text replaces it and removes the document fields, which would no longer line up.
  fs::create_directories(dir.path() / "plain");
  dir.write("plain/newstest2014.en", " Spaced  out \nnext\n");
  dir.write("plain/newstest2014.fr", "espac\xC3\xA9\xC2\xA0!\nsuivant\n");
  const TestSetCacheReport p = fill_test_set_cache({dir.file("plain")}, cache, {"wmt14"});
  ASSERT_EQ(p.filled.size(), 2u);
  EXPECT_FALSE(p.filled[0].sgm);
  EXPECT_EQ(slurp(base + "src"), "Spaced out\nnext\n");
  EXPECT_EQ(slurp(base + "ref"), "espac\xC3\xA9 !\nsuivant\n");
  EXPECT_FALSE(fs::exists(base + "docid"));
  EXPECT_EQ(slurp(cache + "/wmt14/wmt14.fr-en.ref"), "Spaced out\nnext\n");
}

TEST(TestSets, FillErrorsNameTheFiles) {
  testing::TempDir dir;
  dir.write("newstest2013.en", "a\nb\n");
  dir.write("newstest2013.fr", "a\n");
  try {
    fill_test_set_cache({dir.path().string()}, dir.file("cache"), {"wmt13"});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("newstest2013.en has 2 segments"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(fill_test_set_cache({dir.path().string()}, dir.file("cache"), {"wmt99"}), Error);
  EXPECT_THROW(fill_test_set_cache({dir.file("nope")}, dir.file("cache"), {}), Error);
}

TEST(TestSets, CliScoresAgainstTheCachedReferenceAsAgainstTheFile) {
  testing::TempDir dir;
  dir.write("newstest2014.en", "The cat sat .\nA dog ran\n");
  dir.write("newstest2014.fr", "Le chat est assis .\nUn chien courait\n");
  const std::string hyp = dir.write("hyp", "Le chat assis .\nUn chien court\n");
  const CacheEnv env(dir.file("cache"));
  fill_test_set_cache({dir.path().string()}, dir.file("cache"), {"wmt14", "wmt14/full"});
  const std::string with_file =
      cli({dir.file("newstest2014.fr"), "-i", hyp, "-m", "bleu", "chrf", "-f", "text"});
  EXPECT_EQ(cli({"-t", "wmt14", "-l", "en-fr", "-i", hyp, "-m", "bleu", "chrf", "-f", "text"}),
            with_file);
  EXPECT_NE(with_file.find("BLEU|nrefs:1|"), std::string::npos) << with_file;
  // Two test sets are concatenated.
  const std::string twice =
      cli({"-t", "wmt14,wmt14/full", "-l", "en-fr", "-b"}, slurp(hyp) + slurp(hyp));
  EXPECT_EQ(twice.find("exit"), std::string::npos) << twice;
  EXPECT_EQ(cli({"-t", "wmt14", "-l", "en-fr", "--echo", "src", "ref"}),
            "The cat sat .\tLe chat est assis .\nA dog ran\tUn chien courait\n");
  // The fields in the cache: from plain text, no document fields.
  EXPECT_EQ(cli({"-t", "wmt14", "-l", "fr-en", "--list"}), "fr-en: src, ref\n");
  const std::string list = cli({"--list", "-l", "en-fr"});
  EXPECT_EQ(list.substr(0, list.find('\n')), "The available test sets for en-fr are:");
  EXPECT_NE(list.find("wmt14/full                    : Evaluation data released"),
            std::string::npos)
      << list;
}

TEST(TestSets, CliErrorsAsSacreBleu) {
  testing::TempDir dir;
  const CacheEnv env(dir.file("cache"));
  const std::string ref = dir.write("ref", "x\n");
  EXPECT_EQ(cli({"-t", "wmt14"}, "x\n").substr(0, 7), "exit 1:");                 // no -l
  EXPECT_EQ(cli({"-t", "wmt14", "-l", "de-en"}, "x\n").substr(0, 7), "exit 1:");  // unknown pair
  EXPECT_EQ(cli({"-t", "wmt99", "-l", "en-fr"}, "x\n").substr(0, 7), "exit 1:");  // unknown set
  EXPECT_EQ(cli({ref, "-t", "wmt14", "-l", "en-fr"}, "x\n").substr(0, 7), "exit 1:");  // both
  EXPECT_EQ(cli({"-t", "wmt14", "-l", "en-fr", "-nr", "2"}, "x\n").substr(0, 7), "exit 1:");
  EXPECT_EQ(cli({ref, "--echo", "src"}).substr(0, 7), "exit 1:");
  // A set absent from the cache is sacreBLEU's unknown set, with where to get it.
  const std::string missing = cli({"-t", "wmt14", "-l", "en-fr"}, "x\n");
  EXPECT_EQ(missing.substr(0, missing.find('\n')), "exit 1: Unknown test set 'wmt14'") << missing;
  EXPECT_NE(missing.find("the cache " + dir.file("cache")), std::string::npos) << missing;
  EXPECT_NE(missing.find("realmt-data testsets --from DIR"), std::string::npos) << missing;
  EXPECT_NE(missing.find("tools/prepare-wmt14-enfr"), std::string::npos) << missing;
  fs::create_directories(dir.path() / "cache/wmt14");
  dir.write("cache/wmt14/wmt14.en-de.ref", "x\n");
  EXPECT_EQ(
      cli({"-t", "wmt14", "-l", "en-fr"}, "x\n"),
      "exit 1: No such language pair 'en-fr'\nAvailable language pairs for 'wmt14' are:\n > en-de");
  try {
    parse_cli({"--origlang", "fr"});
    FAIL();
  } catch (const CliExit& e) {
    EXPECT_EQ(e.code, 1);  // argparse takes it; realmt-bleu refuses the feature
    EXPECT_NE(e.message.find("--origlang"), std::string::npos);
  }
}

TEST(TestSets, AnySetAndPairInTheCacheWithSacreBleusFieldsAndReferences) {
  testing::TempDir dir;
  for (const char* sub : {"cache/wmt17/tworefs", "cache/wmt22/raw", "cache/models"})
    fs::create_directories(dir.path() / sub);
  const CacheEnv env(dir.file("cache"));
  for (const char* f : {"origlang", "ref-1", "src", "genre", "ref-0", "docid"}) {
    dir.write(std::string("cache/wmt17/tworefs/wmt17_tworefs.en-fi.") + f, std::string(f) + "\n");
  }
  dir.write("cache/wmt22/wmt22.cs-en.ref-A", "A\n");
  dir.write("cache/wmt22/wmt22.cs-en.ref-B", "B\n");
  dir.write("cache/wmt22/wmt22.cs-en.src", "s\n");
  dir.write("cache/wmt22/raw/wmt22.tgz", "");
  dir.write("cache/models/sacrebleu_tokenizer_spm.model", "");
  const auto two = find_cached_test_set(dir.file("cache"), "wmt17/tworefs");
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->fields.at("en-fi"),
            (std::vector<std::string>{"src", "ref:0", "ref:1", "docid", "genre", "origlang"}));
  EXPECT_EQ(two->reference_fields("en-fi"), (std::vector<std::string>{"ref:0", "ref:1"}));
  EXPECT_EQ(two->file("en-fi", "ref:1"),
            dir.file("cache") + "/wmt17/tworefs/wmt17_tworefs.en-fi.ref-1");
  // sacreBLEU scores wmt22 cs-en against translator B only.
  EXPECT_EQ(find_cached_test_set(dir.file("cache"), "wmt22")->reference_fields("cs-en"),
            std::vector<std::string>{"ref:B"});
  EXPECT_EQ(cached_test_set_names(dir.file("cache")),
            (std::vector<std::string>{"wmt17/tworefs", "wmt22"}));
  EXPECT_FALSE(find_cached_test_set(dir.file("cache"), "wmt17").has_value());
  EXPECT_FALSE(find_cached_test_set(dir.file("cache"), "../cache/wmt22").has_value());
  EXPECT_EQ(cli({"-t", "wmt17/tworefs", "-l", "en-fi", "--echo", "ref", "src"}), "ref-0\tsrc\n");
  const std::string one_ref = cli({"-t", "wmt22", "-l", "cs-en", "-f", "text"}, "B\n");
  EXPECT_EQ(one_ref.substr(0, 13), "BLEU|nrefs:1|") << one_ref;
}

TEST(SpmTokenizer, MissingModelNamesTheFileAndTheUrl) {
  testing::TempDir dir;
  const CacheEnv env(dir.path().string());
  BleuOptions o;
  o.tokenizer = parse_tokenizer("flores200");
  try {
    Bleu b(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(dir.file("models/flores200sacrebleuspm") + " not found"), std::string::npos)
        << m;
    EXPECT_NE(m.find("https://tinyurl.com/flores200sacrebleuspm"), std::string::npos) << m;
  }
}

TEST(SpmTokenizer, PiecesJoinedBySpacesAndSignedAsSacreBleu) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 200; ++i)
    text += "the quick brown fox jumps over the lazy dog " + std::to_string(i % 7) + "\n";
  const std::string corpus = dir.write("corpus.txt", text);
  fs::create_directories(dir.path() / "models");
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + corpus + " --model_prefix=" + dir.file("models/m") +
      " --vocab_size=60 --hard_vocab_limit=false --minloglevel=2");
  ASSERT_TRUE(status.ok()) << status.ToString();
  fs::copy_file(dir.file("models/m.model"), dir.file("models/sacrebleu_tokenizer_spm.model"));
  const CacheEnv env(dir.path().string());
  for (const char* name : {"spm", "flores101"}) {
    BleuOptions o;
    o.tokenizer = parse_tokenizer(name);
    Bleu b(o);
    const std::string tok = b.preprocess("the lazy fox  ");
    EXPECT_NE(tok.find("\xE2\x96\x81"), std::string::npos)
        << tok;  // '▁' starts each word's first piece
    EXPECT_EQ(tok.find("  "), std::string::npos) << tok;
    std::string joined;
    for (char c : tok) joined += c == ' ' ? "" : std::string(1, c);
    EXPECT_EQ(joined,
              "\xE2\x96\x81the\xE2\x96\x81lazy\xE2\x96\x81"
              "fox")
        << tok;
    EXPECT_NE(b.signature().format(false).find("tok:flores101"), std::string::npos);
  }
}

}  // namespace
}  // namespace realmt::metrics
