// Trainer set-up, checkpoints (save, resume) and validation; the loop is in trainer.cc.
#include "training/trainer_impl.h"

#include <csignal>
#include <cstdlib>
#include <cmath>
#include <filesystem>

#include "core/parallel.h"
#include "core/rng.h"
#include "data/batch_generator.h"
#include "distributed/communicator.h"
#include "distributed/replicas.h"
#include "models/checkpoint.h"
#include "models/safetensors.h"
#include "models/transformer.h"
#include "search/model_loader.h"
#include "search/vocab_checks.h"
#include "training/admin_profile.h"
#include "training/mixed_precision.h"
#include "training/optimizer.h"
#include "training/training_state.h"
#include "training/train_log.h"
#include "training/validator.h"
#include "training/vocab_setup.h"

namespace realmt::training {

namespace {

// A converted model given as pretrained-model (realmt-convert's output: its own id tables and
// special ids) is fine-tuned with its own config (the command line's dropouts kept) and a
// vocabulary made of its tables and the vocabs' .spm files, as realmt-translate reads it. Returns
// null (and leaves the options alone) for any other start.
std::shared_ptr<data::Vocab> converted_start(TrainOptions& o, models::ModelMetadata& tables) {
  if (!o.fine_tunes_converted()) return nullptr;
  const models::ModelMetadata m = models::read_model_metadata(
      models::load_safetensors_header(o.pretrained_model).metadata, o.pretrained_model);
  models::ModelConfig c = models::ModelConfig::from_yaml(m.config, o.pretrained_model);
  c.dropout = o.model_config.dropout;
  c.dropout_attention = o.model_config.dropout_attention;
  c.dropout_ffn = o.model_config.dropout_ffn;
  o.model_config = c;
  tables.vocab_table = m.vocab_table;
  tables.vocab_table_target = m.vocab_table_target;
  tables.converted_from = m.converted_from;
  return std::make_shared<data::Vocab>(search::load_vocab(o.vocabs, o.pretrained_model, c));
}

}  // namespace

Trainer::Impl::Impl(TrainOptions options)
    : o(std::move(options)), base(strip_suffix(o.model)), ext(model_extension(o.model)) {
  o.validate();
  if (o.cpu_threads > 0) set_num_threads(o.cpu_threads);
  // ---- data parallelism: the job's ranks (one process without mpirun), then this rank's device
  comm = distributed::make_world({.timeout_s = o.comm_timeout});
  REALMT_CHECK(o.devices.size() <= 1 || comm->size() > 1,
               "devices: one device a process; for {} devices start {} processes with mpirun",
               o.devices.size(), o.devices.size());
  device = pick_device(o.devices, comm->local_rank());
  comm = distributed::for_device(std::move(comm), device, {.timeout_s = o.comm_timeout});
  // ----
  precision = o.compute_precision();
  REALMT_CHECK(
      precision == Precision::kF32 || device.is_cuda(),
      "precision {} needs a CUDA device (e.g. devices: [0]); on the CPU use precision: f32",
      enum_name(precision));
  // A vocabulary that does not exist yet is created first, as Marian (rank 0; the others wait).
  if (lead()) create_missing_vocabs(o);
  comm->barrier();
  data::BatchGeneratorOptions loader = o.loader_options();
  loader.vocab = converted_start(o, converted_tables);
  data = std::make_unique<data::BatchGenerator>(loader);
  // The vocabularies decide the embedding tables' sizes.
  const data::Vocab& vocab = data->vocab();
  o.model_config.vocab_size = vocab.size();
  o.model_config.target_vocab_size = vocab.is_pair() ? vocab.target_size() : 0;
  model = std::make_unique<models::Transformer>(o.model_config);
  model->allocate(device);
  MixedPrecisionOptions mpo;
  mpo.compute = compute_dtype(precision);
  mpo.loss_scaling = precision == Precision::kF16;
  mpo.loss_scale.initial = o.loss_scale;
  mpo.loss_scale.window = o.loss_scale_window;
  mp = std::make_unique<MixedPrecision>(*model, mpo);
  const OptimizerOptions optimizer_options{.radam = o.optimizer == OptimizerKind::kRadam,
                                           .beta1 = o.optimizer_params[0],
                                           .beta2 = o.optimizer_params[1],
                                           .eps = o.optimizer_params[2]};
  optimizer = std::make_unique<Optimizer>(model->params(), optimizer_options);
  if (o.exponential_smoothing > 0)
    ema =
        std::make_unique<Arena>(model->params().shapes(), model->params().values().dtype(), device);
  schedule = {.peak = o.learn_rate,
              .warmup = o.lr_warmup.value,
              .inv_sqrt_from = o.lr_decay_inv_sqrt.value,
              .linear_to = o.lr_decay_linear.value,
              .inv_sqrt_start = o.lr_decay_inv_sqrt_start};
  dropout_gen = Generator(dropout_seed(o.seed, comm->rank()));
  if (!o.valid_sets.empty() && lead()) {  // data parallelism: rank 0 validates, logs and saves
    ValidatorOptions vo;
    vo.batch_sentences = o.valid_mini_batch;
    vo.max_length = o.valid_max_length;
    vo.script_path = o.valid_script_path;
    vo.script_args = o.valid_script_args;
    vo.translation_output = o.valid_translation_output;
    validator = std::make_unique<Validator>(o.valid_sets[0], o.valid_sets[1], data->vocab(), vo);
    search::SearchOptions so = validator->search_options();
    so.beam_size = o.valid_beam_size;
    so.normalize = o.valid_normalize;
    so.word_penalty = o.valid_word_penalty;
    so.allow_unk = o.valid_allow_unk;
    so.max_length_factor = o.valid_max_length_factor;
    validator->set_search_options(so);
  }
  tracks.assign(o.valid_metrics.size(), MetricTrack{});
  TrainLog::Options lo;
  if (lead()) {  // the --log file is core/log's (rank 0's only: common/options_cli.cc)
    lo.valid_log_path = o.valid_log;
    lo.metrics_path = o.metrics_file.empty() ? base + ".metrics.jsonl" : o.metrics_file;
  }
  lo.progress_bar = !o.quiet_progress;
  lo.quiet = o.quiet || !lead();
  lo.format = {
      .cost_type = o.cost_type, .disp_label_counts = o.disp_label_counts, .lr_report = o.lr_report};
  log = std::make_unique<TrainLog>(lo);
}

int Trainer::Impl::stalled() const {
  if (tracks.empty()) return 0;
  int lo = tracks[0].stalled, hi = tracks[0].stalled;
  for (const MetricTrack& t : tracks) lo = std::min(lo, t.stalled), hi = std::max(hi, t.stalled);
  switch (o.early_stopping_on) {
    case EarlyStoppingOn::kAll: return lo;
    case EarlyStoppingOn::kAny: return hi;
    case EarlyStoppingOn::kFirst: break;
  }
  return tracks[0].stalled;
}

void Trainer::Impl::average_grad_norm(double norm) {
  const double window =
      static_cast<double>(std::min<int64_t>(o.gradient_norm_average_window, progress.updates));
  const double alpha = 2.0 / (std::max(window, 1.0) + 1.0);
  grad_norm_avg += alpha * (norm - grad_norm_avg);
}

void Trainer::Impl::restore_rank_rng(const TrainingState& s) {
  const int64_t ranks = s.ranks.value_or(1);
  const bool same = comm->size() > 1 && ranks == comm->size();
  if (lead() && comm->size() > 1 && !same)
    log->line("note: the state was saved by a run with " + std::to_string(ranks) +
              " process(es), this run has " + std::to_string(comm->size()) +
              ": dropout masks of ranks > 0 start afresh");
  if (lead()) return;
  dropout_gen = Generator(dropout_seed(o.seed, comm->rank()));
  if (!same) return;
  const auto mine = s.rank_rng_states.find(std::to_string(comm->rank()));
  REALMT_CHECK(mine != s.rank_rng_states.end(),
               "{}: training state lacks 'realmt.rng_state.rank{}' ({} ranks saved)", state_path(),
               comm->rank(), ranks);
  dropout_gen.restore(mine->second);
}

models::Metadata Trainer::Impl::model_metadata() const {
  models::ModelMetadata m = converted_tables;
  m.config = model->config().to_yaml();
  m.updates = progress.updates;
  m.vocab = data->vocab().fingerprint();
  return models::model_metadata_text(m);
}

void Trainer::Impl::start() {
  const graph::ParameterSet& params = model->params();
  // ---- data parallelism: every rank resumes (reading the same state file) or none does
  int64_t have_state[1] = {std::filesystem::exists(state_path()) ? 1 : 0};
  comm->all_reduce_sum(std::span<int64_t>(have_state));
  REALMT_CHECK(have_state[0] == 0 || have_state[0] == comm->size(),
               "{} is visible to {} of {} ranks: resuming a multi-process run needs the model "
               "directory on a "
               "filesystem that every rank sees",
               state_path(), have_state[0], comm->size());
  if (have_state[0] > 0 && o.no_reload && lead())
    log->line("no-reload: starting afresh; " + state_path() + " is overwritten at the first save");
  if (have_state[0] > 0 && !o.no_reload) {
    resume();
    return;
  }
  if (!o.pretrained_model.empty()) {
    const models::Metadata m = models::load_parameters(o.pretrained_model, model->params());
    search::check_vocab_fingerprint(data->vocab(), m, o.pretrained_model);
    if (lead()) log->line("initialised from " + o.pretrained_model);
  } else {
    model->init(o.seed);
    if (o.model_config.admin_init == models::AdminInit::kProfile) {
      // The profiling pass of realmt-init on the first batch of the same data order.
      const std::string table = profile_admin_on_first_batch(*model, data->options(), o.seed);
      if (lead()) log->line("ADMIN profile (first training batch, training mode):\n" + table);
    }
  }
  if (ema) ema->flat().copy_from(params.values().flat());
}

void Trainer::Impl::resume() {
  const graph::ParameterSet& params = model->params();
  bool ema_in_state = true;
  const models::Metadata m = load_state(&ema_in_state);
  search::check_vocab_fingerprint(data->vocab(), m, state_path());
  restore_progress(m);
  if (ema && !ema_in_state) {
    // Only for such an older state: the model file holds the smoothed weights of the same save
    // unless the run crashed between its two writes.
    if (lead())
      log->line("note: " + state_path() +
                " holds no smoothed weights (an older realmt wrote it); taking them from " +
                o.model);
    Tensor raw = params.values().flat().clone();
    models::load_parameters(o.model, model->params());
    ema->flat().copy_from(params.values().flat());
    params.values().flat().copy_from(raw);
  }
  if (lead())
    log->line("resumed from " + state_path() + " at update " + std::to_string(progress.updates) +
              ", epoch " + std::to_string(progress.epoch + 1));
}

models::Metadata Trainer::Impl::load_state(bool* ema_in_state) {
  const graph::ParameterSet& params = model->params();
  // One file holds everything resume needs (raw weights, moments, smoothed weights, progress),
  // so a crash between two writes of a save cannot pair parts of different updates.
  std::vector<models::NamedArena> arenas = state_arenas();
  models::LoadOptions load;
  load.ignore_unexpected = !ema;  // a state with smoothed weights resumed without smoothing
  *ema_in_state = true;
  try {
    return models::load_arenas(state_path(), arenas, params.names(), load);
  } catch (const Error& first) {
    // A state written before the smoothed weights moved into it: everything else, then (resume)
    // the smoothed weights from the model file. When that fails too, the first error (about the
    // state as this realmt writes it) stands.
    if (!ema) throw;
    arenas.pop_back();
    try {
      models::Metadata m = models::load_arenas(state_path(), arenas, params.names(), load);
      *ema_in_state = false;
      return m;
    } catch (const Error&) {
      throw first;
    }
  }
}

void Trainer::Impl::restore_progress(const models::Metadata& m) {
  const TrainingState s = read_training_state(m, state_path());
  progress = {.updates = s.updates,
              .batches = s.batches,
              .tokens = s.tokens,
              .sentences = s.sentences,
              .epoch = s.epoch};
  optimizer->set_steps(s.optimizer_steps);
  // Each metric's history (states written before there was one per metric: the first's only).
  for (size_t i = 0; i < tracks.size(); ++i) {
    const std::string& name = o.valid_metrics[i];
    if (s.best.count(name) && s.stalled.count(name)) {
      tracks[i] = {s.best.at(name), static_cast<int>(s.stalled.at(name))};
    } else if (i == 0) {
      tracks[i] = {s.first_best, static_cast<int>(s.first_stalled)};
    }
    if (o.valid_reset_stalled || o.valid_reset_all) tracks[i].stalled = 0;
    if (o.valid_reset_all) tracks[i].best = INFINITY;
  }
  if (s.epoch_start) {
    epoch_start.updates = s.epoch_start->updates;
    epoch_start.sentences = s.epoch_start->sentences;
  }
  if (s.grad_norm_avg) grad_norm_avg = *s.grad_norm_avg;
  dropout_gen.restore(s.rng_state);
  restore_rank_rng(s);  // data parallelism: ranks > 0 continue their own dropout streams
  if (mp->scaler() && s.loss_scale)
    mp->scaler()->restore(s.loss_scale->scale, s.loss_scale->clean_run, s.loss_scale->skipped);
  if (o.no_restore_corpus) {
    if (lead()) log->line("no-restore-corpus: the data starts afresh");  // the epoch count goes on
    epoch_start = progress;
  } else {
    data->restore(s.data_position);
  }
}

TrainingState Trainer::Impl::training_state(const std::vector<std::string>& rank_rngs) const {
  TrainingState s;
  s.updates = progress.updates;
  s.epoch = progress.epoch;
  s.batches = progress.batches;
  s.tokens = progress.tokens;
  s.sentences = progress.sentences;
  s.optimizer_steps = optimizer->steps();
  for (size_t i = 0; i < tracks.size(); ++i) {
    s.best[o.valid_metrics[i]] = tracks[i].best;
    s.stalled[o.valid_metrics[i]] = tracks[i].stalled;
  }
  if (!tracks.empty()) {
    s.first_best = tracks[0].best;
    s.first_stalled = tracks[0].stalled;
  }
  s.epoch_start =
      EpochStartState{.updates = epoch_start.updates, .sentences = epoch_start.sentences};
  s.grad_norm_avg = grad_norm_avg;
  s.rng_state = dropout_gen.state_string();
  if (const LossScaler* ls = mp->scaler())
    s.loss_scale = LossScaleState{
        .scale = ls->scale(), .clean_run = ls->clean_run(), .skipped = ls->skipped()};
  s.data_position = data->state();
  s.vocab = data->vocab().fingerprint();
  if (comm->size() > 1) {  // data parallelism: every rank's dropout stream
    s.ranks = comm->size();
    for (int r = 1; r < comm->size(); ++r)
      s.rank_rng_states[std::to_string(r)] = rank_rngs[size_t(r)];
  }
  return s;
}

void Trainer::Impl::save(bool also_iter) {
  const graph::ParameterSet& params = model->params();
  // ---- data parallelism: every rank comes here; the collective part, then only rank 0 writes
  const std::vector<std::string> rank_rngs =
      distributed::all_gather(*comm, dropout_gen.state_string());
  distributed::check_replicas_agree(*comm, params.values().flat(),
                                    "the parameters at update " + std::to_string(progress.updates));
  if (!lead()) return;
  // ----
  const models::Metadata m = training_state_text(training_state(rank_rngs));
  // Resume reads only the state file (raw weights, moments, smoothed weights, progress),
  // written last and atomically: a crash at any point leaves a consistent state from this save
  // or the last, whatever the model files beside it hold.
  save_model(o.model);
  if (also_iter && !o.overwrite)
    save_model(base + ".iter" + std::to_string(progress.updates) + ext);
  kill_here_if_asked(progress.updates);
  models::save_arenas(state_path(), state_arenas(), params.names(), m);
  log->line("saved " + models::checkpoint_file(o.model) + " and " + state_path() + " at update " +
            std::to_string(progress.updates));
}

std::vector<models::NamedArena> Trainer::Impl::state_arenas() const {
  std::vector<models::NamedArena> arenas{{"params", model->params().values()}};
  for (const auto& a : optimizer->arenas()) arenas.push_back(a);
  if (ema) arenas.push_back({"ema", *ema});  // last (resume drops it for older states)
  return arenas;
}

void Trainer::Impl::kill_here_if_asked(int64_t update) {
  // Fault injection for tests (trainer.h): the process dies as in a crash or an OOM kill.
  const char* at = std::getenv("REALMT_TEST_KILL_BEFORE_STATE");
  if (at != nullptr && std::to_string(update) == at) std::raise(SIGKILL);
}

void Trainer::Impl::save_model(const std::string& path) {
  graph::ParameterSet& params = model->params();
  write_decoder_config(path);
  if (!ema) {
    models::save_parameters(path, params, model_metadata());
    return;
  }
  Tensor raw = params.values().flat().clone();
  params.values().flat().copy_from(ema->flat());
  models::save_parameters(path, params, model_metadata());
  params.values().flat().copy_from(raw);
}

void Trainer::Impl::validate_now() {
  if (!validator) return;
  Tensor raw;
  if (ema) {  // validate the smoothed weights, as they are what gets saved
    raw = model->params().values().flat().clone();
    model->params().values().flat().copy_from(ema->flat());
  }
  ValidationContext c;
  c.epoch = progress.epoch + 1;
  c.updates = progress.updates;
  c.updates_in_epoch = progress.updates - epoch_start.updates;
  c.tokens = progress.tokens;
  if (!o.quiet_translation) c.log = [this](const std::string& text) { log->line(text); };
  // valid-script scores the weights being validated: the smoothed ones are in the model now.
  c.save_model = [this](const std::string& path) {
    models::save_parameters(path, model->params(), model_metadata());
  };
  c.dev_model_path = models::checkpoint_file(o.model + ".dev" + ext);  // Marian's <model>.dev<ext>
  const auto metrics = validator->run(*model, o.valid_metrics, c);
  std::vector<ValidResult> results;
  for (size_t i = 0; i < o.valid_metrics.size(); ++i) {
    const std::string& name = o.valid_metrics[i];
    MetricTrack& t = tracks[i];
    ValidResult r{name, metrics.at(name), Validator::better(name, metrics.at(name), t.best), 0,
                  t.best};
    if (r.improved) {
      t.best = r.value;
      t.stalled = 0;
      // Marian keeps the best model of each metric: <model>.best-<metric><ext>.
      if (o.keep_best) save_model(o.model + ".best-" + name + ext);
    } else {
      r.stalled = ++t.stalled;
    }
    results.push_back(r);
  }
  if (ema) model->params().values().flat().copy_from(raw);
  log->validation(progress.epoch + 1, progress.updates, results);
}

}  // namespace realmt::training
