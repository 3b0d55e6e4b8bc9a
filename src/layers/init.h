// Parameter initialisers (host-side draws from a seeded Generator, then one copy to the device).
#pragma once

#include "core/rng.h"
#include "core/tensor.h"

namespace realmt::layers {

// Glorot/Xavier uniform for a [fan_in, fan_out] matrix: U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
void init_xavier_uniform(const Tensor& w, Generator& gen);
// Normal(0, std).
void init_normal(const Tensor& w, double std, Generator& gen);
// Every element = value.
void init_constant(const Tensor& w, double value);

}  // namespace realmt::layers
