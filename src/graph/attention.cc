// Backward rule: ops::attention_backward (derivation in ops/attention.h) with the gradient that
// reached the scores output from the next layer of the chain (read off the secondary node).
// Q, K and V gradients are written into one buffer per packed input: when q and kv are the same
// Var (self-attention) the three cover its columns whole, otherwise the query buffer and the
// key/value buffer are filled by their parts (zero-filled first where they do not cover it).
#include "graph/attention.h"

namespace realmt::graph {

namespace {

// A gradient buffer for a packed input of which `used` columns are written.
Tensor grad_buffer(const Var& x, int64_t used) {
  return used == x.dim(2) ? Tensor::empty(x.shape(), x.dtype(), x.device())
                          : Tensor::zeros(x.shape(), x.dtype(), x.device());
}

}  // namespace

AttentionOutputs attention(const AttentionInputs& in, ops::AttentionOptions o, Generator* gen) {
  REALMT_CHECK(in.q.rank() == 3 && in.kv.rank() == 3,
               "attention: packed inputs [B, T, C] needed, got {} and {}", in.q.shape(),
               in.kv.shape());
  REALMT_CHECK(in.dim > 0 && in.dim % o.heads == 0,
               "attention: dim {} is not a multiple of {} heads", in.dim, o.heads);
  const int64_t head_dim = in.dim / o.heads;
  if (!gen || o.dropout <= 0) o.dropout = 0;
  if (o.dropout > 0) {
    o.seed = gen->seed();
    o.offset =
        gen->reserve(static_cast<uint64_t>(in.q.dim(0) * o.heads * in.q.dim(1) * in.kv.dim(1)));
  }
  const bool grads = grad_enabled() && (in.q.requires_grad() || in.kv.requires_grad() ||
                                        (in.prev.defined() && in.prev.requires_grad()));
  o.keep_probs = o.keep_probs || grads;
  using Op = ops::AttentionOperand;
  const Op q = Op::packed(in.q.value(), in.q_col, o.heads, head_dim);
  const Op k = Op::packed(in.kv.value(), in.k_col, o.heads, head_dim);
  const Op v = Op::packed(in.kv.value(), in.v_col, o.heads, head_dim);
  ops::AttentionResult r =
      ops::attention(q, k, v, in.key_mask, in.prev.defined() ? in.prev.value() : Tensor(), o);
  AttentionOutputs out;
  out.probs = r.probs;
  std::vector<Tensor> secondary;
  if (o.keep_scores) secondary.push_back(r.scores);
  std::vector<Var> inputs{in.q, in.kv};
  if (in.prev.defined()) inputs.push_back(in.prev);
  const bool self = in.q.node() == in.kv.node();
  MultiOutput m = record_multi(
      std::move(r.ctx), std::move(secondary), std::move(inputs), "attention",
      [in, o, q, k, v, probs = r.probs, self](Node& node, const std::vector<Node*>& sec) {
        Tensor dscores;
        if (!sec.empty() && sec[0] && sec[0]->grad.defined()) dscores = sec[0]->grad;
        Tensor dctx = node.grad.defined() ? node.grad
                                          : Tensor::zeros(node.value.shape(), node.value.dtype(),
                                                          node.value.device());
        const int64_t d = in.dim;
        ops::AttentionGradTargets t;
        Tensor dq_buf = self ? grad_buffer(in.q, 3 * d) : grad_buffer(in.q, d);
        Tensor dkv_buf = self ? dq_buf : grad_buffer(in.kv, 2 * d);
        t.dq = q.over(dq_buf);
        t.dk = k.over(dkv_buf);
        t.dv = v.over(dkv_buf);
        const bool want_prev = in.prev.defined() && in.prev.requires_grad();
        if (want_prev) t.dprev = Tensor::empty(in.prev.shape(), in.prev.dtype(), in.prev.device());
        ops::attention_backward(dctx, dscores, q, k, v, probs, in.key_mask, o, t);
        if (self) {
          accumulate_owned(in.q.node(), std::move(dq_buf));
        } else {
          accumulate_owned(in.q.node(), std::move(dq_buf));
          accumulate_owned(in.kv.node(), std::move(dkv_buf));
        }
        if (want_prev) accumulate_owned(in.prev.node(), std::move(t.dprev));
      });
  out.ctx = m.primary;
  if (o.keep_scores) out.scores = m.secondary[0];
  return out;
}

}  // namespace realmt::graph
