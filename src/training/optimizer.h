// Adam (Kingma & Ba 2015) and RAdam (Liu et al. 2020, the ADMIN recipe's optimizer) over the
// parameter arena: the first and second moments are two more arenas of the same layout, so an
// update is one pass over three flat buffers (ops::adam_update).
#pragma once

#include <memory>
#include <string>

#include "core/arena.h"
#include "graph/parameters.h"
#include "models/checkpoint.h"

namespace realmt::training {

struct OptimizerOptions {
  bool radam = false;
  double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;
};

class Optimizer {
 public:
  Optimizer(const graph::ParameterSet& params, const OptimizerOptions& options);

  // One update from the accumulated gradients, each multiplied by grad_scale first.
  void step(double lr, double grad_scale);
  int64_t steps() const { return steps_; }
  const Arena& first_moments() const { return *m_; }
  const Arena& second_moments() const { return *v_; }
  // The moments as checkpoint arenas ("adam.m", "adam.v").
  std::vector<models::NamedArena> arenas() const;
  void set_steps(int64_t steps) { steps_ = steps; }

 private:
  const graph::ParameterSet& params_;
  OptimizerOptions options_;
  std::unique_ptr<Arena> m_, v_;
  int64_t steps_ = 0;
};

}  // namespace realmt::training
