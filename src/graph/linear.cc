#include "graph/linear.h"

#include "ops/bias.h"
#include "ops/matmul.h"

namespace realmt::graph {

namespace {

// dst_node.grad += a @ b (options o), straight into its buffer when it has one.
void accumulate_product(Node& dst, const Tensor& a, const Tensor& b, const ops::MatmulOptions& o,
                        const Shape& shape) {
  if (!dst.requires_grad) return;
  if (Tensor* g = grad_accumulator(dst)) {
    Tensor view = g->reshape(shape);
    ops::matmul_into(a, b, view, o, 1.0f);
    return;
  }
  accumulate_owned(dst, ops::matmul(a, b, o).reshape(dst.value.shape()));
}

}  // namespace

Var linear(const Var& x, const Var& w, const Var& b) {
  const int64_t din = w.dim(0), dout = w.dim(1);
  REALMT_CHECK(w.rank() == 2 && x.dim(-1) == din,
               "linear: inputs [..., {}] needed for W {}, got {}", din, w.shape(), x.shape());
  std::vector<int64_t> out_dims = x.shape().vec();
  out_dims.back() = dout;
  const Tensor x2 = x.value().reshape({-1, din});
  Tensor y = Tensor::empty(Shape(out_dims), x.dtype(), x.device());
  Tensor y2 = y.reshape({-1, dout});
  if (b.defined()) {
    ops::fill_rows_(y2, b.value());
    ops::matmul_into(x2, w.value(), y2, {}, 1.0f);
  } else {
    ops::matmul_into(x2, w.value(), y2, {}, 0.0f);
  }
  std::vector<Var> inputs{x, w};
  if (b.defined()) inputs.push_back(b);
  return record(std::move(y), std::move(inputs), "linear", [x, w, b, din, dout](Node& self) {
    const Tensor dy = self.grad.reshape({-1, dout});
    const Tensor xv = x.value().reshape({-1, din});
    if (x.requires_grad())
      accumulate_product(*x.node(), dy, w.value(), {.trans_b = true}, xv.shape());
    if (w.requires_grad()) accumulate_product(*w.node(), xv, dy, {.trans_a = true}, w.shape());
    if (b.defined() && b.requires_grad()) {
      if (Tensor* g = grad_accumulator(*b.node())) {
        ops::add_column_sums_(dy, *g);
      } else {
        Tensor db = Tensor::zeros(b.shape(), b.dtype(), b.device());
        ops::add_column_sums_(dy, db);
        accumulate_owned(b.node(), std::move(db));
      }
    }
  });
}

}  // namespace realmt::graph
