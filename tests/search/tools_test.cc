// Checkpoint averaging, batching, and the n-best / alignment formats.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "models/checkpoint.h"
#include "models/safetensors.h"
#include "models/average.h"
#include "search/output_format.h"
#include "search/translator.h"
#include "tiny_model.h"

namespace realmt::search {
namespace {

std::string temp(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

void save(const models::Transformer& m, const std::string& path) {
  models::save_parameters(path, m.params(), {{models::kConfigKey, m.config().to_yaml()}});
}

TEST(Average, TwoIdenticalCheckpointsGiveTheSameWeightsBitForBit) {
  const auto m = test::tiny_model(3);
  const std::string a = temp("realmt_avg_a.safetensors"), out = temp("realmt_avg_out.safetensors");
  save(*m, a);
  const models::AverageReport r = models::average_checkpoints({a, a}, out);
  EXPECT_EQ(r.checkpoints, 2u);
  const models::SafetensorsFile fa = models::load_safetensors(a),
                                fo = models::load_safetensors(out);
  ASSERT_EQ(fa.names, fo.names);
  for (const std::string& n : fa.names) {
    const Tensor x = fa.get(n), y = fo.get(n);
    ASSERT_EQ(x.shape(), y.shape());
    EXPECT_EQ(std::memcmp(x.raw(), y.raw(), x.nbytes()), 0) << n;
  }
  EXPECT_EQ(fo.metadata.at(models::kConfigKey), m->config().to_yaml());
  std::filesystem::remove(a);
  std::filesystem::remove(out);
}

TEST(Average, IsTheElementWiseMeanAndRefusesOtherArchitectures) {
  const auto m1 = test::tiny_model(3), m2 = test::tiny_model(4), other = test::tiny_model(5, 9);
  const std::string a = temp("realmt_avg_1.safetensors"), b = temp("realmt_avg_2.safetensors"),
                    c = temp("realmt_avg_3.safetensors"), out = temp("realmt_avg_o.safetensors");
  save(*m1, a);
  save(*m2, b);
  save(*other, c);
  models::average_checkpoints({a, b}, out);
  const models::SafetensorsFile fo = models::load_safetensors(out);
  const std::string name = "decoder.layers.1.ffn.w1.weight";
  const int i = m1->params().index(name);
  const Tensor x = m1->params()[i].value(), y = m2->params()[i].value(), z = fo.get(name);
  for (int64_t e = 0; e < x.numel(); e += 7)
    EXPECT_FLOAT_EQ(static_cast<float>(z.at(e)), static_cast<float>((x.at(e) + y.at(e)) / 2)) << e;
  EXPECT_THROW(models::average_checkpoints({a, c}, out), Error);
  EXPECT_THROW(models::average_checkpoints({a, a}, a), Error);  // output would overwrite an input
  for (const auto& p : {a, b, c, out}) std::filesystem::remove(p);
}

TEST(Batching, SortsByLengthAndKeepsEveryLimit) {
  const std::vector<size_t> lengths{5, 1, 9, 3, 3, 7, 2, 8};
  BatchingOptions b;
  b.mini_batch = 3;
  b.mini_batch_words = 20;  // (sentences) x (longest + eos) <= 20
  std::vector<bool> seen(lengths.size(), false);
  size_t previous_max = 0;
  for (const auto& batch : make_batches(lengths, b)) {
    ASSERT_FALSE(batch.empty());
    EXPECT_LE(batch.size(), 3u);
    size_t longest = 0;
    for (size_t i : batch) {
      EXPECT_FALSE(seen[i]);
      seen[i] = true;
      EXPECT_GE(lengths[i], previous_max);
      longest = std::max(longest, lengths[i] + 1);
    }
    EXPECT_LE(batch.size() * longest, 20u);
    previous_max = longest - 1;
  }
  for (bool s : seen) EXPECT_TRUE(s);
}

TEST(Format, NBestLinesRoundTripAndAlignmentsFollowTheirDefinition) {
  Hypothesis h;
  h.tokens = {7, 8};
  h.score = -1.25;
  h.model_log_probs = {-2.5, -3};
  h.alignment = {{0.1f, 0.7f, 0.2f}, {0.2f, 0.1f, 0.7f}, {0.6f, 0.3f, 0.1f}};  // last row: eos
  EXPECT_EQ(format_nbest(3, "a b", h, AlignmentKind::kNone),
            "3 ||| a b ||| F0= -2.5 F1= -3 ||| -1.25");
  EXPECT_EQ(format_alignment(h, AlignmentKind::kHard), "1-0");  // token 1 attends the source eos
  EXPECT_EQ(format_alignment(h, AlignmentKind::kSoft), "0.1,0.7,0.2 0.2,0.1,0.7 0.6,0.3,0.1");
  const std::string line = format_nbest(3, "a b", h, AlignmentKind::kHard);
  const NBestEntry e = parse_nbest(line, "x:1");
  EXPECT_EQ(e.id, 3u);
  EXPECT_EQ(e.text, "a b");
  EXPECT_EQ(e.features, "F0= -2.5 F1= -3");
  EXPECT_EQ(format_nbest(e), line);
  EXPECT_THROW(parse_nbest("x ||| a ||| F0= 1 ||| 2", "x:2"), Error);
  EXPECT_THROW(parse_nbest("1 ||| a", "x:3"), Error);
}

}  // namespace
}  // namespace realmt::search
