// The trainer's update sequence with mixed precision, on synthetic reverse-task batches: loss on
// the compute copy, backward into the master, gradient check, Adam step on the master, refresh.
// Shared by the CPU tests (f64 master, f32 copy) and the CUDA tests (f32 master, bf16/f16 copy).
#pragma once

#include <vector>

#include "models/transformer.h"
#include "ops/optimizer.h"
#include "reverse_task.h"
#include "training/lr_schedule.h"
#include "training/mixed_precision.h"
#include "training/optimizer.h"

namespace realmt::training::test {

// `updates` updates of 16 sentences; returns the losses per target token of the applied ones
// and counts the skipped ones (f16 overflow) in *skipped.
inline std::vector<double> train_mixed(models::Transformer& master, MixedPrecision& mp, int updates,
                                       uint64_t seed, int* skipped = nullptr) {
  Optimizer opt(master.params(), OptimizerOptions{});
  LrSchedule lr{.peak = 3e-3, .warmup = 10};
  Generator data(seed);
  std::vector<double> losses;
  int applied = 0;
  for (int u = 1; u <= updates; ++u) {
    const test::ReverseBatch b = make_reverse_batch(data, 16, 3, 6);
    master.params().zero_grad();
    const models::LossOutput out = mp.compute_model().loss(b.src, b.tgt_in, b.tgt_out, 0.1, {});
    const double loss_scale = mp.loss_scale();
    mp.backward(out.loss, true);
    const double squares = ops::sum_squares(master.params().grads().flat());
    if (!mp.finish(squares)) {
      if (skipped) ++*skipped;
      continue;
    }
    opt.step(lr.at(++applied), 1.0 / (out.target_tokens * loss_scale));
    mp.refresh();
    losses.push_back(out.loss.value().item() / out.target_tokens);
  }
  return losses;
}

}  // namespace realmt::training::test
