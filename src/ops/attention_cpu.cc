// CPU attention: threads take (batch row, head) pairs, each handled whole, so results do not
// depend on the thread count. Per query row: scores by Dh-long dot products (vectorised), the
// softmax with the mask, dropout flags from the shared Philox mapping, and the context as a
// weighted sum of V rows. The backward pass keeps dK and dV of the pair in thread-local buffers
// and writes them once at the end.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/fast_math.h"
#include "core/parallel.h"
#include "ops/attention.h"
#include "ops/dropout_mask_cpu.h"

namespace realmt::ops {
REALMT_CPU_KERNELS_BEGIN
namespace {

template <typename T>
T exp_t(T x) {
  if constexpr (std::is_same_v<T, float>)
    return fast_exp_masked(x);
  else
    return std::exp(x);
}

template <typename T>
T dot(const T* a, const T* b, int64_t n) {
  T acc = 0;
#pragma omp simd reduction(+ : acc)
  for (int64_t e = 0; e < n; ++e) acc += a[e] * b[e];
  return acc;
}

template <typename T>
void axpy(T* y, T w, const T* x, int64_t n) {
#pragma omp simd
  for (int64_t e = 0; e < n; ++e) y[e] += w * x[e];
}

// Several query rows against the same keys: K (or V) of the pair is copied once into a
// [Dh, Tk] buffer, so a row of scores is Dh vectorised axpys over the keys instead of Tk dot
// products with a horizontal sum each.
constexpr int64_t kTransposeRows = 4;

template <typename T>
void transpose_rows(const T* x, int64_t stride, int64_t rows, int64_t cols, T* out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = x[r * stride + c];
}

// s[j] = scale * sum_e q[e] xt[e][j] for j < n (xt [Dh, stride], stride >= n).
template <typename T>
void scores_from_transposed(const T* q, const T* xt, int64_t dh, int64_t stride, int64_t n, T scale,
                            T* s) {
  std::fill(s, s + n, T(0));
  for (int64_t e = 0; e < dh; ++e) {
    const T qe = q[e];
    const T* row = xt + e * stride;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) s[j] += qe * row[j];
  }
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) s[j] *= scale;
}

// The pointers of one (b, h) pair.
template <typename T>
struct Pair {
  const T* q;
  const T* k;
  const T* v;
  int64_t b, h;
};

template <typename T>
Pair<T> pair_of(const AttentionArgs& a, int64_t bh) {
  const int64_t b = bh / a.o.heads, h = bh % a.o.heads;
  auto at = [&](const AttentionOperand& x) {
    return x.base.data<T>() + x.offset + b * x.stride_b + h * x.stride_h;
  };
  return {at(a.q), at(a.k), at(a.v), b, h};
}

// Keys visible to query i.
int64_t visible(const AttentionArgs& a, int64_t i) {
  return a.o.causal ? std::clamp<int64_t>(i + a.tk - a.tq + 1, 0, a.tk) : a.tk;
}

