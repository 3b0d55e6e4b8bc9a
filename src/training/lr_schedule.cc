#include "training/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace realmt::training {

double LrSchedule::at(int64_t t) const {
  t = std::max<int64_t>(t, 1);
  double lr = peak;
  if (warmup > 0) lr *= std::min(1.0, static_cast<double>(t) / warmup);
  const int64_t start = inv_sqrt_start >= 0 ? inv_sqrt_start : inv_sqrt_from;
  if (inv_sqrt_from > 0 && t > start)
    lr *= std::sqrt(static_cast<double>(inv_sqrt_from) /
                    static_cast<double>(t - start + inv_sqrt_from));
  if (linear_to > 0 && t > warmup) {
    const double span = static_cast<double>(std::max<int64_t>(linear_to - warmup, 1));
    lr *= std::max(0.0, (linear_to - t) / span);
  }
  return lr;
}

}  // namespace realmt::training
