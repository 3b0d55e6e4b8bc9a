#include "training/trainer_impl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/stop_signal.h"
#include "core/allocator.h"
#include "data/batch_generator.h"
#include "distributed/communicator.h"
#include "distributed/replicas.h"
#include "models/transformer.h"
#include "ops/matmul.h"
#include "ops/optimizer.h"
#include "training/mixed_precision.h"
#include "training/shard.h"
#include "training/train_log.h"
#include "training/update_rule.h"
#include "training/validator.h"

namespace realmt::training {

Trainer::Trainer(TrainOptions options) {
  const distributed::FailureGuard guard;  // an error on one rank ends the whole job at exit
  impl_ = std::make_unique<Impl>(std::move(options));
}
Trainer::~Trainer() = default;
const models::Transformer& Trainer::model() const { return *impl_->model; }
std::string Trainer::state_path() const { return impl_->state_path(); }

TrainResult Trainer::run() {
  Impl& s = *impl_;
  const distributed::FailureGuard guard;  // an error on one rank ends the whole job at exit
  s.start();
  const graph::ParameterSet& params = s.model->params();
  distributed::check_replicas_agree(*s.comm, params.values().flat(), "the initial parameters");
  if (s.comm->size() > 1 && s.lead())
    s.log->line("data parallel: " + std::to_string(s.comm->size()) + " processes (" + s.comm->name() +
                "), each trains on its own batches of mini-batch-words; an update holds " +
                std::to_string(s.comm->size()) + " x optimizer-delay (" + std::to_string(s.o.optimizer_delay) +
                ") batches");
  Allocator& mem = allocator_for(s.device);
  // Mixed precision: the compute copy starts from the initialised, loaded or resumed weights;
  // tf32 lets every f32 GEMM of this run (validation included) use TF32 tensor cores.
  s.mp->refresh();
  const ops::AllowTf32 tf32(s.precision == Precision::kTf32);
  {
    const AllocatorStats m = mem.stats();
    std::string text = "training on " + s.device.str() + " in " + enum_name(s.precision) + ": " +
                       std::to_string(params.numel()) + " parameters";
    if (s.mp->has_compute_copy()) text += " (f32 master weights and a compute copy)";
    if (s.mp->scaler()) text += ", dynamic loss scale " + std::to_string(s.mp->loss_scale());
    char mb[96];
    std::snprintf(mb, sizeof mb, "; device memory %.1f MB allocated, %.1f MB reserved", m.allocated_bytes / 1048576.0,
                  m.reserved_bytes / 1048576.0);
    if (s.lead()) s.log->line(text + mb);
  }
  TrainResult result;
  // A stop asked for during start-up ends the run before any update (nothing new to save).
  // ---- data parallelism: one decision for all ranks
  int64_t stop_now[1] = {stop_requested() ? 1 : 0};
  if (s.comm->size() > 1) s.comm->all_reduce_sum(std::span<int64_t>(stop_now));
  // ----
  if (stop_now[0] > 0) {
    clear_stop_request();
    if (s.lead()) s.log->line("stopping on a signal received during start-up, before update " +
                              std::to_string(s.progress.updates + 1));
    result.stop_reason = StopReason::kSignal;
    result.updates = s.progress.updates;
    result.epochs = s.progress.epoch;
    return result;
  }
  const double t0 = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  auto now = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() - t0;
  };
  const Progress run_start = s.progress;
  Progress last_display = s.progress;
  double display_time = 0, display_loss = 0;
  int64_t display_tokens = 0, last_tokens = 0;
  double grad_norm = 0;
  while (true) {
    if (s.reached(s.o.after)) {
      result.stop_reason = StopReason::kAfter;
      break;
    }
    // One update: optimizer-delay batches, gradients summed, then normalised per target token.
    params.zero_grad();
    double loss_sum = 0;
    int64_t tokens = 0;
    const Progress before = s.progress;
    bool epoch_ended = false;
    std::string bad_loss;  // a non-finite loss on this rank (the error is raised on all ranks below)
    bool first_backward = true;
    for (int k = 0; k < s.o.optimizer_delay && !epoch_ended; ++k) {
      // ---- data parallelism: the ranks deal the shared batch stream out in rounds, one batch
      // each (distributed/shard.h): mini-batch-words is per rank, as fairseq's max-tokens. One
      // process draws rounds of one batch.
      Round round = draw_round([&] { return s.data->next(); }, s.comm->rank(),
                                                         s.comm->size());
      s.progress.batches += round.batches;
      s.progress.sentences += round.sentences;
      epoch_ended = round.end_of_epoch;
      if (!round.own) continue;  // the epoch ended before this rank's batch: it only joins the all-reduce
      std::optional<data::Batch>& batch = round.own;
      // ----
      Tensor src = Tensor::from_vector(batch->src, {batch->size, batch->src_len});
      Tensor tgt_in, tgt_out;
      shift_target(batch->tgt, batch->size, batch->tgt_len, &tgt_in, &tgt_out);
      models::ForwardContext ctx;
      ctx.gen = &s.dropout_gen;
      models::LossOutput out = s.mp->compute_model().loss(src, tgt_in, tgt_out, s.o.label_smoothing, ctx);
      const double value = out.loss.value().item();
      if (!std::isfinite(value)) {
        bad_loss = format(
            "training loss is {} at update {} (batch of {} sentences, corpus lines {}..); nothing of this update "
            "was applied and the last checkpoint is intact; lower learn-rate, add lr-warmup or clip-norm",
            value, s.progress.updates + 1, batch->size, batch->ids.empty() ? 0 : batch->ids[0] + 1);
        break;
      }
      s.mp->backward(out.loss, first_backward);  // f32 gradients in the master arena (times the loss scale)
      first_backward = false;
      loss_sum += value;
      tokens += out.target_tokens;
    }
    // ---- data parallelism: sum loss, tokens and gradients over the ranks. Every decision below
    // (non-finite loss, f16 overflow, norm, clipping, the step) then sees the same numbers on
    // every rank, so all ranks take the same step, or all stop together.
    double bad_ranks = bad_loss.empty() ? 0 : 1;
    if (s.comm->size() > 1) {
      double sums[3] = {loss_sum, static_cast<double>(tokens), bad_ranks};  // exact: counts < 2^53
      s.comm->all_reduce_sum(std::span<double>(sums));
      loss_sum = sums[0];
      tokens = static_cast<int64_t>(sums[1]);
      bad_ranks = sums[2];
      if (tokens > 0 && bad_ranks == 0) s.comm->all_reduce_sum(params.grads().flat());
    }
    if (!bad_loss.empty()) REALMT_FAIL("{}", bad_loss);
    REALMT_CHECK(bad_ranks == 0,
                 "training loss is not finite on {} other rank(s) at update {}; nothing of this update was applied and "
                 "the last checkpoint is intact; lower learn-rate, add lr-warmup or clip-norm",
                 bad_ranks, s.progress.updates + 1);
    // ----
    // f16: the gradients are loss_scale x the true ones; an overflow skips the whole update.
    const double loss_scale = s.mp->loss_scale();
    const double squares = tokens > 0 ? ops::sum_squares(params.grads().flat()) : 0.0;
    if (tokens > 0 && !s.mp->finish(squares)) {
      if (s.lead())
        s.log->line("update " + std::to_string(s.progress.updates + 1) + ": f16 gradients overflowed at loss scale " +
                    std::to_string(loss_scale) + "; update skipped (" + std::to_string(s.mp->scaler()->skipped()) +
                    " so far), loss scale now " + std::to_string(s.mp->loss_scale()));
      tokens = 0;  // nothing of it counts as trained
    }
    if (tokens > 0) {
      const UpdateResult u = apply_update(params, *s.optimizer, s.schedule, s.ema.get(),
                                          {s.o.clip_norm, s.o.exponential_smoothing}, squares, tokens, loss_scale,
                                          s.progress.updates + 1);
      grad_norm = u.grad_norm;
      s.mp->refresh();  // master -> compute copy
      s.progress.updates += 1;
      s.progress.tokens += tokens;
      s.average_grad_norm(grad_norm);
      last_tokens = tokens;
      result.losses.push_back(loss_sum / tokens);
      display_loss += loss_sum;
      display_tokens += tokens;
    }
    if (epoch_ended) {
      s.progress.epoch += 1;
      if (s.lead()) {  // Marian's lines
        s.log->line("Seen " + with_commas(s.progress.sentences - s.epoch_start.sentences) + " samples");
        s.log->line("Starting epoch " + std::to_string(s.progress.epoch + 1));
      }
      s.epoch_start = s.progress;
    }
    const Progress after = s.progress;
    const bool first = after.updates > before.updates && after.updates <= s.o.disp_first;  // Marian's disp-first
    if (due(s.o.disp_freq, last_display, after) || first || (s.reached(s.o.after) && display_tokens > 0)) {
      DisplayStats d;
      d.epoch = after.epoch + 1;
      d.updates = after.updates;
      d.sentences_in_epoch = after.sentences - s.epoch_start.sentences;
      d.sentences_total = after.sentences;
      d.cost_sum = display_loss;
      d.labels = display_tokens;
      d.sentences = after.sentences - last_display.sentences;
      d.updates_since = after.updates - last_display.updates;
      d.batch_labels = last_tokens;
      d.labels_total = after.tokens;
      const double t = now();
      d.seconds = std::max(1e-9, t - display_time);
      d.elapsed_seconds = t;
      d.lr = s.schedule.at(std::max<int64_t>(after.updates, 1));
      d.grad_norm = grad_norm;
      d.grad_norm_avg = s.grad_norm_avg;
      const AllocatorStats m = mem.stats();
      d.mem_bytes = m.peak_allocated_bytes;
      d.mem_reserved_bytes = m.reserved_bytes;
      if (const LossScaler* ls = s.mp->scaler()) {
        d.loss_scale = ls->scale();
        d.skipped_updates = ls->skipped();
      }
      if (!s.o.after.off() && s.o.after.unit != Duration::Unit::kEpochs) {
        // Seconds a unit so far in this run, times the units left.
        const int64_t done = units(after, s.o.after.unit) - units(run_start, s.o.after.unit);
        if (done > 0) d.eta_seconds = t / done * static_cast<double>(s.o.after.value - units(after, s.o.after.unit));
      }
      if (s.o.time_limit_minutes > 0) {  // the time limit ends the run first when it is nearer
        const double left = std::max(0.0, 60.0 * s.o.time_limit_minutes - t);
        d.eta_seconds = d.eta_seconds < 0 ? left : std::min(d.eta_seconds, left);
      }
      if (s.lead()) s.log->display(d);
      last_display = after;
      display_time = t;
      display_loss = 0;
      display_tokens = 0;
    } else if (!s.o.disp_freq.off() && s.o.disp_freq.unit == Duration::Unit::kUpdates) {
      const double frac = static_cast<double>(after.updates % s.o.disp_freq.value) / s.o.disp_freq.value;
      if (s.lead()) s.log->progress(frac, "update " + std::to_string(after.updates));
    }
    bool stop_early = false;
    if (due(s.o.valid_freq, before, after) && s.lead()) {
      s.validate_now();
      stop_early = s.o.early_stopping > 0 && s.stalled() >= s.o.early_stopping;
    }
    bool out_of_time = s.o.time_limit_minutes > 0 && now() >= 60.0 * s.o.time_limit_minutes;
    bool signalled = stop_requested();
    // ---- data parallelism: one decision for all ranks (rank 0 validated; signals and clocks are
    // per process). Ranks waiting here for rank 0's validation count it against comm-timeout.
    if (s.comm->size() > 1) {
      int64_t flags[3] = {stop_early, out_of_time, signalled};
      s.comm->all_reduce_sum(std::span<int64_t>(flags));
      stop_early = flags[0] > 0;
      out_of_time = flags[1] > 0;
      signalled = flags[2] > 0;
    }
    // ----
    const bool finished = s.reached(s.o.after) || stop_early || signalled || out_of_time;
    if (due(s.o.save_freq, before, after) || finished) s.save(due(s.o.save_freq, before, after));
    if (stop_early) {
      result.stop_reason = StopReason::kEarlyStopping;
      if (s.lead()) s.log->line("stopping: no improvement in " + std::to_string(s.stalled()) + " validations");
      break;
    }
    if (out_of_time) {
      result.stop_reason = StopReason::kTimeLimit;
      if (s.lead())
        s.log->line("stopping: time-limit of " + std::to_string(s.o.time_limit_minutes) + " minutes reached");
      break;
    }
    if (signalled) {
      clear_stop_request();  // acted on
      result.stop_reason = StopReason::kSignal;
      if (s.lead())
        s.log->line("stopping on a signal; checkpoint saved at update " + std::to_string(s.progress.updates));
      break;
    }
  }
  result.updates = s.progress.updates;
  result.epochs = s.progress.epoch;
  return result;
}

}  // namespace realmt::training
