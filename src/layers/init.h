// Parameter initialisers (host-side draws from a seeded Generator, then one copy to the device).
#pragma once

#include "core/rng.h"
#include "core/tensor.h"

namespace realmt::layers {

// Glorot/Xavier uniform for a [fan_in, fan_out] matrix: U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
// A matrix of `blocks` fused projections side by side ([D, 3D] for Q|K|V) is initialised as
// `blocks` separate [fan_in, fan_out / blocks] matrices would be, with the same draws.
void init_xavier_uniform(const Tensor& w, Generator& gen, int blocks = 1);
// Normal(0, std).
void init_normal(const Tensor& w, double std, Generator& gen);
// Every element = value.
void init_constant(const Tensor& w, double value);

}  // namespace realmt::layers
