// Mixed precision on the CPU: the master/compute arena logic with an f64 master and an f32
// compute copy (the same code path as f32 master + bf16/f16 compute on a GPU), dynamic loss
// scaling with real overflows, and the loss-scale bookkeeping.
#include <gtest/gtest.h>

#include <cmath>

#include "models/transformer.h"
#include "ops/cast.h"
#include "mixed_train.h"
#include "reverse_task.h"
#include "training/mixed_precision.h"
#include "training/trainer.h"

namespace realmt::training {
namespace {

models::ModelConfig tiny_config() {
  models::ModelConfig c;
  c.vocab_size = test::kVocab;
  c.enc_depth = 1;
  c.dec_depth = 1;
  c.dim_emb = 32;
  c.heads = 4;
  c.dim_ffn = 64;
  c.dropout = 0.0;
  c.admin_init = models::AdminInit::kClosedForm;
  return c;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> v(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = t.at(i);
  return v;
}

// Every compute weight is the master weight rounded to the compute dtype.
void expect_compute_is_cast_of_master(const models::Transformer& master,
                                      const models::Transformer& compute) {
  const Arena& m = master.params().values();
  const Arena& c = compute.params().values();
  ASSERT_EQ(m.size(), c.size());
  for (int i = 0; i < m.size(); ++i) {
    ASSERT_EQ(c[i].dtype(), DType::kF32);
    EXPECT_EQ(values(c[i]), values(ops::cast(m[i], DType::kF32))) << master.params().names()[i];
  }
}

// An f32 model holding the master's weights rounded to f32: the reference for the compute copy.
std::unique_ptr<models::Transformer> f32_twin(const models::Transformer& master) {
  auto twin = std::make_unique<models::Transformer>(master.config());
  twin->allocate(Device::cpu(), DType::kF32);
  for (int i = 0; i < master.params().size(); ++i)
    twin->params().values()[i].copy_from(ops::cast(master.params().values()[i], DType::kF32));
  return twin;
}

struct Fixture : ::testing::Test {
  models::Transformer master{tiny_config()};
  Generator data{5};
  void SetUp() override {
    master.allocate(Device::cpu(), DType::kF64);
    master.init(3);
  }
};

using MixedPrecisionCpu = Fixture;

TEST_F(MixedPrecisionCpu, ComputeCopyHoldsTheMasterWeightsInItsDtype) {
  MixedPrecision mp(master, {.compute = DType::kF32});
  ASSERT_TRUE(mp.has_compute_copy());
  expect_compute_is_cast_of_master(master, mp.compute_model());
  // A change of the master reaches the copy only through refresh().
  const Tensor& w = master.params().values()[0];
  w.copy_from(ops::cast(Tensor::full(w.shape(), 0.125, DType::kF32), DType::kF64));
  EXPECT_NE(mp.compute_model().params().values()[0].at(0), 0.125);
  mp.refresh();
  expect_compute_is_cast_of_master(master, mp.compute_model());
}

TEST_F(MixedPrecisionCpu, GradientsReachTheMasterArenaAndAccumulateAcrossBatches) {
  MixedPrecision mp(master, {.compute = DType::kF32});
  const test::ReverseBatch b1 = test::make_reverse_batch(data, 8, 3, 6);
  const test::ReverseBatch b2 = test::make_reverse_batch(data, 8, 3, 6);
  // Reference: the same f32 computation on a twin, one batch at a time.
  auto twin = f32_twin(master);
  auto grads_of = [&](const test::ReverseBatch& b) {
    twin->params().zero_grad();
    graph::backward(twin->loss(b.src, b.tgt_in, b.tgt_out, 0.1, {}).loss);
    return values(twin->params().grads().flat());
  };
  const std::vector<double> g1 = grads_of(b1), g2 = grads_of(b2);
  auto master_grads = [&] {
    // The master arena is laid out for f64; compare slot by slot through the twin's layout.
    std::vector<double> out(g1.size(), 0.0);
    const Arena& m = master.params().grads();
    const Arena& t = twin->params().grads();
    for (int i = 0; i < m.size(); ++i) {
      const int64_t offset =
          (static_cast<const char*>(t[i].raw()) - static_cast<const char*>(t.flat().raw())) / 4;
      for (int64_t e = 0; e < m[i].numel(); ++e) out[offset + e] = m[i].at(e);
    }
    return out;
  };

  // First batch of an update overwrites (stale values in the master gradients are ignored).
  master.params().grads().flat().copy_from(
      Tensor::full({master.params().grads().elements()}, 7.0, DType::kF64));
  const models::LossOutput out1 = mp.compute_model().loss(b1.src, b1.tgt_in, b1.tgt_out, 0.1, {});
  EXPECT_EQ(out1.loss.dtype(), DType::kF32);
  mp.backward(out1.loss, /*first=*/true);
  const std::vector<double> after1 = master_grads();
  int nonzero = 0;
  for (size_t i = 0; i < g1.size(); ++i) {
    ASSERT_EQ(after1[i], g1[i]) << "element " << i;  // f32 -> f64 is exact
    nonzero += g1[i] != 0;
  }
  EXPECT_GT(nonzero, static_cast<int>(g1.size() / 2));
  // The compute copy's own gradients were handed over and zeroed.
  for (double g : values(mp.compute_model().params().grads().flat())) ASSERT_EQ(g, 0.0);

  // Second batch adds in the master's precision.
  mp.backward(mp.compute_model().loss(b2.src, b2.tgt_in, b2.tgt_out, 0.1, {}).loss,
              /*first=*/false);
  const std::vector<double> after2 = master_grads();
  for (size_t i = 0; i < g1.size(); ++i) ASSERT_EQ(after2[i], g1[i] + g2[i]) << "element " << i;
}

TEST_F(MixedPrecisionCpu, TrainingThroughTheCopyTracksMasterPrecisionTraining) {
  // Reference: the same updates entirely in f64.
  models::Transformer ref(tiny_config());
  ref.allocate(Device::cpu(), DType::kF64);
  ref.init(3);
  MixedPrecision plain(ref, {DType::kF64, false, {}});
  EXPECT_FALSE(plain.has_compute_copy());
  const std::vector<double> want = test::train_mixed(ref, plain, 30, 11);

  MixedPrecision mp(master, {.compute = DType::kF32});
  const std::vector<double> got = test::train_mixed(master, mp, 30, 11);
  expect_compute_is_cast_of_master(master, mp.compute_model());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-4 * want[i]) << "update " << i + 1;
  EXPECT_LT(got.back(), got.front() - 0.3);  // it learns
}

TEST_F(MixedPrecisionCpu, LossScalingSkipsOverflowedUpdatesAndHalvesTheScale) {
  // 2^126 makes the scaled f32 gradients overflow: those updates must be skipped, leaving the
  // master untouched, until the halved scale fits.
  MixedPrecisionOptions o{.compute = DType::kF32, .loss_scaling = true};
  o.loss_scale.initial = std::ldexp(1.0, 126);
  o.loss_scale.min = 1.0;
  MixedPrecision mp(master, o);
  const std::vector<double> before = values(master.params().values().flat());
  Generator data(21);
  const test::ReverseBatch b = test::make_reverse_batch(data, 16, 3, 6);
  const models::LossOutput out = mp.compute_model().loss(b.src, b.tgt_in, b.tgt_out, 0.1, {});
  mp.backward(out.loss, true);
  EXPECT_FALSE(std::isfinite(ops::sum_squares(master.params().grads().flat())));
  EXPECT_FALSE(mp.finish(ops::sum_squares(master.params().grads().flat())));
  EXPECT_EQ(mp.loss_scale(), std::ldexp(1.0, 125));
  EXPECT_EQ(mp.scaler()->skipped(), 1);

  int skipped = 0;
  const std::vector<double> losses = test::train_mixed(master, mp, 40, 21, &skipped);
  EXPECT_GE(skipped, 1);
  EXPECT_EQ(mp.scaler()->skipped(), skipped + 1);
  EXPECT_LE(mp.loss_scale(), std::ldexp(1.0, 124));  // halved at least once more
  ASSERT_GE(losses.size(), 20u);
  EXPECT_NE(values(master.params().values().flat()), before);
  EXPECT_LT(losses.back(), losses.front() - 0.3);  // the applied updates train normally
}

TEST_F(MixedPrecisionCpu, ScaledGradientsAreTheScaleTimesTheTrueOnes) {
  auto twin = f32_twin(master);
  Generator data(8);
  const test::ReverseBatch b = test::make_reverse_batch(data, 8, 3, 6);
  twin->params().zero_grad();
  graph::backward(twin->loss(b.src, b.tgt_in, b.tgt_out, 0.1, {}).loss);
  const std::vector<double> want = values(twin->params().grads().flat());
  // f32 master, no copy: the loss is scaled on the master itself. A power of two is exact.
  MixedPrecisionOptions o{.compute = DType::kF32, .loss_scaling = true};
  o.loss_scale.initial = 1024;
  MixedPrecision mp(*twin, o);
  EXPECT_FALSE(mp.has_compute_copy());
  twin->params().zero_grad();
  mp.backward(twin->loss(b.src, b.tgt_in, b.tgt_out, 0.1, {}).loss, true);
  const std::vector<double> got = values(twin->params().grads().flat());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 1024 * want[i]) << "element " << i;
  EXPECT_TRUE(mp.finish(ops::sum_squares(twin->params().grads().flat())));
}

TEST(LossScaler, HalvesOnOverflowDoublesAfterTheWindowAndStopsAtTheMinimum) {
  LossScaler s({.initial = 128, .window = 3, .min = 1.0});
  EXPECT_EQ(s.scale(), 128);
  EXPECT_TRUE(s.update(true));
  EXPECT_TRUE(s.update(true));
  EXPECT_FALSE(s.update(false));  // overflow: skip, halve, restart the window
  EXPECT_EQ(s.scale(), 64);
  EXPECT_EQ(s.skipped(), 1);
  EXPECT_TRUE(s.update(true));
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 64);
  EXPECT_TRUE(s.update(true));  // third clean update in a row: double
  EXPECT_EQ(s.scale(), 128);
  EXPECT_EQ(s.clean_run(), 0);
  s.restore(2, 1, 5);
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 1);
  EXPECT_EQ(s.skipped(), 6);
  try {
    s.update(false);
    FAIL() << "no error below the minimum scale";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("diverged"), std::string::npos) << e.what();
  }
}

TEST(Precision, NamesParseAndHalfPrecisionNeedsAGpu) {
  EXPECT_EQ(parse_enum<Precision>("bf16", "precision"), Precision::kBf16);
  EXPECT_EQ(compute_dtype(Precision::kF16), DType::kF16);
  EXPECT_EQ(compute_dtype(Precision::kTf32), DType::kF32);
  EXPECT_STREQ(enum_name(Precision::kTf32), "tf32");
  EXPECT_THROW(parse_enum<Precision>("fp8", "precision"), Error);
  for (const char* p : {"bf16", "f16", "tf32"}) {
    TrainOptions o;
    o.train_sets = {"missing.src", "missing.tgt"};
    o.vocabs = {"missing.spm"};
    o.precision = {parse_enum<Precision>(p, "precision")};
    try {
      Trainer t(o);
      FAIL() << "precision " << p << " accepted on the CPU";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("needs a CUDA device"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace realmt::training
