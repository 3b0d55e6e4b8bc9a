// Differentiable bias + activation + dropout (ops/bias_activation.h): h = dropout(act(y + bias)).
// bias may be undefined; dropout draws y.numel() numbers from gen when gen is set.
#pragma once

#include "core/rng.h"
#include "graph/var.h"
#include "ops/bias_activation.h"

namespace realmt::graph {

Var bias_activation(const Var& y, const Var& bias, ops::BiasActivationOptions o, Generator* gen);

}  // namespace realmt::graph
