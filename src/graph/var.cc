#include "graph/var.h"

#include <algorithm>
#include <atomic>
#include <unordered_set>

#include "ops/elementwise.h"

namespace realmt::graph {

namespace {
thread_local bool t_grad_enabled = true;
std::atomic<uint64_t> g_seq{0};
}  // namespace

Var::Var(Tensor value, bool requires_grad) : node_(std::make_shared<Node>()) {
  REALMT_CHECK(value.defined(), "a Var needs a defined tensor");
  REALMT_CHECK(!requires_grad || is_floating(value.dtype()),
               "only floating tensors can require grad, not {}", value.dtype());
  node_->value = std::move(value);
  node_->requires_grad = requires_grad;
  node_->seq = g_seq.fetch_add(1, std::memory_order_relaxed);
}

const Tensor& Var::value() const {
  REALMT_CHECK(node_ != nullptr, "value of an undefined Var");
  return node_->value;
}

const Tensor& Var::grad() const {
  REALMT_CHECK(node_ != nullptr, "grad of an undefined Var");
  return node_->grad;
}

void Var::bind_grad(Tensor grad) {
  REALMT_CHECK(node_ && node_->is_leaf, "bind_grad needs a leaf Var");
  REALMT_CHECK(grad.shape() == value().shape() && grad.dtype() == value().dtype() &&
                   grad.device() == value().device(),
               "bind_grad: {} does not match the value {}", grad, value());
  node_->grad = std::move(grad);
}

void Var::zero_grad() {
  if (node_ && node_->grad.defined()) node_->grad.zero_();
}

bool grad_enabled() { return t_grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(t_grad_enabled) { t_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { t_grad_enabled = previous_; }

Var record(Tensor value, std::vector<Var> inputs, const char* op,
           std::function<void(Node&)> backward) {
  Var out(std::move(value));
  if (!t_grad_enabled) return out;
  bool needs = false;
  for (const Var& v : inputs) needs = needs || v.requires_grad();
  if (!needs) return out;
  Node& n = *out.node();
  n.requires_grad = true;
  n.is_leaf = false;
  n.op = op;
  n.backward = std::move(backward);
  n.inputs.reserve(inputs.size());
  for (Var& v : inputs) n.inputs.push_back(v.node());
  return out;
}

MultiOutput record_multi(Tensor primary, std::vector<Tensor> secondary, std::vector<Var> inputs,
                         const char* op, MultiBackward backward) {
  MultiOutput out;
  bool needs = false;
  if (t_grad_enabled)
    for (const Var& v : inputs) needs = needs || v.requires_grad();
  for (Tensor& t : secondary) out.secondary.emplace_back(std::move(t));
  out.primary = Var(std::move(primary));
  if (!needs) return out;
  Node& n = *out.primary.node();
  n.requires_grad = true;
  n.is_leaf = false;
  n.always_run = true;
  n.op = op;
  n.inputs.reserve(inputs.size());
  for (Var& v : inputs) n.inputs.push_back(v.node());
  std::vector<std::weak_ptr<Node>> sec;
  for (Var& v : out.secondary) {
    Node& s = *v.node();
    s.requires_grad = true;
    s.is_leaf = false;
    s.op = op;
    s.inputs.push_back(out.primary.node());
    s.backward = [](Node&) {};  // its gradient is read by the primary's rule
    sec.push_back(v.node());
  }
  // Weak references: a secondary node points at the primary (so the primary is reached from the
  // loss through it), not the other way round, so there is no ownership cycle; a secondary
  // output nobody kept is gone by backward time and counts as a zero gradient (nullptr).
  n.backward = [backward = std::move(backward), sec = std::move(sec)](Node& self) {
    std::vector<std::shared_ptr<Node>> alive;
    std::vector<Node*> nodes;
    for (const auto& w : sec) {
      alive.push_back(w.lock());
      nodes.push_back(alive.back().get());
    }
    backward(self, nodes);
  };
  return out;
}

void accumulate_owned(Node& node, Tensor g) {
  if (!node.requires_grad) return;
  if (node.grad.defined()) {
    accumulate(node, g);
    return;
  }
  REALMT_ASSERT(g.shape() == node.value.shape(), "gradient {} for a value {} (op {})", g.shape(),
                node.value.shape(), node.op);
  node.grad = std::move(g);
  node.grad_borrowed = false;
}

Tensor* grad_accumulator(Node& node) {
  if (!node.requires_grad || !node.grad.defined() || node.grad_borrowed) return nullptr;
  return &node.grad;
}

void accumulate(Node& node, const Tensor& g) {
  if (!node.requires_grad) return;
  REALMT_ASSERT(g.shape() == node.value.shape(), "gradient {} for a value {} (op {})", g.shape(),
                node.value.shape(), node.op);
  if (!node.grad.defined()) {
    // A leaf owns its gradient buffer (it accumulates in place across backward calls). An
    // intermediate node borrows g, which a rule may have handed to several inputs, so its
    // second contribution makes a fresh sum instead of writing into g.
    node.grad = node.is_leaf ? g.clone() : g;
    node.grad_borrowed = !node.is_leaf;
    return;
  }
  if (node.grad_borrowed) {
    node.grad = ops::add(node.grad, g);
    node.grad_borrowed = false;
  } else {
    ops::add_(node.grad, g);
  }
}

void backward(const Var& loss) {
  REALMT_CHECK(loss.defined() && loss.value().numel() == 1,
               "backward needs a one-element loss, got {}",
               loss.defined() ? loss.value().str() : "undefined");
  REALMT_CHECK(loss.requires_grad(),
               "backward: the loss does not depend on anything that requires grad");
  // Collect the nodes reachable from the loss; creation order is a topological order.
  std::vector<Node*> order;
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack{loss.node().get()};
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    if (!n->requires_grad || !seen.insert(n).second) continue;
    order.push_back(n);
    for (auto& in : n->inputs) stack.push_back(in.get());
  }
  std::sort(order.begin(), order.end(), [](Node* a, Node* b) { return a->seq > b->seq; });
  Node& root = *loss.node();
  accumulate(root, Tensor::full(root.value.shape(), 1.0, root.value.dtype(), root.value.device()));
  for (Node* n : order) {
    if (n->is_leaf || (!n->grad.defined() && !n->always_run)) continue;
    n->backward(*n);
    n->grad = Tensor();  // intermediate gradients are not kept
  }
}

}  // namespace realmt::graph
