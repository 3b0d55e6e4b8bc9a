// Cases of the fused attention core (ops/attention.h): self-attention over packed Q|K|V,
// cross-attention over a packed K|V, key masks, causal masks, the residual chain in modes
// sum and mean, dropout on the probabilities, and a heads-major cache as the K/V layout.
// The reference follows the definition per (b, h, i, j) in doubles.
#include <cmath>
#include <limits>

#include "case_util.h"
#include "core/rng.h"
#include "graph/attention.h"
#include "graph/concat.h"
#include "graph/permute.h"
#include "ops/attention.h"

namespace realmt::test {
namespace {

struct Spec {
  std::string name;
  int64_t b = 2, tq = 4, tk = 4, heads = 2, dh = 3;
  bool self = true, causal = false, mask = false;
  int mode = 0;  // 0 none, 1 sum, 2 mean
  int layer = 1;
  double dropout = 0.0;
  bool cache = false;  // K/V from a heads-major [B, H, capacity, Dh] cache (forward only)
};

constexpr uint64_t kSeed = 31, kOffset = 12;

double score_scale(const Spec& s) { return s.mode == 2 ? 1.0 / s.layer : 1.0; }

ops::AttentionOptions options(const Spec& s) {
  ops::AttentionOptions o;
  o.heads = s.heads;
  o.scale = 1.0 / std::sqrt(static_cast<double>(s.dh));
  o.score_scale = score_scale(s);
  o.causal = s.causal;
  o.keep_scores = s.mode != 0;
  o.dropout = s.dropout;
  o.seed = kSeed;
  o.offset = kOffset;
  return o;
}

// The padding of key j of batch row b: the last b keys of row b (row 0 unpadded).
Tensor key_mask(DType dt, int64_t b, int64_t tk) {
  std::vector<double> v(b * tk, 0.0);
  for (int64_t r = 0; r < b; ++r)
    for (int64_t j = tk - r; j < tk; ++j) v[r * tk + j] = -INFINITY;
  Tensor m = Tensor::empty({b, tk}, dt);
  visit_dtype(dt, [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < v.size(); ++i) m.data<T>()[i] = scalar_cast<T>(v[i]);
  });
  return m;
}

// Input layout: self: {qkv [B, T, 3D]}; cross/cache: {q [B, Tq, D], kv [B, Tk, 2D]}; then the
// mask if any, then prev if mode != none.
struct Layout {
  int q = 0, kv = 0, mask = -1, prev = -1;
};
Layout layout(const Spec& s) {
  Layout l;
  int next = 1;
  l.kv = s.self ? 0 : next++;
  if (s.mask) l.mask = next++;
  if (s.mode != 0) l.prev = next++;
  return l;
}

Tensors naive(const Spec& s, const Tensors& in) {
  const Layout l = layout(s);
  Host q(in[l.q]), kv(in[l.kv]);
  const int64_t d = s.heads * s.dh;
  const int64_t qc = s.self ? 3 * d : d, kc = s.self ? 3 * d : 2 * d;
  const int64_t k0 = s.self ? d : 0, v0 = s.self ? 2 * d : d;
  Host ctx(Shape{s.b, s.tq, d}), probs(Shape{s.b, s.heads, s.tq, s.tk}),
      scores(Shape{s.b, s.heads, s.tq, s.tk});
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.dh)), c = score_scale(s);
  for (int64_t b = 0; b < s.b; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      for (int64_t i = 0; i < s.tq; ++i) {
        const int64_t row = ((b * s.heads + h) * s.tq + i) * s.tk;
        std::vector<double> z(s.tk);
        double mx = -INFINITY;
        for (int64_t j = 0; j < s.tk; ++j) {
          double dot = 0;
          for (int64_t e = 0; e < s.dh; ++e)
            dot += q.v[(b * s.tq + i) * qc + h * s.dh + e] *
                   kv.v[(b * s.tk + j) * kc + k0 + h * s.dh + e];
          double sc = scale * dot;
          if (l.prev >= 0) sc += Host(in[l.prev]).v[row + j];
          scores.v[row + j] = sc;
          double lg = c * sc;
          if (l.mask >= 0) lg += Host(in[l.mask]).v[b * s.tk + j];
          if (s.causal && j > i + s.tk - s.tq) lg = -INFINITY;
          z[j] = lg;
          mx = std::max(mx, lg);
        }
        double sum = 0;
        for (int64_t j = 0; j < s.tk; ++j) sum += std::exp(z[j] - mx);
        for (int64_t j = 0; j < s.tk; ++j) {
          const double p = std::exp(z[j] - mx) / sum;
          probs.v[row + j] = p;
          double pd = p;
          if (s.dropout > 0) {
            const double u = u32_to_unit_float(philox_u32(kSeed, kOffset + row + j));
            pd = u >= s.dropout ? p / (1.0 - s.dropout) : 0.0;
          }
          for (int64_t e = 0; e < s.dh; ++e)
            ctx.v[(b * s.tq + i) * d + h * s.dh + e] +=
                pd * kv.v[(b * s.tk + j) * kc + v0 + h * s.dh + e];
        }
      }
  Tensors out{ctx.tensor(), probs.tensor()};
  if (s.mode != 0) out.push_back(scores.tensor());
  return out;
}

