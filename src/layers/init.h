// Parameter initialisers (graph::Initializer), given to ParameterSet::add with each parameter:
// host-side draws from the model's seeded Generator, then one copy to the device.
#pragma once

#include "graph/parameters.h"

namespace realmt::layers {

// Glorot/Xavier uniform for a [fan_in, fan_out] matrix: U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
// A matrix of `blocks` fused projections side by side ([D, 3D] for Q|K|V) is initialised as
// `blocks` separate [fan_in, fan_out / blocks] matrices would be, with the same draws.
graph::Initializer xavier_uniform(int blocks = 1);
// Normal(0, std).
graph::Initializer normal(double std);
// Every element = value (no draws).
graph::Initializer constant(double value);

}  // namespace realmt::layers
