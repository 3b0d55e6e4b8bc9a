// realmt-translate and realmt-score read Marian's decoder options: implicit values, alignment
// thresholds, stdin/stdout, max-length on the input, short options, options without effect.
#include <gtest/gtest.h>

#include <sstream>

#include "common/options.h"
#include "core/error.h"
#include "search/decode_options.h"
#include "search/output_format.h"
#include "search/translator.h"

namespace realmt::search {
namespace {

template <typename Options>
bool parse(Options& o, const std::string& program, std::vector<std::string> args) {
  OptionSet set(program, "test");
  o.declare(set);
  std::vector<const char*> argv{"x"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream os;
  return set.parse(static_cast<int>(argv.size()), argv.data(), os);
}

TEST(MarianDecoder, RecipeCommandLine) {
  // marian-examples transformer/run-me.sh: marian-decoder -c model/model.npz.decoder.yml
  //   -m model/model.iter$ITER.npz -d $GPUS -b 12 -n -w 6000
  TranslateOptions o;
  ASSERT_TRUE(
      parse(o, "realmt-translate",
            {"-m", "m.npz", "-v", "v.spm", "v.spm", "-d", "cpu", "-b", "12", "-n", "-w", "6000"}));
  EXPECT_EQ(o.beam_size, 12);
  EXPECT_DOUBLE_EQ(o.normalize, 1.0);
  EXPECT_EQ(o.model.devices, std::vector<std::string>{"cpu"});
  EXPECT_EQ(o.model.vocabs.size(), 2u);
  EXPECT_TRUE(is_stdin(o.input_path()));
  EXPECT_TRUE(is_stdout(o.output));
}

TEST(MarianDecoder, StdinAndStdoutByName) {
  TranslateOptions o;
  ASSERT_TRUE(parse(o, "realmt-translate", {"-m", "m", "-v", "v", "-i", "stdin", "-o", "stdout"}));
  EXPECT_TRUE(is_stdin(o.input_path()));
  EXPECT_TRUE(is_stdout(o.output));
  EXPECT_TRUE(is_stdin("-") && is_stdout("-"));
  EXPECT_FALSE(is_stdout("out.txt"));
  TranslateOptions p;
  EXPECT_THROW(parse(p, "realmt-translate", {"-m", "m", "-v", "v", "-i", "a.txt", "b.txt"}),
               UsageError);
}

TEST(MarianDecoder, AlignmentValues) {
  TranslateOptions o;
  ASSERT_TRUE(parse(o, "realmt-translate", {"-m", "m", "-v", "v", "--alignment"}));
  EXPECT_EQ(o.alignment_choice().kind, AlignmentKind::kHard);
  EXPECT_EQ(o.alignment_choice().threshold, 1.0);
  TranslateOptions p;
  ASSERT_TRUE(parse(p, "realmt-translate", {"-m", "m", "-v", "v", "--alignment", "0.2"}));
  EXPECT_EQ(p.alignment_choice().threshold, 0.2);
  EXPECT_EQ(parse_alignment_choice("soft").kind, AlignmentKind::kSoft);
  TranslateOptions q;
  EXPECT_THROW(parse(q, "realmt-translate", {"-m", "m", "-v", "v", "--alignment", "1.5"}),
               UsageError);
  // A threshold prints every pair attended above it (source eos excepted).
  Hypothesis h;
  h.tokens = {7, 8};
  h.alignment = {{0.5f, 0.4f, 0.1f}, {0.3f, 0.25f, 0.45f}, {0.1f, 0.1f, 0.8f}};
  EXPECT_EQ(format_alignment(h, AlignmentKind::kHard, 0.2), "0-0 1-0 0-1 1-1");
  EXPECT_EQ(format_alignment(h, AlignmentKind::kHard, 0.35), "0-0 1-0");
  EXPECT_EQ(format_alignment(h, AlignmentKind::kHard), "0-0");
}

TEST(MarianDecoder, MaxLengthLimitsTheInput) {
  // As Marian: max-length counts the source's subwords and eos; longer sources are cropped with
  // max-length-crop, else left untranslated (their line empty).
  TranslateOptions o;
  ASSERT_TRUE(parse(o, "realmt-translate", {"-m", "m", "-v", "v", "--max-length", "4"}));
  EXPECT_EQ(o.batching().max_length, 4);
  EXPECT_FALSE(o.batching().max_length_crop);
  EXPECT_EQ(o.search().max_length, SearchOptions{}.max_length)
      << "the output limit is max-length-factor's";
  // translate_lines on real text: regression/marian/marian_cli.sh (empty lines, warnings,
  // cropping).
}

TEST(MarianDecoder, ScorerOptions) {
  ScoreCliOptions o;
  ASSERT_TRUE(parse(o, "realmt-score",
                    {"-m", "m", "-v", "v", "v", "-t", "a", "b", "-n", "--summary", "-w", "3000"}));
  EXPECT_DOUBLE_EQ(o.normalize, 1.0);
  EXPECT_EQ(o.summary, "cross-entropy");
  EXPECT_TRUE(is_stdout(o.output));
  ScoreCliOptions p;
  EXPECT_THROW(
      parse(p, "realmt-score", {"-m", "m", "-v", "v", "-t", "a", "b", "--max-length-crop"}),
      UsageError);
}

TEST(MarianDecoder, GemmTypeIsQuantize) {
  for (const char* t :
       {"int8", "int8tuned", "intgemm8", "intgemm8ssse3", "intgemm8avx2", "intgemm8avx512",
        "intgemm8avx512vnni", "intgemm8tuned", "packed8avx2", "packed8avx512"})
    EXPECT_EQ(parse_marian_gemm(t), MarianGemm::kInt8) << t;
  for (const char* t : {"intgemm16", "intgemm16avx2", "packed16", "int16"})
    EXPECT_EQ(parse_marian_gemm(t), MarianGemm::kInt16) << t;
  EXPECT_EQ(parse_marian_gemm("float32"), MarianGemm::kFloat32);
  EXPECT_THROW(parse_marian_gemm("float16"), UsageError);
  TranslateOptions o;
  ASSERT_TRUE(parse(o, "realmt-translate", {"-m", "m", "-v", "v", "-g", "intgemm8avx2"}));
  EXPECT_EQ(o.model.quantize, search::Quantize::kInt8);
  ScoreCliOptions p;
  ASSERT_TRUE(
      parse(p, "realmt-score",
            {"-m", "m", "-v", "v", "-t", "a", "b", "-g", "intgemm8", "--quantize", "none"}));
  EXPECT_EQ(p.model.quantize, search::Quantize::kNone) << "quantize given explicitly wins";
}

TEST(MarianDecoder, OptionsWithoutEffectAndRefused) {
  TranslateOptions o;
  EXPECT_TRUE(parse(o, "realmt-translate",
                    {"-m", "m", "-v", "v", "--quiet-translation", "--seed", "5", "-w", "100",
                     "--maxi-batch-sort", "none", "--relative-paths", "false"}));
  EXPECT_TRUE(o.quiet_translation);
  TranslateOptions p;
  try {
    parse(p, "realmt-translate", {"-m", "m", "-v", "v", "--word-scores"});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("realmt-score --word-scores"), std::string::npos)
        << e.what();
  }
  TranslateOptions q;
  EXPECT_THROW(parse(q, "realmt-translate", {"-m", "m", "-v", "v", "--relative-paths"}),
               UsageError);
}

}  // namespace
}  // namespace realmt::search
