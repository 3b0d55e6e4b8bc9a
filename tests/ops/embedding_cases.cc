#include <cmath>

#include "case_util.h"
#include "graph/embedding.h"
#include "ops/embedding.h"

namespace realmt::test {
namespace {

// ids [shape] in [0, vocab), with every third position set to id 2 so ids repeat for sure.
InputSpec ids_spec(const Shape& shape, int64_t vocab) {
  InputSpec s;
  s.differentiable = false;
  s.make = [shape, vocab](Generator& g, DType) {
    std::vector<int32_t> v(shape.numel());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] =
          i % 3 == 0
              ? 2
              : static_cast<int32_t>(std::min<double>(vocab - 1, std::floor(g.uniform() * vocab)));
    return Tensor::from_vector(v, shape);
  };
  return s;
}

InputSpec float_spec(const Shape& shape, bool differentiable) {
  InputSpec s;
  s.shape = shape;
  s.differentiable = differentiable;
  return s;
}

Tensors naive_lookup(const Tensors& in) {
  Host w(in[0]);
  const std::vector<int32_t> ids = in[1].to_vector<int32_t>();
  const int64_t d = w.shape[1];
  std::vector<int64_t> dims = in[1].shape().vec();
  dims.push_back(d);
  Host y{Shape(dims)};
  for (size_t p = 0; p < ids.size(); ++p)
    for (int64_t c = 0; c < d; ++c) y.v[p * d + c] = w.v[ids[p] * d + c];
  return {y.tensor()};
}

Tensors naive_scatter(const Tensors& in, int64_t vocab) {
  Host dy(in[0]);
  const std::vector<int32_t> ids = in[1].to_vector<int32_t>();
  const int64_t d = dy.shape[-1];
  Host dw(Shape{vocab, d});
  for (size_t p = 0; p < ids.size(); ++p)
    for (int64_t c = 0; c < d; ++c) dw.v[ids[p] * d + c] += dy.v[p * d + c];
  return {dw.tensor()};
}

OpCase lookup_case(const std::string& name, int64_t vocab, int64_t d, const Shape& ids,
                   DType dtype = DType::kF32) {
  OpCase c;
  c.name = name;
  c.dtype = dtype;
  c.inputs = {float_spec(Shape{vocab, d}, true), ids_spec(ids, vocab)};
  c.run = [](const Tensors& in) { return Tensors{ops::embedding(in[0], in[1])}; };
  c.reference = naive_lookup;
  c.graph = [](const std::vector<graph::Var>& v) { return graph::embedding(v[0], v[1].value()); };
  if (dtype == DType::kF64) c.rtol = c.atol = 1e-300;  // a copy is exact
  return c;
}

// The backward op alone: dy [ids..., D] scattered into [V, D].
OpCase scatter_case(const std::string& name, int64_t vocab, int64_t d, const Shape& ids) {
  OpCase c;
  c.name = name;
  std::vector<int64_t> dims = ids.vec();
  dims.push_back(d);
  c.inputs = {float_spec(Shape(dims), false), ids_spec(ids, vocab)};
  c.run = [vocab](const Tensors& in) {
    return Tensors{ops::embedding_backward(in[0], in[1], vocab)};
  };
  c.reference = [vocab](const Tensors& in) { return naive_scatter(in, vocab); };
  return c;
}

REALMT_OP_CASE(emb_lookup) { return lookup_case("embedding/repeated_ids", 13, 8, {3, 5}); }
REALMT_OP_CASE(emb_wide) {
  // D = 100 is not a whole number of 16-float column blocks; 512 positions use two threads.
  OpCase c = lookup_case("embedding/wide_threaded", 50, 100, {8, 64});
  c.grad_max_elements = 64;
  return c;
}
REALMT_OP_CASE(emb_f64) { return lookup_case("embedding/f64", 7, 5, {2, 3, 4}, DType::kF64); }
REALMT_OP_CASE(emb_scatter) {
  return scatter_case("embedding_backward/repeated_ids", 9, 6, {4, 7});
}
REALMT_OP_CASE(emb_scatter_wide) {
  return scatter_case("embedding_backward/wide_threaded", 40, 100, {16, 40});
}

}  // namespace
}  // namespace realmt::test