template <typename T>
void forward(const AttentionArgs& a, AttentionResult& r) {
  const int64_t H = a.o.heads, Dh = a.head_dim, Tq = a.tq, Tk = a.tk;
  const T* mask = a.key_mask.defined() ? a.key_mask.data<T>() : nullptr;
  const T* prev = a.prev.defined() ? a.prev.data<T>() : nullptr;
  T* ctx = r.ctx.data<T>();
  T* probs = r.probs.defined() ? r.probs.data<T>() : nullptr;
  T* scores = r.scores.defined() ? r.scores.data<T>() : nullptr;
  const T scale = static_cast<T>(a.o.scale), c = static_cast<T>(a.o.score_scale);
  const bool drop = a.o.dropout > 0;
  const uint32_t threshold = dropout_threshold(a.o.dropout);
  const T keep_scale = static_cast<T>(1.0 / (1.0 - a.o.dropout));
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  const bool transpose = Tq >= kTransposeRows;
  parallel_for(a.batch * H, 2 * Tq * Tk * Dh + 8 * Tq * Tk, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<T> row_buf;
    thread_local std::vector<uint8_t> keep_buf;
    row_buf.resize(Tk);
    keep_buf.resize(Tk);
    T* s = row_buf.data();
    uint8_t* keep = keep_buf.data();
    thread_local std::vector<T> kt_buf;
    if (transpose) kt_buf.resize(Dh * Tk);
    T* kt = transpose ? kt_buf.data() : nullptr;
    for (int64_t bh = lo; bh < hi; ++bh) {
      const Pair<T> p = pair_of<T>(a, bh);
      const T* m = mask ? mask + p.b * Tk : nullptr;
      if (kt) transpose_rows(p.k, a.k.stride_t, Tk, Dh, kt);
      for (int64_t i = 0; i < Tq; ++i) {
        const int64_t row = (bh * Tq + i) * Tk;  // flat index of (b, h, i, 0) in [B, H, Tq, Tk]
        const T* qi = p.q + i * a.q.stride_t;
        if (kt) {
          scores_from_transposed(qi, kt, Dh, Tk, Tk, scale, s);
        } else {
          for (int64_t j = 0; j < Tk; ++j) s[j] = scale * dot(qi, p.k + j * a.k.stride_t, Dh);
        }
        if (prev)
#pragma omp simd
          for (int64_t j = 0; j < Tk; ++j) s[j] += prev[row + j];
        if (scores) std::copy(s, s + Tk, scores + row);
        const int64_t vis = visible(a, i);
        T mx = kNegInf;
        for (int64_t j = 0; j < vis; ++j) {
          s[j] = c * s[j] + (m ? m[j] : T(0));
          mx = std::max(mx, s[j]);
        }
        T* ci = ctx + ((p.b * Tq + i) * H + p.h) * Dh;
        std::fill(ci, ci + Dh, T(0));
        if (mx == kNegInf) {  // every key masked: no attention at all
          if (probs) std::fill(probs + row, probs + row + Tk, T(0));
          continue;
        }
        T sum = 0;
#pragma omp simd reduction(+ : sum)
        for (int64_t j = 0; j < vis; ++j) {
          s[j] = exp_t<T>(s[j] - mx);
          sum += s[j];
        }
        const T inv = T(1) / sum;
#pragma omp simd
        for (int64_t j = 0; j < vis; ++j) s[j] *= inv;
        if (probs) {
          std::copy(s, s + vis, probs + row);
          std::fill(probs + row + vis, probs + row + Tk, T(0));
        }
        if (drop) dropout_keep_flags(a.o.seed, a.o.offset + row, vis, threshold, keep);
        for (int64_t j = 0; j < vis; ++j) {
          const T w = drop ? (keep[j] ? s[j] * keep_scale : T(0)) : s[j];
          if (w != T(0)) axpy(ci, w, p.v + j * a.v.stride_t, Dh);
        }
      }
    }
  });
}

