// ADMIN profiling on real data (realmt-init, and realmt-train when admin-init is profile and no
// pretrained model is given): the first batch of the training order, one training-mode forward
// pass with dropout, omegas set on the way (models/admin.h).
#pragma once

#include <string>

#include "data/batch_generator.h"
#include "models/transformer.h"

namespace realmt::training {

// Profiles `model` (allocated and initialised) on the first batch that a loader with `options`
// yields, with dropout drawn from `seed`. Returns the readable profile table.
std::string profile_admin_on_first_batch(models::Transformer& model,
                                         data::BatchGeneratorOptions options, uint64_t seed);

}  // namespace realmt::training
