#include "case_util.h"
#include "core/rng.h"
#include "graph/dropout.h"
#include "ops/dropout.h"

namespace realmt::test {
namespace {

// The definition, element by element: keep iff the unit float of draw (seed, offset + e) >= p.
Tensors naive_dropout(const Tensors& in, const ops::DropoutOptions& o) {
  Host x(in[0]);
  Host y(x.shape);
  for (size_t e = 0; e < x.v.size(); ++e) {
    const double u = u32_to_unit_float(philox_u32(o.seed, o.offset + e));
    y.v[e] = u >= o.p ? x.v[e] / (1.0 - o.p) : 0.0;
  }
  return {y.tensor()};
}

OpCase dropout_case(const std::string& name, const Shape& shape, double p, uint64_t offset,
                    DType dtype = DType::kF32) {
  OpCase c;
  c.name = name;
  c.dtype = dtype;
  InputSpec x;
  x.shape = shape;
  c.inputs = {x};
  const ops::DropoutOptions o{.p = p, .seed = 77, .offset = offset};
  c.run = [o](const Tensors& in) { return Tensors{ops::dropout(in[0], o)}; };
  c.reference = [o](const Tensors& in) { return naive_dropout(in, o); };
  // A fresh generator per evaluation: every finite-difference evaluation draws the same mask.
  c.graph = [p, offset](const std::vector<graph::Var>& v) {
    Generator gen(77);
    gen.set_state(77, offset);
    return graph::dropout(v[0], p, gen);
  };
  if (dtype == DType::kF64) c.rtol = c.atol = 1e-15;
  return c;
}

// The backward op alone: dy * mask * scale.
OpCase dropout_backward_case(const std::string& name, const Shape& shape, double p,
                             uint64_t offset) {
  OpCase c = dropout_case(name, shape, p, offset);
  c.inputs[0].differentiable = false;
  const ops::DropoutOptions o{.p = p, .seed = 77, .offset = offset};
  c.run = [o](const Tensors& in) { return Tensors{ops::dropout_backward(in[0], o)}; };
  c.graph = nullptr;
  return c;
}

REALMT_OP_CASE(dropout_p0) { return dropout_case("dropout/p0_identity", {5, 7}, 0.0, 0); }
REALMT_OP_CASE(dropout_p01) { return dropout_case("dropout/p0.1", {6, 33}, 0.1, 8); }
REALMT_OP_CASE(dropout_p05) { return dropout_case("dropout/p0.5", {4, 5, 9}, 0.5, 1024); }
REALMT_OP_CASE(dropout_unaligned) {
  // Offset and length not multiples of 4: partial Philox blocks at both ends.
  return dropout_case("dropout/unaligned_offset", {3, 7}, 0.3, 6);
}
REALMT_OP_CASE(dropout_large) {
  OpCase c = dropout_case("dropout/threaded", {64, 1000}, 0.1, 4096);
  c.grad_max_elements = 32;
  return c;
}
REALMT_OP_CASE(dropout_f64) { return dropout_case("dropout/f64", {9, 11}, 0.5, 12, DType::kF64); }
REALMT_OP_CASE(dropout_backward_p05) {
  return dropout_backward_case("dropout_backward/p0.5", {7, 13}, 0.5, 5);
}

}  // namespace
}  // namespace realmt::test
