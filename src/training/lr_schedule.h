// The learning rate at update t (1-based), Marian's conventions:
//   warm-up (lr-warmup W):          lr * min(1, t / W)
//   inverse sqrt (lr-decay-inv-sqrt D): times sqrt(D / t) once t > D
//   linear decay (lr-decay-linear N):   times max(0, (N - t) / (N - W)) once t > W
#pragma once

#include <cstdint>

namespace realmt::training {

struct LrSchedule {
  double peak = 3e-4;
  int64_t warmup = 0;
  int64_t inv_sqrt_from = 0;
  int64_t linear_to = 0;
  double at(int64_t update) const;
};

}  // namespace realmt::training
