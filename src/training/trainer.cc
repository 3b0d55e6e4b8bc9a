#include "training/trainer.h"

#include <csignal>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/allocator.h"
#include "core/log.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "data/batch_generator.h"
#include "distributed/communicator.h"
#include "distributed/replicas.h"
#include "distributed/shard.h"
#include "graph/var.h"
#include "models/checkpoint.h"
#include "models/transformer.h"
#include "ops/matmul.h"
#include "ops/optimizer.h"
#include "training/admin_profile.h"
#include "training/lr_schedule.h"
#include "training/mixed_precision.h"
#include "training/optimizer.h"
#include "training/train_log.h"
#include "training/validator.h"

namespace realmt::training {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) { g_stop.store(true); }

// Position in the run, in all of Marian's units.
struct Progress {
  int64_t updates = 0, batches = 0, tokens = 0, sentences = 0;
  int64_t epoch = 0;  // completed epochs
};

int64_t units(const Progress& p, Duration::Unit u) {
  switch (u) {
    case Duration::Unit::kUpdates: return p.updates;
    case Duration::Unit::kTokens: return p.tokens;
    case Duration::Unit::kEpochs: return p.epoch;
  }
  return 0;
}

// Whether a multiple of d was crossed between two positions.
bool due(const Duration& d, const Progress& before, const Progress& after) {
  if (d.off()) return false;
  return units(after, d.unit) / d.value > units(before, d.unit) / d.value;
}

std::string strip_suffix(const std::string& path) {
  const std::string ext = ".safetensors";
  if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
    return path.substr(0, path.size() - ext.size());
  return path;
}

// Data parallelism: with several processes on a machine, local rank i takes devices[i % n].
Device pick_device(const std::vector<std::string>& devices, int local_rank = 0) {
  if (devices.empty() || devices[0] == "cpu") return Device::cpu();
  const std::string& d = devices[static_cast<size_t>(local_rank) % devices.size()];
  return parse_device(std::isdigit(static_cast<unsigned char>(d[0])) ? "cuda:" + d : d);
}

// Rank 0 (and a single process) keeps the historical stream; each other rank gets its own.
uint64_t dropout_seed(int64_t seed, int rank) {
  return static_cast<uint64_t>(seed) * 7919 + 17 + static_cast<uint64_t>(rank) * 0x9E3779B97F4A7C15ull;
}

}  // namespace

void Trainer::request_stop() { g_stop.store(true); }

void install_stop_signal_handlers() {
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
}

struct Trainer::Impl {
  TrainOptions o;
  std::string base;  // model path without .safetensors
  Device device;
  std::unique_ptr<data::BatchGenerator> data;
  std::unique_ptr<models::Transformer> model;
  std::unique_ptr<Optimizer> optimizer;
  Precision precision = Precision::kF32;
  std::unique_ptr<MixedPrecision> mp;  // compute copy (bf16/f16) and loss scaling (f16)
  std::unique_ptr<Arena> ema;  // smoothed weights
  std::unique_ptr<Validator> validator;
  std::unique_ptr<TrainLog> log;
  std::unique_ptr<distributed::Communicator> comm;  // data parallelism: the job's ranks (size 1: alone)
  Generator dropout_gen;
  LrSchedule schedule;
  Progress progress;
  double best = INFINITY;
  int stalled = 0;

