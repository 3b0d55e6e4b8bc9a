// Define-by-run autodiff. Every differentiable function (graph/<op>.h) computes its value
// with ops:: and, when gradients are enabled and an input needs one, records a Node holding
// its inputs and a backward rule. backward(loss) runs the rules in reverse creation order.
// NoGradGuard turns recording off (decoding pays nothing for training machinery).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace realmt::graph {

struct Node {
  Tensor value;
  Tensor grad;  // accumulated gradient; undefined until the first contribution
  bool requires_grad = false;
  bool is_leaf = true;
  bool grad_borrowed = false;  // grad aliases a tensor a backward rule produced
  bool always_run = false;     // run the rule even when grad is undefined (multi-output primaries)
  uint64_t seq = 0;            // creation order: a valid topological order of the tape
  const char* op = "leaf";
  std::vector<std::shared_ptr<Node>> inputs;
  // Reads this node's grad and accumulates into its inputs' grads (graph::accumulate).
  std::function<void(Node& self)> backward;
};

class Var {
 public:
  Var() = default;
  // A leaf. requires_grad marks a trainable value (its grad accumulates across backward calls).
  explicit Var(Tensor value, bool requires_grad = false);

  bool defined() const { return node_ != nullptr; }
  const Tensor& value() const;
  const Tensor& grad() const;  // undefined when nothing reached it
  bool requires_grad() const { return node_ && node_->requires_grad; }
  const Shape& shape() const { return value().shape(); }
  DType dtype() const { return value().dtype(); }
  Device device() const { return value().device(); }
  int64_t dim(int axis) const { return value().dim(axis); }
  int rank() const { return value().rank(); }
  const std::shared_ptr<Node>& node() const { return node_; }

  // Uses `grad` (e.g. a slot of the gradient arena, same shape and dtype) as this leaf's
  // gradient buffer; backward accumulates into it in place.
  void bind_grad(Tensor grad);
  void zero_grad();

 private:
  std::shared_ptr<Node> node_;
};

// True unless a NoGradGuard is alive on this thread.
bool grad_enabled();

class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// The result of a differentiable function: records a node when gradients are enabled and any
// input requires one; otherwise returns a plain leaf (no tape, no captured tensors).
Var record(Tensor value, std::vector<Var> inputs, const char* op,
           std::function<void(Node&)> backward);

// A function with several outputs (fused kernels: attention gives its context and the residual
// scores the next layer carries). The primary node holds the backward rule and is created after
// the secondary ones; every consumer of any output is created later still, so in reverse creation
// order all consumers have run before the primary's rule, which reads the secondary outputs'
// gradients from `secondary` (nullptr or an undefined grad: nothing reached that output, i.e.
// zero). Secondary
// nodes point at the primary so that it is reached from the loss through any of them.
struct MultiOutput {
  Var primary;
  std::vector<Var> secondary;
};
using MultiBackward = std::function<void(Node& primary, const std::vector<Node*>& secondary)>;
MultiOutput record_multi(Tensor primary, std::vector<Tensor> secondary, std::vector<Var> inputs,
                         const char* op, MultiBackward backward);

// node.grad += g (allocating on first use). No-op when the node needs no gradient.
void accumulate(Node& node, const Tensor& g);
inline void accumulate(const std::shared_ptr<Node>& node, const Tensor& g) { accumulate(*node, g); }
// As accumulate, for a g that the caller made for this node alone: on first use the node keeps
// g itself (no copy) and later contributions are added into it in place.
void accumulate_owned(Node& node, Tensor g);
inline void accumulate_owned(const std::shared_ptr<Node>& node, Tensor g) {
  accumulate_owned(*node, std::move(g));
}
// The node's gradient buffer when a rule may add into it in place (e.g. a GEMM with beta = 1):
// defined, not borrowed. nullptr when the node needs no gradient or has none of its own yet.
Tensor* grad_accumulator(Node& node);

// Back-propagates from a one-element loss (seeded with 1). Gradients of leaves accumulate;
// intermediate gradients are freed as soon as their rule has run.
void backward(const Var& loss);

}  // namespace realmt::graph
