// The CUDA attention core (ops/attention_cuda.cu) against the CPU kernel beyond what the op
// harness's small cases reach: thousands of keys (several shared-memory chunks, logits
// recomputed in the second pass), the heads-major cache layout, no kept probabilities, and
// f16/bf16 against f32 on the same rounded inputs.
#include <cmath>

#include "cuda_test_util.h"
#include "ops/attention.h"
#include "ops/cast.h"

namespace realmt {
namespace {

using Op = ops::AttentionOperand;
using testing::expect_close;
using testing::uniform_values;

const Device kGpu = Device::cuda(0);

// Host f32 inputs of a cross-attention: q [B, Tq, D], kv [B, Tk, 2D] (K | V), key padding (row
// r: its last 5 r keys), residual scores, and the gradients that reach ctx and the scores.
struct Inputs {
  int64_t b, tq, tk, heads, dh;
  Tensor q, kv, mask, prev, dctx, dscores;
};

Inputs make_inputs(int64_t b, int64_t tq, int64_t tk, int64_t heads, int64_t dh) {
  const int64_t d = heads * dh;
  Inputs in;
  in.b = b;
  in.tq = tq;
  in.tk = tk;
  in.heads = heads;
  in.dh = dh;
  in.q = Tensor::from_vector(uniform_values(b * tq * d, -1.5f, 1.5f, 41), Shape{b, tq, d});
  in.kv = Tensor::from_vector(uniform_values(b * tk * 2 * d, -1.5f, 1.5f, 42), Shape{b, tk, 2 * d});
  std::vector<float> m(b * tk, 0.0f);
  for (int64_t r = 0; r < b; ++r)
    for (int64_t j = std::max<int64_t>(0, tk - 5 * r); j < tk; ++j) m[r * tk + j] = -INFINITY;
  in.mask = Tensor::from_vector(m, Shape{b, tk});
  in.prev =
      Tensor::from_vector(uniform_values(b * heads * tq * tk, -1, 1, 43), Shape{b, heads, tq, tk});
  in.dctx = Tensor::from_vector(uniform_values(b * tq * d, -1, 1, 44), Shape{b, tq, d});
  in.dscores =
      Tensor::from_vector(uniform_values(b * heads * tq * tk, -1, 1, 45), Shape{b, heads, tq, tk});
  return in;
}

ops::AttentionOptions options(const Inputs& in, bool causal, double dropout) {
  ops::AttentionOptions o;
  o.heads = in.heads;
  o.scale = 1.0 / std::sqrt(static_cast<double>(in.dh));
  o.score_scale = 0.5;
  o.causal = causal;
  o.keep_scores = true;
  o.dropout = dropout;
  o.seed = 77;
  o.offset = 13;
  return o;
}

// t in dtype dt on device.
Tensor on(const Tensor& t, DType dt, Device device) { return ops::cast(t, dt).to(device); }

struct Outputs {
  ops::AttentionResult fwd;
  Tensor dq, dkv, dprev;
};

// Forward and backward of the packed layout on `device` in `dt`; the backward uses `probs`
// when given (so that two devices can share one set of probabilities).
Outputs run(const Inputs& in, const ops::AttentionOptions& o, DType dt, Device device,
            const Tensor& probs = Tensor()) {
  const int64_t d = in.heads * in.dh;
  const Tensor q = on(in.q, dt, device), kv = on(in.kv, dt, device), mask = on(in.mask, dt, device);
  const Op qo = Op::packed(q, 0, in.heads, in.dh), ko = Op::packed(kv, 0, in.heads, in.dh),
           vo = Op::packed(kv, d, in.heads, in.dh);
  Outputs r;
  r.fwd = ops::attention(qo, ko, vo, mask, on(in.prev, dt, device), o);
  r.dq = Tensor::zeros(q.shape(), dt, device);
  r.dkv = Tensor::zeros(kv.shape(), dt, device);
  ops::AttentionGradTargets t{qo.over(r.dq), ko.over(r.dkv), vo.over(r.dkv),
                              Tensor::empty(r.fwd.probs.shape(), dt, device)};
  ops::attention_backward(on(in.dctx, dt, device), on(in.dscores, dt, device), qo, ko, vo,
                          probs.defined() ? on(probs, dt, device) : r.fwd.probs, mask, o, t);
  r.dprev = t.dprev;
  return r;
}

// Expects |got - want| <= tol (|want| + max |want|): errors relative to the tensor's scale.
void expect_scaled(const Tensor& got, const Tensor& want, double tol) {
  double scale = 0;
  for (double v : testing::as_doubles(want))
    if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
  expect_close(got, want, tol, tol * scale);
}

TEST(CudaAttention, ThousandsOfKeysMatchCpu) {
  REALMT_REQUIRE_CUDA();
  // 2100 keys: three chunks of shared memory; causal with Tq < Tk, padding, dropout.
  const Inputs in = make_inputs(2, 3, 2100, 2, 16);
  for (const double dropout : {0.0, 0.1}) {
    const ops::AttentionOptions o = options(in, true, dropout);
    const Outputs want = run(in, o, DType::kF32, Device::cpu());
    const Outputs got = run(in, o, DType::kF32, kGpu);
    SCOPED_TRACE(dropout);
    expect_scaled(got.fwd.ctx, want.fwd.ctx, 1e-5);
    expect_scaled(got.fwd.probs, want.fwd.probs, 1e-5);
    expect_close(got.fwd.scores, want.fwd.scores, 1e-5, 1e-5);
    expect_scaled(got.dprev, want.dprev, 1e-5);
    expect_scaled(got.dq, want.dq, 1e-4);
    expect_scaled(got.dkv, want.dkv, 1e-4);
  }
}

TEST(CudaAttention, HeadsMajorCacheWithoutProbabilitiesMatchesCpu) {
  REALMT_REQUIRE_CUDA();
  // Decoding: one query row against 1500 cached keys of a [B, H, 1600, Dh] cache; no scores or
  // probabilities kept, so the second pass recomputes the logits of two chunks.
  const int64_t b = 3, heads = 4, dh = 8, tk = 1500, cap = 1600;
  const Tensor q =
      Tensor::from_vector(uniform_values(b * heads * dh, -1, 1, 46), Shape{b, 1, heads * dh});
  const Tensor k = Tensor::from_vector(uniform_values(b * heads * cap * dh, -1, 1, 47),
                                       Shape{b, heads, cap, dh});
  const Tensor v = Tensor::from_vector(uniform_values(b * heads * cap * dh, -1, 1, 48),
                                       Shape{b, heads, cap, dh});
  ops::AttentionOptions o;
  o.heads = heads;
  o.scale = 1.0 / std::sqrt(static_cast<double>(dh));
  o.causal = true;
  o.keep_probs = false;
  auto ctx = [&](Device device) {
    const Tensor r =
        ops::attention(Op::packed(q.to(device), 0, heads, dh), Op::heads_major(k.to(device), tk),
                       Op::heads_major(v.to(device), tk), Tensor(), Tensor(), o)
            .ctx;
    return r;
  };
  expect_scaled(ctx(kGpu), ctx(Device::cpu()), 1e-5);
}

TEST(CudaAttention, HalfTypesTrackF32) {
  REALMT_REQUIRE_CUDA();
  const Inputs in = make_inputs(2, 37, 37, 2, 8);
  const ops::AttentionOptions o = options(in, true, 0.1);
  for (const DType dt : {DType::kF16, DType::kBF16}) {
    SCOPED_TRACE(dt);
    // The same rounded inputs in f32 on the CPU; the backward of both uses the GPU's probabilities.
    Inputs rounded = in;
    for (Tensor* t :
         {&rounded.q, &rounded.kv, &rounded.mask, &rounded.prev, &rounded.dctx, &rounded.dscores})
      *t = ops::cast(ops::cast(*t, dt), DType::kF32);
    const Outputs got = run(rounded, o, dt, kGpu);
    const Tensor probs = ops::cast(got.fwd.probs.to(Device::cpu()), DType::kF32);
    const Outputs want = run(rounded, o, DType::kF32, Device::cpu(), probs);
    const double tol = dt == DType::kBF16 ? 1.6e-2 : 2e-3;  // a few units in the last place
    expect_scaled(got.fwd.ctx, want.fwd.ctx, tol);
    expect_scaled(got.fwd.probs, want.fwd.probs, tol);
    expect_scaled(got.fwd.scores, want.fwd.scores, tol);
    expect_scaled(got.dprev, want.dprev, tol);
    expect_scaled(got.dq, want.dq, 2 * tol);
    expect_scaled(got.dkv, want.dkv, 2 * tol);
  }
}

}  // namespace
}  // namespace realmt