  explicit Impl(TrainOptions options) : o(std::move(options)), base(strip_suffix(o.model)) {
    o.validate();
    if (o.cpu_threads > 0) set_num_threads(o.cpu_threads);
    // ---- data parallelism: the job's ranks (one process without mpirun), then this rank's device
    comm = distributed::make_world({o.comm_timeout});
    REALMT_CHECK(o.devices.size() <= 1 || comm->size() > 1,
                 "devices: one device a process; for {} devices start {} processes with mpirun", o.devices.size(),
                 o.devices.size());
    device = pick_device(o.devices, comm->local_rank());
    comm = distributed::for_device(std::move(comm), device, {o.comm_timeout});
    // ----
    precision = parse_precision(o.precision);
    REALMT_CHECK(precision == Precision::kF32 || device.is_cuda(),
                 "precision {} needs a CUDA device (e.g. devices: [0]); on the CPU use precision: f32", o.precision);
    data::BatchGeneratorOptions d;
    d.src_path = o.train_sets[0];
    d.tgt_path = o.train_sets.size() > 1 ? o.train_sets[1] : "";
    d.vocab_path = o.vocabs[0];
    d.mini_batch_words = o.mini_batch_words;
    d.mini_batch = o.mini_batch;
    d.maxi_batch = o.maxi_batch;
    d.max_length = o.max_length;
    d.max_length_crop = o.max_length_crop;
    d.shuffle = o.shuffle == "data";
    d.seed = o.seed;
    d.threads = 1;  // encoding is far faster than training; more threads only contend for the cores
    data = std::make_unique<data::BatchGenerator>(d);
    // The vocabulary decides the embedding table's size.
    o.model_config.vocab_size = data->src_vocab().size();
    model = std::make_unique<models::Transformer>(o.model_config);
    model->allocate(device);
    MixedPrecisionOptions mpo;
    mpo.compute = compute_dtype(precision);
    mpo.loss_scaling = precision == Precision::kF16;
    mpo.loss_scale.initial = o.loss_scale;
    mpo.loss_scale.window = o.loss_scale_window;
    mp = std::make_unique<MixedPrecision>(*model, mpo);
    optimizer = std::make_unique<Optimizer>(
        model->params(), OptimizerOptions{o.optimizer == "radam", o.optimizer_params[0], o.optimizer_params[1],
                                          o.optimizer_params[2]});
    if (o.exponential_smoothing > 0)
      ema = std::make_unique<Arena>(model->params().shapes(), model->params().values().dtype(), device);
    schedule = {o.learn_rate, o.lr_warmup.value, o.lr_decay_inv_sqrt.value, o.lr_decay_linear.value};
    dropout_gen = Generator(dropout_seed(o.seed, comm->rank()));
    if (!o.valid_sets.empty() && lead())  // data parallelism: rank 0 validates, logs and saves
      validator = std::make_unique<Validator>(o.valid_sets[0], o.valid_sets[1], data->src_vocab(),
                                              o.valid_mini_batch, o.max_length);
    log = std::make_unique<TrainLog>(lead() ? o.log : "",
                                     !lead() ? "" : o.metrics_file.empty() ? base + ".metrics.jsonl" : o.metrics_file,
                                     !o.quiet_progress);
  }

  std::string state_path() const { return base + ".state.safetensors"; }

  // ---- data parallelism
  bool lead() const { return comm->rank() == 0; }  // rank 0 logs, validates and writes files
  // Rank r > 0 restores its own dropout stream from a state saved by a job of as many ranks;
  // otherwise (another number of ranks) it starts its stream afresh: data order and updates
  // continue exactly, dropout masks differ from the uninterrupted run's.
  void restore_rank_rng(const models::Metadata& m) {
    const auto ranks = m.find("realmt.ranks");
    const bool same = comm->size() > 1 && ranks != m.end() && ranks->second == std::to_string(comm->size());
    if (lead() && comm->size() > 1 && !same)
      log->line("note: the state was saved by a run with " + (ranks == m.end() ? std::string("1") : ranks->second) +
                " process(es), this run has " + std::to_string(comm->size()) +
                ": dropout masks of ranks > 0 start afresh");
    if (lead()) return;
    dropout_gen = Generator(dropout_seed(o.seed, comm->rank()));
    if (same) dropout_gen.restore(m.at("realmt.rng_state.rank" + std::to_string(comm->rank())));
  }
  // ----

  models::Metadata model_metadata() const {
    return {{models::kConfigKey, model->config().to_yaml()}, {"realmt.updates", std::to_string(progress.updates)}};
  }

