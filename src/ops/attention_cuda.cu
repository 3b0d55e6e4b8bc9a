// CUDA attention core (ops/attention.h): a warp per query row (b, h, i), four warps a block
// (neighbouring rows of one head share its K and V rows in cache). Q, K and V are read in place
// through the operand strides (packed projections or heads-major caches).
// Forward, per row, with the keys in chunks of up to 1024 whose logits sit in shared memory:
//   pass 1: s_j = scale q.k_j (+ prev), written to `scores`; l_j = c s_j + mask (-inf beyond the
//           causal limit); the running max and sum of exp(l - max) (rescaled when the max grows);
//   pass 2: p_j = exp(l_j - max) / sum (from shared memory when all keys fit one chunk, else
//           recomputed), written to `probs`; dropout from the shared Philox mapping (stream index
//           = flat index in [B, H, Tq, Tk]); ctx += p'_j v_j, a lane per Dh element.
// Backward: a warp per query row writes dS (scratch in the compute type, and dprev) and dQ; then
// a warp per key row (b, h, j) sums dK_j = scale sum_i dS_ij q_i and dV_j = sum_i P'_ij dctx_i over
// the query rows, 32 at a time (one lane each computes dS and the dropout mask, shuffled to all).
// No atomics: every output element is written by one lane, in a fixed order.
#include <algorithm>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/cuda/cuda_types.cuh"
#include "backend/cuda/device_math.cuh"
#include "backend/cuda/dropout_stream.cuh"
#include "backend/cuda/row_reduce.cuh"
#include "ops/attention.h"
#include "ops/dropout.h"

namespace realmt::ops {
namespace {

using cuda::kWarpSize;
using cuda::MaxOp;
using cuda::SumOp;
using cuda::warp_reduce;

constexpr int kWarps = 4;              // warps (rows) per block
constexpr long long kMaxChunk = 1024;  // keys per chunk of shared memory
constexpr size_t kSmemLimit = 48 * 1024;

// Element (b, h, t, 0) of an operand is at p + b*sb + h*sh + t*st.
template <typename P>
struct View {
  P p;
  long long sb, sh, st;
  __device__ P at(long long b, long long h, long long t) const {
    return p + b * sb + h * sh + t * st;
  }
};

template <typename T>
View<const T*> view(const AttentionOperand& x) {
  return {cuda::device_ptr<T>(x.base) + x.offset, x.stride_b, x.stride_h, x.stride_t};
}
template <typename T>
View<T*> target(const AttentionOperand& x) {
  return {cuda::device_ptr<T>(x.base) + x.offset, x.stride_b, x.stride_h, x.stride_t};
}

template <typename T>
struct Common {
  using C = cuda::compute_t<T>;
  View<const T*> q, k, v;
  const T* mask;  // [B, Tk] or nullptr
  long long batch, heads, tq, tk, dh, chunk;
  C scale, c, keep_scale;
  bool causal;
  cuda::DropoutStream drop;