template <typename T>
void backward(const AttentionArgs& a, const Tensor& dctx_t, const Tensor& dscores_t,
              const Tensor& probs_t, AttentionGradTargets& out) {
  const int64_t H = a.o.heads, Dh = a.head_dim, Tq = a.tq, Tk = a.tk;
  const T* dctx = dctx_t.data<T>();
  const T* dscores = dscores_t.defined() ? dscores_t.data<T>() : nullptr;
  const T* probs = probs_t.data<T>();
  T* dprev = out.dprev.defined() ? out.dprev.data<T>() : nullptr;
  const T scale = static_cast<T>(a.o.scale), c = static_cast<T>(a.o.score_scale);
  const bool drop = a.o.dropout > 0;
  const uint32_t threshold = dropout_threshold(a.o.dropout);
  const T keep_scale = static_cast<T>(1.0 / (1.0 - a.o.dropout));
  const bool transpose = Tq >= kTransposeRows;
  auto target = [&](const AttentionOperand& x, int64_t b, int64_t h) {
    return x.base.data<T>() + x.offset + b * x.stride_b + h * x.stride_h;
  };
  parallel_for(a.batch * H, 4 * Tq * Tk * Dh + 8 * Tq * Tk, [&](int64_t lo, int64_t hi) {
    thread_local std::vector<T> dk_buf, dv_buf, ds_buf;
    thread_local std::vector<uint8_t> keep_buf;
    dk_buf.resize(Tk * Dh);
    dv_buf.resize(Tk * Dh);
    ds_buf.resize(Tk);
    keep_buf.resize(Tk);
    T* dk = dk_buf.data();
    T* dv = dv_buf.data();
    T* ds = ds_buf.data();
    uint8_t* keep = keep_buf.data();
    thread_local std::vector<T> vt_buf, dpd_buf;
    if (transpose) {
      vt_buf.resize(Dh * Tk);
      dpd_buf.resize(Tk);
    }
    T* vt = transpose ? vt_buf.data() : nullptr;
    T* dpd = transpose ? dpd_buf.data() : nullptr;
    for (int64_t bh = lo; bh < hi; ++bh) {
      const Pair<T> p = pair_of<T>(a, bh);
      if (vt) transpose_rows(p.v, a.v.stride_t, Tk, Dh, vt);
      std::fill(dk, dk + Tk * Dh, T(0));
      std::fill(dv, dv + Tk * Dh, T(0));
      T* dq_b = target(out.dq, p.b, p.h);
      for (int64_t i = 0; i < Tq; ++i) {
        const int64_t row = (bh * Tq + i) * Tk;
        const T* pr = probs + row;
        const T* gi = dctx + ((p.b * Tq + i) * H + p.h) * Dh;
        const int64_t vis = visible(a, i);
        if (drop) dropout_keep_flags(a.o.seed, a.o.offset + row, vis, threshold, keep);
        // dP (through dropout) and dV += Pd^T dctx, over the visible keys.
        if (vt) scores_from_transposed(gi, vt, Dh, Tk, vis, T(1), dpd);
        T sum = 0;
        for (int64_t j = 0; j < vis; ++j) {
          const T kept = drop ? (keep[j] ? keep_scale : T(0)) : T(1);
          const T dp = kept * (vt ? dpd[j] : dot(gi, p.v + j * a.v.stride_t, Dh));
          const T pd = pr[j] * kept;
          if (pd != T(0)) axpy(dv + j * Dh, pd, gi, Dh);
          ds[j] = dp;
          sum += pr[j] * dp;
        }
        // Softmax Jacobian, the score scale c, and the chain's gradient from the next layer.
        for (int64_t j = 0; j < Tk; ++j) {
          const T dl = j < vis ? pr[j] * (ds[j] - sum) : T(0);
          ds[j] = c * dl + (dscores ? dscores[row + j] : T(0));
        }
        if (dprev) std::copy(ds, ds + Tk, dprev + row);
        // dQ_i = scale sum_j dS_ij K_j ; dK_j += scale dS_ij Q_i.
        T* dqi = dq_b + i * out.dq.stride_t;
        std::fill(dqi, dqi + Dh, T(0));
        const T* qi = p.q + i * a.q.stride_t;
        for (int64_t j = 0; j < Tk; ++j) {
          const T w = scale * ds[j];
          if (w == T(0)) continue;
          axpy(dqi, w, p.k + j * a.k.stride_t, Dh);
          axpy(dk + j * Dh, w, qi, Dh);
        }
      }
      T* dk_b = target(out.dk, p.b, p.h);
      T* dv_b = target(out.dv, p.b, p.h);
      for (int64_t j = 0; j < Tk; ++j) {
        std::copy(dk + j * Dh, dk + (j + 1) * Dh, dk_b + j * out.dk.stride_t);
        std::copy(dv + j * Dh, dv + (j + 1) * Dh, dv_b + j * out.dv.stride_t);
      }
    }
  });
}

void attention_cpu(const AttentionArgs& a, AttentionResult& r) {
  visit_float(a.q.base.dtype(), "attention", [&](auto tag) { forward<decltype(tag)>(a, r); });
}

void attention_backward_cpu(const AttentionArgs& a, const Tensor& dctx, const Tensor& dscores,
                            const Tensor& probs, AttentionGradTargets& out) {
  visit_float(a.q.base.dtype(), "attention_backward",
              [&](auto tag) { backward<decltype(tag)>(a, dctx, dscores, probs, out); });
}

}  // namespace
REALMT_CPU_KERNELS_END

REALMT_REGISTER_KERNEL(attention_kernel, kCpu, attention_cpu);
REALMT_REGISTER_KERNEL(attention_backward_kernel, kCpu, attention_backward_cpu);

}  // namespace realmt::ops