  void start() {
    const graph::ParameterSet& params = model->params();
    // ---- data parallelism: every rank resumes (reading the same state file) or none does
    int64_t have_state[1] = {std::filesystem::exists(state_path()) ? 1 : 0};
    comm->all_reduce_sum(std::span<int64_t>(have_state));
    REALMT_CHECK(have_state[0] == 0 || have_state[0] == comm->size(),
                 "{} is visible to {} of {} ranks: resuming a multi-process run needs the model directory on a "
                 "filesystem that every rank sees",
                 state_path(), have_state[0], comm->size());
    if (have_state[0] > 0) {
      resume();
      return;
    }
    if (!o.pretrained_model.empty()) {
      models::load_parameters(o.pretrained_model, model->params());
      if (lead()) log->line("initialised from " + o.pretrained_model);
    } else {
      model->init(o.seed);
      if (o.model_config.admin_init == "profile") {
        // The profiling pass of realmt-init on the first batch of the same data order.
        const std::string table = profile_admin_on_first_batch(*model, data->options(), o.seed);
        if (lead()) log->line("ADMIN profile (first training batch, training mode):\n" + table);
      }
    }
    if (ema) ema->flat().copy_from(params.values().flat());
  }

  void resume() {
    const graph::ParameterSet& params = model->params();
    std::vector<models::NamedArena> arenas{{"params", params.values()}};
    for (const auto& a : optimizer->arenas()) arenas.push_back(a);
    models::Metadata m = models::load_arenas(state_path(), arenas, params.names());
    auto num = [&](const char* key) -> int64_t {
      auto it = m.find(key);
      REALMT_CHECK(it != m.end(), "{}: training state lacks '{}'; the file is not a realmt-train state", state_path(),
                   key);
      return std::stoll(it->second);
    };
    progress.updates = num(models::kStepKey);
    progress.epoch = num(models::kEpochKey);
    progress.batches = num("realmt.batches");
    progress.tokens = num("realmt.tokens");
    progress.sentences = num("realmt.sentences");
    optimizer->set_steps(num("realmt.optimizer_steps"));
    stalled = static_cast<int>(num("realmt.stalled"));
    best = std::stod(m.at("realmt.best"));
    dropout_gen.restore(m.at(models::kRngStateKey));
    restore_rank_rng(m);  // data parallelism: ranks > 0 continue their own dropout streams
    if (mp->scaler() && m.count("realmt.loss_scale"))
      mp->scaler()->restore(std::stod(m.at("realmt.loss_scale")), std::stoll(m.at("realmt.loss_scale_clean")),
                            std::stoll(m.at("realmt.skipped_updates")));
    data->restore(m.at(models::kDataPositionKey));
    if (ema) {
      // The model file holds the smoothed weights: load them into the EMA, then the raw ones back.
      models::load_parameters(o.model, model->params());
      ema->flat().copy_from(params.values().flat());
      models::load_arenas(state_path(), {{"params", params.values()}}, params.names(),
                          models::LoadOptions{true, true});
    }
    if (lead())
      log->line("resumed from " + state_path() + " at update " + std::to_string(progress.updates) + ", epoch " +
                std::to_string(progress.epoch + 1));
  }