  // Keys visible to query i.
  __device__ long long visible(long long i) const {
    if (!causal) return tk;
    const long long n = i + tk - tq + 1;
    return n < 0 ? 0 : (n > tk ? tk : n);
  }
};

template <typename C, typename T>
__device__ __forceinline__ C dot(const C* a, const T* b, long long n) {
  C acc = 0;
  for (long long e = 0; e < n; ++e) acc += a[e] * cuda::load(b[e]);
  return acc;
}

template <typename T>
struct Forward {
  Common<T> m;
  const T* prev;  // [B, H, Tq, Tk] or nullptr
  T* ctx;         // [B, Tq, H*Dh]
  T* probs;       // [B, H, Tq, Tk] or nullptr
  T* scores;      // [B, H, Tq, Tk] or nullptr
};

template <typename T>
__global__ void __launch_bounds__(kWarps* kWarpSize) attention_forward(Forward<T> a) {
  using C = cuda::compute_t<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Common<T>& m = a.m;
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize,
            warps = blockDim.x / kWarpSize;
  C* qs = reinterpret_cast<C*>(smem_raw) + warp * (2 * m.dh + m.chunk);  // q_i
  C* os = qs + m.dh;                                                     // ctx accumulator
  C* w = os + m.dh;  // a chunk of logits / weights
  const long long rows = m.batch * m.heads * m.tq;
  for (long long row = (long long)blockIdx.x * warps + warp; row < rows;
       row += (long long)gridDim.x * warps) {
    const long long i = row % m.tq, bh = row / m.tq, h = bh % m.heads, b = bh / m.heads;
    const long long flat = row * m.tk;  // (b, h, i, 0) in [B, H, Tq, Tk]
    const long long vis = m.visible(i);
    const long long kend = a.scores ? m.tk : vis;  // keys whose scores are needed
    const T* kb = m.k.at(b, h, 0);
    const T* vb = m.v.at(b, h, 0);
    __syncwarp();  // the previous row is done with qs, os, w
    for (long long e = lane; e < m.dh; e += kWarpSize) {
      qs[e] = cuda::load(m.q.at(b, h, i)[e]);
      os[e] = 0;
    }
    __syncwarp();
    // The logit of key j (pass 1 also writes the score).
    auto logit = [&](long long j, bool write_score) {
      C s = m.scale * dot(qs, kb + j * m.k.st, m.dh);
      if (a.prev) s += cuda::load(a.prev[flat + j]);
      if (write_score) a.scores[flat + j] = cuda::store<T>(s);
      if (j >= vis) return C(-INFINITY);
      return m.c * s + (m.mask ? cuda::load(m.mask[b * m.tk + j]) : C(0));
    };
    // Pass 1: running max and sum of exp(l - max).
    C mx = -INFINITY, sum = 0;
    for (long long c0 = 0; c0 < kend; c0 += m.chunk) {
      const long long cn = std::min(m.chunk, kend - c0);
      C cmax = -INFINITY;
      for (long long jj = lane; jj < cn; jj += kWarpSize) {
        w[jj] = logit(c0 + jj, a.scores != nullptr);
        cmax = MaxOp::apply(cmax, w[jj]);
      }
      const C m_new = MaxOp::apply(mx, warp_reduce<MaxOp>(cmax));
      if (m_new == C(-INFINITY)) continue;  // nothing visible yet (uniform over the warp)
      C part = 0;
      for (long long jj = lane; jj < cn; jj += kWarpSize)
        part += cuda::exp_c(w[jj] - m_new);                            // own entries
      sum = sum * cuda::exp_c(mx - m_new) + warp_reduce<SumOp>(part);  // exp(-inf) = 0 at the start
      mx = m_new;
    }
    T* ci = a.ctx + ((b * m.tq + i) * m.heads + h) * m.dh;
    if (mx == C(-INFINITY)) {  // every key masked: no attention at all (as on the CPU)
      if (a.probs)
        for (long long j = lane; j < m.tk; j += kWarpSize) a.probs[flat + j] = cuda::store<T>(C(0));
      for (long long e = lane; e < m.dh; e += kWarpSize) ci[e] = cuda::store<T>(C(0));
      continue;
    }
    const C inv = C(1) / sum;
    const bool logits_kept = kend <= m.chunk;  // pass 1's only chunk is still in w
    // Pass 2: probabilities, dropout, context.
    for (long long c0 = 0; c0 < m.tk; c0 += m.chunk) {
      const long long cn = std::min(m.chunk, m.tk - c0);
      for (long long jj = lane; jj < cn;
           jj += kWarpSize) {  // the same lane owns w[jj] as in pass 1
        const long long j = c0 + jj;
        C p = 0;
        if (j < vis) p = cuda::exp_c((logits_kept ? w[jj] : logit(j, false)) - mx) * inv;
        if (a.probs) a.probs[flat + j] = cuda::store<T>(p);
        if (m.drop.active && p != C(0))
          p = cuda::dropout_keep_at(m.drop, flat + j) ? p * m.keep_scale : C(0);
        w[jj] = p;
      }
      __syncwarp();
      const long long cv = std::min(cn, vis - c0);  // keys of this chunk with weight (may be <= 0)
      for (long long e = lane; e < m.dh; e += kWarpSize) {
        C acc = os[e];
        for (long long jj = 0; jj < cv; ++jj) acc += w[jj] * cuda::load(vb[(c0 + jj) * m.v.st + e]);
        os[e] = acc;
      }
      __syncwarp();
    }
    for (long long e = lane; e < m.dh; e += kWarpSize) ci[e] = cuda::store<T>(os[e]);
  }
}

template <typename T>
struct Backward {
  using C = cuda::compute_t<T>;
  Common<T> m;
  const T* dctx;     // [B, Tq, H*Dh]
  const T* dscores;  // [B, H, Tq, Tk] or nullptr
  const T* probs;    // [B, H, Tq, Tk]
  T* dprev;          // [B, H, Tq, Tk] or nullptr
  C* ds;             // scratch [B, H, Tq, Tk]: dP, then dS
  View<T*> dq, dk, dv;
};

// A warp per query row: dP_j = kept_j dctx_i.v_j, dS_j = c P_j (dP_j - sum_k P_k dP_k) + dS'_j,
// dQ_i = scale sum_j dS_j k_j.
template <typename T>
__global__ void __launch_bounds__(kWarps* kWarpSize) attention_backward_queries(Backward<T> a) {
  using C = cuda::compute_t<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Common<T>& m = a.m;
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize,
            warps = blockDim.x / kWarpSize;
  C* gs = reinterpret_cast<C*>(smem_raw) + warp * (2 * m.dh + m.chunk);  // dctx_i
  C* acc = gs + m.dh;                                                    // dQ_i accumulator
  C* w = acc + m.dh;                                                     // a chunk of dS
  const long long rows = m.batch * m.heads * m.tq;
  for (long long row = (long long)blockIdx.x * warps + warp; row < rows;
       row += (long long)gridDim.x * warps) {
    const long long i = row % m.tq, bh = row / m.tq, h = bh % m.heads, b = bh / m.heads;
    const long long flat = row * m.tk;
    const long long vis = m.visible(i);
    const T* kb = m.k.at(b, h, 0);
    const T* vb = m.v.at(b, h, 0);
    const T* gi = a.dctx + ((b * m.tq + i) * m.heads + h) * m.dh;
    __syncwarp();
    for (long long e = lane; e < m.dh; e += kWarpSize) {
      gs[e] = cuda::load(gi[e]);
      acc[e] = 0;
    }
    __syncwarp();
    C part = 0;
    for (long long j = lane; j < vis; j += kWarpSize) {
      const bool keep = cuda::dropout_keep_at(m.drop, flat + j);
      const C dp =
          keep ? (m.drop.active ? m.keep_scale : C(1)) * dot(gs, vb + j * m.v.st, m.dh) : C(0);
      a.ds[flat + j] = dp;
      part += cuda::load(a.probs[flat + j]) * dp;
    }
    const C sum = warp_reduce<SumOp>(part);
    __syncwarp();  // orders the dP writes above before other lanes read them below
    for (long long c0 = 0; c0 < m.tk; c0 += m.chunk) {
      const long long cn = std::min(m.chunk, m.tk - c0);
      for (long long jj = lane; jj < cn; jj += kWarpSize) {
        const long long j = c0 + jj;
        const C dl = j < vis ? cuda::load(a.probs[flat + j]) * (a.ds[flat + j] - sum) : C(0);
        const C dsj = m.c * dl + (a.dscores ? cuda::load(a.dscores[flat + j]) : C(0));
        a.ds[flat + j] = dsj;
        if (a.dprev) a.dprev[flat + j] = cuda::store<T>(dsj);
        w[jj] = dsj;
      }
      __syncwarp();
      for (long long e = lane; e < m.dh; e += kWarpSize) {
        C t = acc[e];
        for (long long jj = 0; jj < cn; ++jj) t += w[jj] * cuda::load(kb[(c0 + jj) * m.k.st + e]);
        acc[e] = t;
      }
      __syncwarp();
    }
    T* dqi = a.dq.at(b, h, i);
    for (long long e = lane; e < m.dh; e += kWarpSize) dqi[e] = cuda::store<T>(m.scale * acc[e]);
  }
}

// A warp per key row (b, h, j): dK_j = scale sum_i dS_ij q_i, dV_j = sum_i P'_ij dctx_i
// (P' = P with the dropout mask and scale). Runs after attention_backward_queries (dS).
template <typename T>
__global__ void __launch_bounds__(kWarps* kWarpSize) attention_backward_keys(Backward<T> a) {
  using C = cuda::compute_t<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Common<T>& m = a.m;
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize,
            warps = blockDim.x / kWarpSize;
  C* dk =
      reinterpret_cast<C*>(smem_raw) + warp * 2 * m.dh;  // each lane touches its own elements only
  C* dv = dk + m.dh;
  const long long rows = m.batch * m.heads * m.tk;
  for (long long row = (long long)blockIdx.x * warps + warp; row < rows;
       row += (long long)gridDim.x * warps) {
    const long long j = row % m.tk, bh = row / m.tk, h = bh % m.heads, b = bh / m.heads;
    for (long long e = lane; e < m.dh; e += kWarpSize) dk[e] = dv[e] = 0;
    for (long long i0 = 0; i0 < m.tq; i0 += kWarpSize) {
      const long long i = i0 + lane;
      C dsv = 0, pd = 0;
      if (i < m.tq) {
        const long long flat = (bh * m.tq + i) * m.tk + j;
        dsv = a.ds[flat];
        if (j < m.visible(i)) {
          pd = cuda::load(a.probs[flat]);
          if (m.drop.active) pd = cuda::dropout_keep_at(m.drop, flat) ? pd * m.keep_scale : C(0);
        }
      }
      const int n = static_cast<int>(std::min<long long>(kWarpSize, m.tq - i0));
      for (int t = 0; t < n; ++t) {
        const C ds_t = __shfl_sync(0xffffffffu, dsv, t), pd_t = __shfl_sync(0xffffffffu, pd, t);
        if (ds_t == C(0) && pd_t == C(0)) continue;  // uniform over the warp
        const T* qi = m.q.at(b, h, i0 + t);
        const T* gi = a.dctx + ((b * m.tq + i0 + t) * m.heads + h) * m.dh;
        for (long long e = lane; e < m.dh; e += kWarpSize) {
          dk[e] += ds_t * cuda::load(qi[e]);
          dv[e] += pd_t * cuda::load(gi[e]);
        }
      }
    }
    T* dkj = a.dk.at(b, h, j);
    T* dvj = a.dv.at(b, h, j);
    for (long long e = lane; e < m.dh; e += kWarpSize) {
      dkj[e] = cuda::store<T>(m.scale * dk[e]);
      dvj[e] = cuda::store<T>(dv[e]);
    }
  }
}

// Launch shape: kWarps warps a block (fewer when a warp's shared memory is large), and the key
// chunk: up to kMaxChunk, a multiple of the warp size, within the shared-memory limit.
struct Plan {
  int warps;
  long long chunk;
  size_t smem;  // bytes per block
};
Plan plan(long long dh, long long tk, size_t elem, bool with_chunk, const char* op) {
  long long chunk =
      with_chunk ? std::min(kMaxChunk, std::max<long long>(kWarpSize, (tk + 31) / 32 * 32)) : 0;
  auto bytes = [&](int warps) {
    return static_cast<size_t>(warps) * static_cast<size_t>(2 * dh + chunk) * elem;
  };
  while (with_chunk && chunk > kWarpSize && bytes(kWarps) > kSmemLimit)
    chunk = std::max<long long>(kWarpSize, chunk / 2 / 32 * 32);
  int warps = kWarps;
  while (warps > 1 && bytes(warps) > kSmemLimit) --warps;
  REALMT_CHECK(bytes(warps) <= kSmemLimit,
               "{}: head dimension {} needs {} bytes of shared memory, over the CUDA kernel's {}",
               op, dh, bytes(warps), kSmemLimit);
  return {warps, chunk, bytes(warps)};
}

unsigned grid_of(long long rows, int warps) { return cuda::grid_for(rows, warps); }

template <typename T>
Common<T> common(const AttentionArgs& a) {
  using C = cuda::compute_t<T>;
  const AttentionOptions& o = a.o;
  return {view<T>(a.q),
          view<T>(a.k),
          view<T>(a.v),
          a.key_mask.defined() ? cuda::device_ptr<T>(a.key_mask) : nullptr,
          a.batch,
          o.heads,
          a.tq,
          a.tk,
          a.head_dim,
          0,
          static_cast<C>(o.scale),
          static_cast<C>(o.score_scale),
          static_cast<C>(1.0 / (1.0 - o.dropout)),  // in double, rounded once (as ops::dropout)
          o.causal,
          {o.seed, o.offset, dropout_threshold(o.dropout), o.dropout > 0}};
}

void attention_cuda(const AttentionArgs& a, AttentionResult& r) {
  const int device = a.q.base.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  cuda::visit_float(a.q.base.dtype(), "attention", [&](auto tag) {
    using T = decltype(tag);
    const Plan p = plan(a.head_dim, a.tk, sizeof(cuda::compute_t<T>), true, "attention");
    Forward<T> f{common<T>(a), a.prev.defined() ? cuda::device_ptr<T>(a.prev) : nullptr,
                 cuda::device_ptr<T>(r.ctx),
                 r.probs.defined() ? cuda::device_ptr<T>(r.probs) : nullptr,
                 r.scores.defined() ? cuda::device_ptr<T>(r.scores) : nullptr};
    f.m.chunk = p.chunk;
    attention_forward<T>
        <<<grid_of(a.batch * a.o.heads * a.tq, p.warps), p.warps * kWarpSize, p.smem, stream>>>(f);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

void attention_backward_cuda(const AttentionArgs& a, const Tensor& dctx, const Tensor& dscores,
                             const Tensor& probs, AttentionGradTargets& out) {
  const int device = a.q.base.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  cuda::visit_float(a.q.base.dtype(), "attention_backward", [&](auto tag) {
    using T = decltype(tag);
    using C = cuda::compute_t<T>;
    const Tensor ds =
        Tensor::empty({a.batch * a.o.heads * a.tq * a.tk},
                      std::is_same_v<C, double> ? DType::kF64 : DType::kF32, dctx.device());
    Backward<T> bw{common<T>(a),
                   cuda::device_ptr<T>(dctx),
                   dscores.defined() ? cuda::device_ptr<T>(dscores) : nullptr,
                   cuda::device_ptr<T>(probs),
                   out.dprev.defined() ? cuda::device_ptr<T>(out.dprev) : nullptr,
                   static_cast<C*>(ds.raw()),
                   target<T>(out.dq),
                   target<T>(out.dk),
                   target<T>(out.dv)};
    const Plan pq = plan(a.head_dim, a.tk, sizeof(C), true, "attention_backward");
    bw.m.chunk = pq.chunk;
    attention_backward_queries<T>
        <<<grid_of(a.batch * a.o.heads * a.tq, pq.warps), pq.warps * kWarpSize, pq.smem, stream>>>(
            bw);
    REALMT_CUDA_CHECK_LAUNCH();
    if (a.tk == 0) return;
    const Plan pk = plan(a.head_dim, a.tk, sizeof(C), false, "attention_backward");
    attention_backward_keys<T>
        <<<grid_of(a.batch * a.o.heads * a.tk, pk.warps), pk.warps * kWarpSize, pk.smem, stream>>>(
            bw);
    REALMT_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

REALMT_REGISTER_KERNEL(attention_kernel, kCuda, attention_cuda);
REALMT_REGISTER_KERNEL(attention_backward_kernel, kCuda, attention_backward_cuda);

}  // namespace realmt::ops
