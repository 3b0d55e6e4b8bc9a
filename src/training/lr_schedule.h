// The learning rate at update t (1-based), Marian's conventions:
//   warm-up (lr-warmup W):          lr * min(1, t / W)
//   inverse sqrt (lr-decay-inv-sqrt D [S]): times sqrt(D / (t - S + D)) once t > S (S: D when not
//                                     given, so sqrt(D / t)); Marian's scheduler.h
//   linear decay (lr-decay-linear N):   times max(0, (N - t) / (N - W)) once t > W
#pragma once

#include <cstdint>

namespace realmt::training {

struct LrSchedule {
  double peak = 3e-4;
  int64_t warmup = 0;
  int64_t inv_sqrt_from = 0;
  int64_t linear_to = 0;
  int64_t inv_sqrt_start = -1;  // S; -1: inv_sqrt_from
  double at(int64_t update) const;
};

}  // namespace realmt::training