  void save(bool also_iter) {
    const graph::ParameterSet& params = model->params();
    // ---- data parallelism: every rank comes here; the collective part, then only rank 0 writes
    const std::vector<std::string> rank_rngs = distributed::all_gather(*comm, dropout_gen.state_string());
    distributed::check_replicas_agree(*comm, params.values().flat(),
                                      "the parameters at update " + std::to_string(progress.updates));
    if (!lead()) return;
    models::Metadata m;
    if (comm->size() > 1) {
      m["realmt.ranks"] = std::to_string(comm->size());
      for (int r = 1; r < comm->size(); ++r) m["realmt.rng_state.rank" + std::to_string(r)] = rank_rngs[size_t(r)];
    }
    // ----
    m[models::kStepKey] = std::to_string(progress.updates);
    m[models::kEpochKey] = std::to_string(progress.epoch);
    m["realmt.batches"] = std::to_string(progress.batches);
    m["realmt.tokens"] = std::to_string(progress.tokens);
    m["realmt.sentences"] = std::to_string(progress.sentences);
    m["realmt.optimizer_steps"] = std::to_string(optimizer->steps());
    m["realmt.stalled"] = std::to_string(stalled);
    char best_text[64];
    std::snprintf(best_text, sizeof best_text, "%.17g", best);
    m["realmt.best"] = best_text;
    m[models::kRngStateKey] = dropout_gen.state_string();
    if (const LossScaler* ls = mp->scaler()) {
      std::snprintf(best_text, sizeof best_text, "%.17g", ls->scale());
      m["realmt.loss_scale"] = best_text;
      m["realmt.loss_scale_clean"] = std::to_string(ls->clean_run());
      m["realmt.skipped_updates"] = std::to_string(ls->skipped());
    }
    m[models::kDataPositionKey] = data->state();
    // Resume reads only the state file (raw weights, moments, progress), written last and
    // atomically: a crash at any point leaves a consistent state from this save or the last.
    save_model(o.model);
    if (also_iter && !o.overwrite) save_model(base + ".iter" + std::to_string(progress.updates) + ".safetensors");
    std::vector<models::NamedArena> arenas{{"params", params.values()}};
    for (const auto& a : optimizer->arenas()) arenas.push_back(a);
    models::save_arenas(state_path(), arenas, params.names(), m);
    log->line("saved " + o.model + " and " + state_path() + " at update " + std::to_string(progress.updates));
  }

  // Writes the weights used for translation (smoothed when exponential smoothing is on).
  void save_model(const std::string& path) {
    graph::ParameterSet& params = model->params();
    if (!ema) {
      models::save_parameters(path, params, model_metadata());
      return;
    }
    Tensor raw = params.values().flat().clone();
    params.values().flat().copy_from(ema->flat());
    models::save_parameters(path, params, model_metadata());
    params.values().flat().copy_from(raw);
  }

  void validate_now() {
    if (!validator) return;
    Tensor raw;
    if (ema) {  // validate the smoothed weights, as they are what gets saved
      raw = model->params().values().flat().clone();
      model->params().values().flat().copy_from(ema->flat());
    }
    const auto metrics = validator->run(*model, o.valid_metrics);
    if (ema) model->params().values().flat().copy_from(raw);
    const double first = metrics.at(o.valid_metrics[0]);
    const bool improved = Validator::better(o.valid_metrics[0], first, best);
    if (improved) {
      best = first;
      stalled = 0;
      if (o.keep_best) save_model(base + ".best-" + o.valid_metrics[0] + ".safetensors");
    } else {
      ++stalled;
    }
    log->validation(progress.updates, metrics, improved, stalled);
  }

