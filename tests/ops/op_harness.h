// The op harness (ARCHITECTURE.md): every op registers cases; for each case the harness
//   1. checks the CPU op against a naive reference computed in double, at every CPU kernel level
//      this machine runs (core/cpu_isa.h: baseline, avx2, avx512),
//   2. checks every differentiable op's backward against central finite differences in f64,
//   3. checks the CUDA kernels against the CPU ones when a GPU is visible (a missing CUDA kernel
//      is then a failure; without a GPU the check is skipped, said so): the op's outputs, and the
//      input gradients of its graph function (the backward kernels); the backward kernels of the
//      lower CPU levels are checked against the highest's the same way,
// and prints which backends have the kernels of every case (op_support.cc, OpSupport.*).
// Adding an op adds a case in a *_cases.cc file here: REALMT_OP_CASE(name) { return OpCase{...}; }
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/tensor.h"
#include "graph/var.h"

namespace realmt::test {

// How one input is made (on the CPU, in the case's dtype unless it is an integer input).
struct InputSpec {
  Shape shape;
  double lo = -2.0, hi = 2.0;  // uniform range for floating inputs
  bool integer = false;        // i32 in [lo, hi) instead
  bool differentiable = true;  // floating inputs: checked by the gradient check
  // Optional custom maker (masks, targets with padding, ...); returns a CPU tensor.
  std::function<Tensor(Generator&, DType)> make{};
};

using Tensors = std::vector<Tensor>;

struct OpCase {
  std::string name;
  std::vector<InputSpec> inputs;
  DType dtype = DType::kF32;  // dtype of floating inputs for the reference and CUDA checks
  // The op under test (ops::), on tensors of any device; returns its outputs.
  std::function<Tensors(const Tensors&)> run;
  // The naive reference: host tensors in, outputs as f64 (or i32) host tensors.
  std::function<Tensors(const Tensors&)> reference;
  // The differentiable version (graph::) for the gradient check; empty if not differentiable.
  std::function<graph::Var(const std::vector<graph::Var>&)> graph;
  double rtol = 1e-5, atol = 1e-6;  // reference and CUDA comparison (f32)
  double grad_eps = 1e-6, grad_tol = 1e-6;
  int grad_max_elements = 48;  // finite differences per input (spread evenly)
};

// Registers a case maker; returns true so it can initialise a static.
bool register_case(std::function<OpCase()> maker);
std::vector<OpCase> all_cases();
void PrintTo(const OpCase& c, std::ostream* os);

// Makes the inputs of a case with a fixed seed.
Tensors make_inputs(const OpCase& c, DType float_dtype, uint64_t seed);
// Element-wise comparison; returns "" when close, else a description of the worst element.
std::string compare(const Tensor& got, const Tensor& want, double rtol, double atol);

// A host tensor from doubles, in f64.
Tensor f64_tensor(const Shape& shape, const std::vector<double>& values);
// Host copy of any floating tensor as doubles.
std::vector<double> to_doubles(const Tensor& t);

}  // namespace realmt::test

#define REALMT_OP_CASE_CONCAT_(a, b) a##b
#define REALMT_OP_CASE_CONCAT(a, b) REALMT_OP_CASE_CONCAT_(a, b)
#define REALMT_OP_CASE(fn)                                                    \
  static ::realmt::test::OpCase fn();                                         \
  [[maybe_unused]] static const bool REALMT_OP_CASE_CONCAT(fn, _registered) = \
      ::realmt::test::register_case(fn);                                      \
  static ::realmt::test::OpCase fn()
