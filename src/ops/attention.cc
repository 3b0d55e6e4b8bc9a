#include "ops/attention.h"

namespace realmt::ops {

AttentionOperand AttentionOperand::packed(const Tensor& x, int64_t col, int64_t heads,
                                          int64_t head_dim) {
  REALMT_CHECK(x.rank() == 3, "attention: packed projections must be [B, T, C], got {}", x);
  REALMT_CHECK(col >= 0 && col + heads * head_dim <= x.dim(2),
               "attention: columns [{}, {}) outside {}", col, col + heads * head_dim, x);
  AttentionOperand op;
  op.base = x;
  op.offset = col;
  op.stride_b = x.dim(1) * x.dim(2);
  op.stride_t = x.dim(2);
  op.stride_h = head_dim;
  op.batch = x.dim(0);
  op.length = x.dim(1);
  op.head_dim = head_dim;
  return op;
}

AttentionOperand AttentionOperand::heads_major(const Tensor& cache, int64_t length) {
  REALMT_CHECK(cache.rank() == 4, "attention: a cache must be [B, H, capacity, Dh], got {}", cache);
  REALMT_CHECK(length >= 0 && length <= cache.dim(2), "attention: {} cached rows in {}", length,
               cache);
  AttentionOperand op;
  op.base = cache;
  op.stride_b = cache.dim(1) * cache.dim(2) * cache.dim(3);
  op.stride_h = cache.dim(2) * cache.dim(3);
  op.stride_t = cache.dim(3);
  op.batch = cache.dim(0);
  op.length = length;
  op.head_dim = cache.dim(3);
  return op;
}

AttentionOperand AttentionOperand::over(const Tensor& other) const {
  REALMT_CHECK(other.shape() == base.shape() && other.dtype() == base.dtype(),
               "attention: gradient buffer {} does not match its operand {}", other, base);
  AttentionOperand op = *this;
  op.base = other;
  return op;
}

namespace {

AttentionArgs check(const AttentionOperand& q, const AttentionOperand& k, const AttentionOperand& v,
                    const Tensor& key_mask, const Tensor& prev, const AttentionOptions& o) {
  for (const AttentionOperand* x : {&q, &k, &v}) check_defined(x->base, "attention", "operand");
  check_same_device(q.base, k.base, "attention");
  check_same_device(q.base, v.base, "attention");
  REALMT_CHECK(q.base.dtype() == k.base.dtype() && q.base.dtype() == v.base.dtype(),
               "attention: Q, K, V dtypes differ ({}, {}, {})", q.base.dtype(), k.base.dtype(),
               v.base.dtype());
  REALMT_CHECK(o.heads > 0, "attention: heads must be positive, got {}", o.heads);
  REALMT_CHECK(q.batch == k.batch && q.batch == v.batch,
               "attention: batch sizes differ (Q {}, K {}, V {})", q.batch, k.batch, v.batch);
  REALMT_CHECK(k.length == v.length, "attention: K has {} rows, V {}", k.length, v.length);
  REALMT_CHECK(o.dropout >= 0 && o.dropout < 1, "attention: dropout must be in [0, 1), got {}",
               o.dropout);
  REALMT_CHECK(q.head_dim == k.head_dim && q.head_dim == v.head_dim && q.head_dim > 0,
               "attention: head dimensions differ (Q {}, K {}, V {})", q.head_dim, k.head_dim,
               v.head_dim);
  AttentionArgs a{q, k, v, key_mask, prev, o, q.batch, q.length, k.length, q.head_dim};
  if (key_mask.defined()) {
    check_same_device(q.base, key_mask, "attention");
    REALMT_CHECK(key_mask.shape() == Shape({a.batch, a.tk}) && key_mask.dtype() == q.base.dtype(),
                 "attention: key_mask must be {} [{}, {}], got {}", q.base.dtype(), a.batch, a.tk,
                 key_mask);
  }
  if (prev.defined()) {
    check_same_device(q.base, prev, "attention");
    REALMT_CHECK(
        prev.shape() == Shape({a.batch, o.heads, a.tq, a.tk}) && prev.dtype() == q.base.dtype(),
        "attention: residual scores {} do not match this layer's [{}, {}, {}, {}]", prev, a.batch,
        o.heads, a.tq, a.tk);
  }
  return a;
}

}  // namespace

AttentionResult attention(const AttentionOperand& q, const AttentionOperand& k,
                          const AttentionOperand& v, const Tensor& key_mask, const Tensor& prev,
                          const AttentionOptions& o) {
  const AttentionArgs a = check(q, k, v, key_mask, prev, o);
  const DType dt = q.base.dtype();
  const Device dev = q.base.device();
  AttentionResult r;
  r.ctx = Tensor::empty({a.batch, a.tq, o.heads * a.head_dim}, dt, dev);
  const Shape s{a.batch, o.heads, a.tq, a.tk};
  if (o.keep_probs || o.dropout > 0) r.probs = Tensor::empty(s, dt, dev);
  if (o.keep_scores) r.scores = Tensor::empty(s, dt, dev);
  if (a.batch * a.tq > 0) attention_kernel.get(dev)(a, r);
  return r;
}

void attention_backward(const Tensor& dctx, const Tensor& dscores, const AttentionOperand& q,
                        const AttentionOperand& k, const AttentionOperand& v, const Tensor& probs,
                        const Tensor& key_mask, const AttentionOptions& o,
                        AttentionGradTargets& out) {
  const AttentionArgs a = check(q, k, v, key_mask, Tensor(), o);
  const Shape s{a.batch, o.heads, a.tq, a.tk};
  REALMT_CHECK(dctx.shape() == Shape({a.batch, a.tq, o.heads * a.head_dim}) &&
                   dctx.dtype() == q.base.dtype(),
               "attention_backward: dctx {} does not match [{}, {}, {}]", dctx, a.batch, a.tq,
               o.heads * a.head_dim);
  REALMT_CHECK(probs.defined() && probs.shape() == s, "attention_backward: probs {} must be {}",
               probs, s);
  REALMT_CHECK(!dscores.defined() || dscores.shape() == s,
               "attention_backward: dscores {} must be {}", dscores, s);
  REALMT_CHECK(!out.dprev.defined() || out.dprev.shape() == s,
               "attention_backward: dprev {} must be {}", out.dprev, s);
  if (a.batch * a.tq > 0)
    attention_backward_kernel.get(q.base.device())(a, dctx, dscores, probs, out);
}

}  // namespace realmt::ops