  bool reached(const Duration& d) const { return !d.off() && units(progress, d.unit) >= d.value; }
};

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
                "), each trains on its share of the rows of every batch; mini-batch-words is the global budget");
  Allocator& mem = allocator_for(s.device);
  // Mixed precision: the compute copy starts from the initialised, loaded or resumed weights;
  // tf32 lets every f32 GEMM of this run (validation included) use TF32 tensor cores.
  s.mp->refresh();
  const ops::AllowTf32 tf32(s.precision == Precision::kTf32);
  {
    const AllocatorStats m = mem.stats();
    std::string text = "training on " + s.device.str() + " in " + precision_name(s.precision) + ": " +
                       std::to_string(params.numel()) + " parameters";
    if (s.mp->has_compute_copy()) text += " (f32 master weights and a compute copy)";
    if (s.mp->scaler()) text += ", dynamic loss scale " + std::to_string(s.mp->loss_scale());
    char mb[96];
    std::snprintf(mb, sizeof mb, "; device memory %.1f MB allocated, %.1f MB reserved", m.allocated_bytes / 1048576.0,
                  m.reserved_bytes / 1048576.0);
    if (s.lead()) s.log->line(text + mb);
  }
  TrainResult result;
  g_stop.store(false);
  const double t0 = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  auto now = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() - t0;
  };
  const Progress run_start = s.progress;
  Progress last_display = s.progress;
  double display_time = 0, display_loss = 0;
  int64_t display_tokens = 0;
  double grad_norm = 0;
  while (true) {
    if (s.reached(s.o.after)) {
      result.stop_reason = "after";
      break;
    }
    // One update: optimizer-delay batches, gradients summed, then normalised per target token.
    params.zero_grad();
    double loss_sum = 0;
    int64_t tokens = 0;
    const Progress before = s.progress;
    bool epoch_ended = false;
    std::string bad_loss;  // a non-finite loss on this rank (the error is raised on all ranks below)
    for (int k = 0; k < s.o.optimizer_delay; ++k) {
      std::optional<data::Batch> batch = s.data->next();
      if (!batch) {
        epoch_ended = true;
        break;
      }
      // ---- data parallelism: every rank draws the same batch and trains on its own rows
      s.progress.batches += 1;
      s.progress.sentences += batch->size;
      if (s.comm->size() > 1) *batch = distributed::shard_rows(*batch, s.comm->rank(), s.comm->size());
      if (batch->size == 0) continue;  // fewer rows than ranks: this rank only joins the all-reduce
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
      s.mp->backward(out.loss, k == 0);  // f32 gradients in the master arena (times the loss scale)
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
      const double scale = 1.0 / static_cast<double>(tokens);
      grad_norm = std::sqrt(squares) * scale / loss_scale;
      REALMT_CHECK(std::isfinite(grad_norm), "gradient norm is {} at update {}; lower learn-rate or set clip-norm",
                   grad_norm, s.progress.updates + 1);
      double grad_scale = scale / loss_scale;
      if (s.o.clip_norm > 0 && grad_norm > s.o.clip_norm) grad_scale *= s.o.clip_norm / grad_norm;
      const double lr = s.schedule.at(s.progress.updates + 1);
      s.optimizer->step(lr, grad_scale);
      s.mp->refresh();  // master -> compute copy
      if (s.ema) ops::ema_update(s.ema->flat(), params.values().flat(), s.o.exponential_smoothing);
      s.progress.updates += 1;
      s.progress.tokens += tokens;
      result.losses.push_back(loss_sum / tokens);
      display_loss += loss_sum;
      display_tokens += tokens;
    }
    if (epoch_ended) {
      s.progress.epoch += 1;
      if (s.lead())
        s.log->line("epoch " + std::to_string(s.progress.epoch) + " finished: " + std::to_string(s.progress.updates) +
                    " updates, " + std::to_string(s.progress.sentences) + " sentences");
    }
    const Progress after = s.progress;
    if (due(s.o.disp_freq, last_display, after) || (s.reached(s.o.after) && display_tokens > 0)) {
      DisplayStats d;
      d.epoch = after.epoch + 1;
      d.updates = after.updates;
      d.sentences = after.sentences;
      d.loss_per_token = display_tokens ? display_loss / display_tokens : 0;
      const double t = now();
      d.tgt_tokens_per_s = display_tokens / std::max(1e-9, t - display_time);
      d.lr = s.schedule.at(std::max<int64_t>(after.updates, 1));
      d.grad_norm = grad_norm;
      d.seconds = t;
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
      stop_early = s.o.early_stopping > 0 && s.stalled >= s.o.early_stopping;
    }
    bool out_of_time = s.o.time_limit_minutes > 0 && now() >= 60.0 * s.o.time_limit_minutes;
    bool signalled = g_stop.load();
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
      result.stop_reason = "early-stopping";
      if (s.lead()) s.log->line("stopping: no improvement in " + std::to_string(s.stalled) + " validations");
      break;
    }
    if (out_of_time) {
      result.stop_reason = "time-limit";
      if (s.lead())
        s.log->line("stopping: time-limit of " + std::to_string(s.o.time_limit_minutes) + " minutes reached");
      break;
    }
    if (signalled) {
      result.stop_reason = "signal";
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
