// ADMIN initialisation of the omega vectors (Liu et al. 2020; ARCHITECTURE.md).
//   profile:     one training-mode forward pass (dropout on) on a real batch; the encoder and
//                decoder each keep r = 1; for each sub-layer i in forward order
//                  omega_i = r,  r = sqrt(Var(x_{i-1} * omega_i) + Var(f_i(x_{i-1})))
//                with population variances over all elements, in f32 inputs accumulated in f64.
//   closed-form: omega = sqrt((N + 1) / ln(N + 1) - 1), N = residual sub-layers in the stack.
//   none:        omega = 1 (the model then has no omega parameters).
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace realmt::models {

// The closed form for a stack of `sublayers` residual sub-layers (each omega's initializer,
// models/transformer.cc).
double admin_closed_form_omega(int sublayers);

// Called by the model's sub-layers during a profiling pass.
class AdminProfiler {
 public:
  struct Row {
    std::string omega;  // parameter name
    double value;       // omega_i (= r before the sub-layer)
    double var_input;   // Var(x_{i-1} * omega_i)
    double var_branch;  // Var(f_i(x_{i-1}))
  };
  // Sets omega (all elements) to the stack's running r.
  void set_omega(int stack, const std::string& name, const Tensor& omega);
  // Records the two variances of the sub-layer just run and advances r.
  void record(int stack, const Tensor& scaled_input, const Tensor& branch);
  const std::vector<Row>& rows() const { return rows_; }
  std::string table() const;  // readable profile: sub-layer, omega, variances

 private:
  double r_[2] = {1.0, 1.0};  // encoder, decoder
  std::vector<Row> rows_;
};

// Population variance of all elements (accumulated in double).
double population_variance(const Tensor& t);

}  // namespace realmt::models