// [B, Tk, 2D] packed K|V -> two [B, H, capacity, Dh] caches with `pad` spare rows.
std::pair<Tensor, Tensor> to_caches(const Tensor& kv, int64_t heads, int64_t dh, int64_t pad) {
  const int64_t b = kv.dim(0), tk = kv.dim(1), d = heads * dh;
  Tensor k = Tensor::zeros({b, heads, tk + pad, dh}, kv.dtype()),
         v = Tensor::zeros({b, heads, tk + pad, dh}, kv.dtype());
  visit_float(kv.dtype(), "to_caches", [&](auto tag) {
    using T = decltype(tag);
    const T* src = kv.data<T>();
    for (int64_t r = 0; r < b; ++r)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t t = 0; t < tk; ++t)
          for (int64_t e = 0; e < dh; ++e) {
            const int64_t dst = ((r * heads + h) * (tk + pad) + t) * dh + e;
            k.data<T>()[dst] = src[(r * tk + t) * 2 * d + h * dh + e];
            v.data<T>()[dst] = src[(r * tk + t) * 2 * d + d + h * dh + e];
          }
  });
  return {k, v};
}

Tensors run(const Spec& s, const Tensors& in) {
  const Layout l = layout(s);
  using Op = ops::AttentionOperand;
  const int64_t d = s.heads * s.dh;
  const Tensor mask = l.mask >= 0 ? in[l.mask] : Tensor();
  const Tensor prev = l.prev >= 0 ? in[l.prev] : Tensor();
  ops::AttentionResult r;
  if (s.cache) {
    auto [k, v] = to_caches(in[l.kv].to(Device::cpu()), s.heads, s.dh, 3);
    r = ops::attention(Op::packed(in[l.q], 0, s.heads, s.dh),
                       Op::heads_major(k.to(in[0].device()), s.tk),
                       Op::heads_major(v.to(in[0].device()), s.tk), mask, prev, options(s));
  } else if (s.self) {
    r = ops::attention(Op::packed(in[0], 0, s.heads, s.dh), Op::packed(in[0], d, s.heads, s.dh),
                       Op::packed(in[0], 2 * d, s.heads, s.dh), mask, prev, options(s));
  } else {
    r = ops::attention(Op::packed(in[l.q], 0, s.heads, s.dh),
                       Op::packed(in[l.kv], 0, s.heads, s.dh),
                       Op::packed(in[l.kv], d, s.heads, s.dh), mask, prev, options(s));
  }
  Tensors out{r.ctx, r.probs};
  if (s.mode != 0) out.push_back(r.scores);
  return out;
}

