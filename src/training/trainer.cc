// The training loop: Trainer::run and its steps (one update: accumulate, sum over the ranks,
// apply; then the epoch, the training line, the stop decision). Set-up, checkpoints and
// validation are in trainer_state.cc.
#include "training/trainer_impl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>

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

namespace {

double clock_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Trainer::Trainer(TrainOptions options) {
  const distributed::FailureGuard guard;  // an error on one rank ends the whole job at exit
  impl_ = std::make_unique<Impl>(std::move(options));
}
Trainer::~Trainer() = default;
void Trainer::on_update(UpdateObserver observer) { impl_->on_update = std::move(observer); }
const models::Transformer& Trainer::model() const { return *impl_->model; }
std::string Trainer::state_path() const { return impl_->state_path(); }

TrainResult Trainer::run() {
  Impl& s = *impl_;
  const distributed::FailureGuard guard;  // an error on one rank ends the whole job at exit
  s.start();
  distributed::check_replicas_agree(*s.comm, s.model->params().values().flat(),
                                    "the initial parameters");
  // Mixed precision: the compute copy starts from the initialised, loaded or resumed weights;
  // tf32 lets every f32 GEMM of this run (validation included) use TF32 tensor cores.
  s.mp->refresh();
  const ops::AllowTf32 tf32(s.precision == Precision::kTf32);
  s.log_start();
  s.run = {};
  if (s.stopped_during_start_up()) return s.finish_run(StopReason::kSignal);
  s.run.t0 = clock_seconds();
  s.run.start = s.run.last_display = s.progress;
  while (!s.reached(s.o.after)) {
    // One update: optimizer-delay batches, gradients summed, then normalised per target token.
    const Progress before = s.progress;
    UpdateSums sums = s.accumulate();
    s.sum_over_ranks(sums);
    s.apply(sums);
    if (sums.epoch_ended) s.end_epoch();
    s.report(before);
    if (s.on_update && s.lead() && s.progress.updates > before.updates)
      s.on_update(s.update_report());
    const StopFlags stop = s.decide_stop(before);
    const bool save_due = due(s.o.save_freq, before, s.progress);
    if (save_due || s.reached(s.o.after) || stop.any()) s.save(save_due);
    if (stop.any()) return s.finish_run(s.stop_reason(stop));
  }
  return s.finish_run(StopReason::kAfter);
}

double Trainer::Impl::elapsed() const { return clock_seconds() - run.t0; }

UpdateReport Trainer::Impl::update_report() const {
  const double t = std::max(1e-9, elapsed());
  return {.update = progress.updates,
          .epoch = progress.epoch + 1,
          .loss = run.result.losses.empty() ? 0.0 : run.result.losses.back(),
          .tokens = run.last_tokens,
          .tokens_per_second = static_cast<double>(progress.tokens - run.start.tokens) / t,
          .seconds = t};
}

void Trainer::Impl::log_start() const {
  if (!lead()) return;
  if (comm->size() > 1)
    log->line("data parallel: " + std::to_string(comm->size()) + " processes (" + comm->name() +
              "), each trains on its own batches of mini-batch-words; an update holds " +
              std::to_string(comm->size()) + " x optimizer-delay (" +
              std::to_string(o.optimizer_delay) + ") batches");
  const AllocatorStats m = allocator_for(device).stats();
  std::string text = "training on " + device.str() + " in " + enum_name(precision) + ": " +
                     std::to_string(model->params().numel()) + " parameters";
  if (mp->has_compute_copy()) text += " (f32 master weights and a compute copy)";
  if (mp->scaler()) text += ", dynamic loss scale " + std::to_string(mp->loss_scale());
  char mb[96];
  std::snprintf(mb, sizeof mb, "; device memory %.1f MB allocated, %.1f MB reserved",
                m.allocated_bytes / 1048576.0, m.reserved_bytes / 1048576.0);
  log->line(text + mb);
}

bool Trainer::Impl::stopped_during_start_up() {
  // A stop asked for during start-up ends the run before any update (nothing new to save).
  // ---- data parallelism: one decision for all ranks
  int64_t stop_now[1] = {stop_requested() ? 1 : 0};
  if (comm->size() > 1) comm->all_reduce_sum(std::span<int64_t>(stop_now));
  // ----
  if (stop_now[0] == 0) return false;
  clear_stop_request();
  if (lead())
    log->line("stopping on a signal received during start-up, before update " +
              std::to_string(progress.updates + 1));
  return true;
}

UpdateSums Trainer::Impl::accumulate() {
  const graph::ParameterSet& params = model->params();
  params.zero_grad();
  UpdateSums sums;
  bool first_backward = true;
  for (int k = 0; k < o.optimizer_delay && !sums.epoch_ended; ++k) {
    // ---- data parallelism: the ranks deal the shared batch stream out in rounds, one batch
    // each (training/shard.h): mini-batch-words is per rank, as fairseq's max-tokens. One
    // process draws rounds of one batch.
    Round round = draw_round([&] { return data->next(); }, comm->rank(), comm->size());
    progress.batches += round.batches;
    progress.sentences += round.sentences;
    sums.epoch_ended = round.end_of_epoch;
    if (!round.own)
      continue;  // the epoch ended before this rank's batch: it only joins the all-reduce
    const data::Batch& batch = *round.own;
    // ----
    Tensor src = Tensor::from_vector(batch.src, {batch.size, batch.src_len});
    Tensor tgt_in, tgt_out;
    shift_target(batch.tgt, batch.size, batch.tgt_len, data->vocab().ids(), &tgt_in, &tgt_out);
    models::ForwardContext ctx;
    ctx.gen = &dropout_gen;
    models::LossOutput out = mp->compute_model().loss(src, tgt_in, tgt_out, o.label_smoothing, ctx);
    const double value = out.loss.value().item();
    if (!std::isfinite(value)) {
      sums.bad_loss = format(
          "training loss is {} at update {} (batch of {} sentences, corpus lines {}..); nothing of "
          "this update "
          "was applied and the last checkpoint is intact; lower learn-rate, add lr-warmup or "
          "clip-norm",
          value, progress.updates + 1, batch.size, batch.ids.empty() ? 0 : batch.ids[0] + 1);
      break;
    }
    mp->backward(out.loss,
                 first_backward);  // f32 gradients in the master arena (times the loss scale)
    first_backward = false;
    sums.loss += value;
    sums.tokens += out.target_tokens;
  }
  return sums;
}

void Trainer::Impl::sum_over_ranks(UpdateSums& sums) {
  // ---- data parallelism: sum loss, tokens and gradients over the ranks. Every decision after
  // this (non-finite loss, f16 overflow, norm, clipping, the step) then sees the same numbers on
  // every rank, so all ranks take the same step, or all stop together.
  double bad_ranks = sums.bad_loss.empty() ? 0 : 1;
  if (comm->size() > 1) {
    double all[3] = {sums.loss, static_cast<double>(sums.tokens),
                     bad_ranks};  // exact: counts < 2^53
    comm->all_reduce_sum(std::span<double>(all));
    sums.loss = all[0];
    sums.tokens = static_cast<int64_t>(all[1]);
    bad_ranks = all[2];
    if (sums.tokens > 0 && bad_ranks == 0) comm->all_reduce_sum(model->params().grads().flat());
  }
  if (!sums.bad_loss.empty()) REALMT_FAIL("{}", sums.bad_loss);
  REALMT_CHECK(bad_ranks == 0,
               "training loss is not finite on {} other rank(s) at update {}; nothing of this "
               "update was applied and "
               "the last checkpoint is intact; lower learn-rate, add lr-warmup or clip-norm",
               bad_ranks, progress.updates + 1);
  // ----
}

void Trainer::Impl::apply(UpdateSums& sums) {
  const graph::ParameterSet& params = model->params();
  // f16: the gradients are loss_scale x the true ones; an overflow skips the whole update.
  const double loss_scale = mp->loss_scale();
  const double squares = sums.tokens > 0 ? ops::sum_squares(params.grads().flat()) : 0.0;
  if (sums.tokens > 0 && !mp->finish(squares)) {
    if (lead())
      log->line("update " + std::to_string(progress.updates + 1) +
                ": f16 gradients overflowed at loss scale " + std::to_string(loss_scale) +
                "; update skipped (" + std::to_string(mp->scaler()->skipped()) +
                " so far), loss scale now " + std::to_string(mp->loss_scale()));
    sums.tokens = 0;  // nothing of it counts as trained
  }
  if (sums.tokens == 0) return;
  const UpdateResult u =
      apply_update(params, *optimizer, schedule, ema.get(),
                   {.clip_norm = o.clip_norm, .exponential_smoothing = o.exponential_smoothing},
                   squares, sums.tokens, loss_scale, progress.updates + 1);
  mp->refresh();  // master -> compute copy
  progress.updates += 1;
  progress.tokens += sums.tokens;
  average_grad_norm(u.grad_norm);
  run.grad_norm = u.grad_norm;
  run.last_tokens = sums.tokens;
  run.result.losses.push_back(sums.loss / static_cast<double>(sums.tokens));
  run.display_loss += sums.loss;
  run.display_tokens += sums.tokens;
}

void Trainer::Impl::end_epoch() {
  progress.epoch += 1;
  if (lead()) {  // Marian's lines
    log->line("Seen " + with_commas(progress.sentences - epoch_start.sentences) + " samples");
    log->line("Starting epoch " + std::to_string(progress.epoch + 1));
  }
  epoch_start = progress;
}

void Trainer::Impl::report(const Progress& before) {
  const Progress& now = progress;
  const bool first =
      now.updates > before.updates && now.updates <= o.disp_first;  // Marian's disp-first
  if (due(o.disp_freq, run.last_display, now) || first ||
      (reached(o.after) && run.display_tokens > 0)) {
    const double t = elapsed();
    const DisplayStats d = display_stats(t);
    if (lead()) log->display(d);
    run.last_display = now;
    run.display_time = t;
    run.display_loss = 0;
    run.display_tokens = 0;
  } else if (!o.disp_freq.off() && o.disp_freq.unit == Duration::Unit::kUpdates) {
    const double frac = static_cast<double>(now.updates % o.disp_freq.value) / o.disp_freq.value;
    if (lead()) log->progress(frac, "update " + std::to_string(now.updates));
  }
}

DisplayStats Trainer::Impl::display_stats(double t) const {
  const Progress& now = progress;
  DisplayStats d;
  d.epoch = now.epoch + 1;
  d.updates = now.updates;
  d.sentences_in_epoch = now.sentences - epoch_start.sentences;
  d.sentences_total = now.sentences;
  d.cost_sum = run.display_loss;
  d.labels = run.display_tokens;
  d.sentences = now.sentences - run.last_display.sentences;
  d.updates_since = now.updates - run.last_display.updates;
  d.batch_labels = run.last_tokens;
  d.labels_total = now.tokens;
  d.seconds = std::max(1e-9, t - run.display_time);
  d.elapsed_seconds = t;
  d.lr = schedule.at(std::max<int64_t>(now.updates, 1));
  d.grad_norm = run.grad_norm;
  d.grad_norm_avg = grad_norm_avg;
  const AllocatorStats m = allocator_for(device).stats();
  d.mem_bytes = m.peak_allocated_bytes;
  d.mem_reserved_bytes = m.reserved_bytes;
  if (const LossScaler* ls = mp->scaler()) {
    d.loss_scale = ls->scale();
    d.skipped_updates = ls->skipped();
  }
  if (!o.after.off() && o.after.unit != Duration::Unit::kEpochs) {
    // Seconds a unit so far in this run, times the units left.
    const int64_t done = units(now, o.after.unit) - units(run.start, o.after.unit);
    if (done > 0)
      d.eta_seconds = t / done * static_cast<double>(o.after.value - units(now, o.after.unit));
  }
  if (o.time_limit_minutes > 0) {  // the time limit ends the run first when it is nearer
    const double left = std::max(0.0, 60.0 * o.time_limit_minutes - t);
    d.eta_seconds = d.eta_seconds < 0 ? left : std::min(d.eta_seconds, left);
  }
  return d;
}

StopFlags Trainer::Impl::decide_stop(const Progress& before) {
  StopFlags stop;
  if (due(o.valid_freq, before, progress) && lead()) {
    validate_now();
    stop.early = o.early_stopping > 0 && stalled() >= o.early_stopping;
  }
  stop.out_of_time = o.time_limit_minutes > 0 && elapsed() >= 60.0 * o.time_limit_minutes;
  stop.signalled = stop_requested();
  // ---- data parallelism: one decision for all ranks (rank 0 validated; signals and clocks are
  // per process). Ranks waiting here for rank 0's validation count it against comm-timeout.
  if (comm->size() > 1) {
    int64_t flags[3] = {stop.early, stop.out_of_time, stop.signalled};
    comm->all_reduce_sum(std::span<int64_t>(flags));
    stop.early = flags[0] > 0;
    stop.out_of_time = flags[1] > 0;
    stop.signalled = flags[2] > 0;
  }
  // ----
  return stop;
}

StopReason Trainer::Impl::stop_reason(const StopFlags& stop) {
  if (stop.early) {
    if (lead())
      log->line("stopping: no improvement in " + std::to_string(stalled()) + " validations");
    return StopReason::kEarlyStopping;
  }
  if (stop.out_of_time) {
    if (lead())
      log->line("stopping: time-limit of " + std::to_string(o.time_limit_minutes) +
                " minutes reached");
    return StopReason::kTimeLimit;
  }
  clear_stop_request();  // acted on
  if (lead())
    log->line("stopping on a signal; checkpoint saved at update " +
              std::to_string(progress.updates));
  return StopReason::kSignal;
}

TrainResult Trainer::Impl::finish_run(StopReason reason) {
  run.result.stop_reason = reason;
  run.result.updates = progress.updates;
  run.result.epochs = progress.epoch;
  return std::move(run.result);
}

}  // namespace realmt::training
