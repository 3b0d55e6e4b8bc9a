#include "training/optimizer.h"

#include <cmath>

#include "ops/optimizer.h"

namespace realmt::training {

Optimizer::Optimizer(const graph::ParameterSet& params, const OptimizerOptions& options)
    : params_(params), options_(options) {
  const Arena& values = params.values();
  m_ = std::make_unique<Arena>(params.shapes(), values.dtype(), values.device());
  v_ = std::make_unique<Arena>(params.shapes(), values.dtype(), values.device());
}

void Optimizer::step(double lr, double grad_scale) {
  ++steps_;
  const double t = static_cast<double>(steps_);
  const double b1 = options_.beta1, b2 = options_.beta2;
  const double bc1 = 1 - std::pow(b1, t), bc2 = 1 - std::pow(b2, t);
  ops::AdamStep s;
  s.beta1 = b1;
  s.beta2 = b2;
  s.eps = options_.eps;
  s.grad_scale = grad_scale;
  s.bias_correction2 = bc2;
  s.step_size = lr / bc1;
  if (options_.radam) {
    // Rectification (Liu et al. 2020, Alg. 2): rho_t approximates the length of the SMA; while
    // it is small the variance of the adaptive rate is unbounded and the update is momentum SGD.
    const double rho_inf = 2 / (1 - b2) - 1;
    const double rho_t = rho_inf - 2 * t * std::pow(b2, t) / bc2;
    if (rho_t >= 5) {
      s.step_size *=
          std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
    } else {
      s.use_denominator = false;
    }
  }
  // Arena padding is zero in all four buffers and stays zero, so the flat update is exact.
  ops::adam_update(params_.values().flat(), params_.grads().flat(), m_->flat(), v_->flat(), s);
}

std::vector<models::NamedArena> Optimizer::arenas() const {
  return {{"adam.m", *m_}, {"adam.v", *v_}};
}

}  // namespace realmt::training