graph::Var differentiable(const Spec& s, const std::vector<graph::Var>& v) {
  const Layout l = layout(s);
  graph::AttentionInputs in;
  in.dim = s.heads * s.dh;
  in.q = v[l.q];
  in.kv = v[l.kv];
  in.k_col = s.self ? in.dim : 0;
  in.v_col = s.self ? 2 * in.dim : in.dim;
  if (l.mask >= 0) in.key_mask = v[l.mask].value();
  if (l.prev >= 0) in.prev = v[l.prev];
  ops::AttentionOptions o = options(s);
  Generator gen(kSeed);  // a fresh stream per evaluation: the same dropout mask every time
  gen.set_state(kSeed, kOffset);
  graph::AttentionOutputs out = graph::attention(in, o, &gen);
  graph::Var flat = graph::reshape(out.ctx, {-1});
  if (s.mode == 0) return flat;
  // Both outputs enter the checked sum, so the chain's gradient path (dS -> dprev, dQ, dK) counts.
  return graph::concat({flat, graph::reshape(out.scores, {-1})}, 0);
}

OpCase make(const Spec& s) {
  OpCase c;
  c.name = "attention/" + s.name;
  const int64_t d = s.heads * s.dh;
  c.inputs.push_back(spec(Shape{s.b, s.tq, s.self ? 3 * d : d}, -1.5, 1.5));
  if (!s.self) c.inputs.push_back(spec(Shape{s.b, s.tk, 2 * d}, -1.5, 1.5));
  if (s.mask) {
    InputSpec m;
    m.differentiable = false;
    m.make = [s](Generator&, DType dt) { return key_mask(dt, s.b, s.tk); };
    c.inputs.push_back(m);
  }
  if (s.mode != 0) c.inputs.push_back(spec(Shape{s.b, s.heads, s.tq, s.tk}, -1.0, 1.0));
  c.run = [s](const Tensors& in) { return run(s, in); };
  c.reference = [s](const Tensors& in) { return naive(s, in); };
  if (!s.cache) c.graph = [s](const std::vector<graph::Var>& v) { return differentiable(s, v); };
  c.rtol = 2e-5;
  c.atol = 2e-6;
  c.grad_max_elements = 40;
  return c;
}

REALMT_OP_CASE(attention_self_masked) {
  Spec s;
  s.name = "self_key_mask";
  s.mask = true;
  return make(s);
}
REALMT_OP_CASE(attention_self_causal_sum) {
  Spec s;
  s.name = "self_causal_sum";
  s.causal = true;
  s.mode = 1;
  s.layer = 2;
  return make(s);
}
REALMT_OP_CASE(attention_self_mean_dropout) {
  Spec s;
  s.name = "self_mean_dropout";
  s.mask = true;
  s.mode = 2;
  s.layer = 3;
  s.dropout = 0.25;
  s.b = 3;
  s.tq = s.tk = 5;
  return make(s);
}
REALMT_OP_CASE(attention_cross_mean) {
  Spec s;
  s.name = "cross_mean_mask";
  s.self = false;
  s.mask = true;
  s.mode = 2;
  s.layer = 2;
  s.tq = 3;
  s.tk = 5;
  return make(s);
}
REALMT_OP_CASE(attention_cross_dropout_none) {
  Spec s;
  s.name = "cross_none_dropout";
  s.self = false;
  s.dropout = 0.3;
  s.tq = 2;
  s.tk = 6;
  s.heads = 3;
  s.dh = 2;
  return make(s);
}
REALMT_OP_CASE(attention_cache_step) {
  // Decoding: one query row against cached keys/values (causal, so the row sees all of them).
  Spec s;
  s.name = "cache_one_row_sum";
  s.self = false;
  s.cache = true;
  s.causal = true;
  s.mode = 1;
  s.tq = 1;
  s.tk = 5;
  return make(s);
}
REALMT_OP_CASE(attention_threaded) {
  // Enough (b, h) pairs for the kernel to split them over threads.
  Spec s;
  s.name = "self_threaded";
  s.b = 8;
  s.heads = 4;
  s.dh = 16;
  s.tq = s.tk = 24;
  s.causal = true;
  s.mode = 2;
  s.layer = 2;
  s.dropout = 0.1;
  OpCase c = make(s);
  c.graph = nullptr;  // the reference check is the point here
  return c;
}

}  // namespace
}  // namespace realmt::test
