#include "training/train_options.h"

#include "common/options.h"
#include "core/error.h"

namespace realmt::training {

void TrainOptions::declare(OptionSet& o) {
  std::string g = "Data";
  o.add(g, "train-sets", &train_sets, "Training corpus: source and target files (plain or .gz), or one TSV file");
  o.add(g, "vocabs", &vocabs, "Joint SentencePiece model (.spm) for both sides");
  o.add(g, "valid-sets", &valid_sets, "Validation corpus: source and target files");
  o.add(g, "model", &model, "Checkpoint path; training state and metrics are written beside it");
  o.add(g, "pretrained-model", &pretrained_model, "Initial weights (e.g. realmt-init's output) instead of random");
  o.add(g, "mini-batch-words", &mini_batch_words, "Target-token budget of a mini-batch (per process under mpirun)");
  o.add(g, "mini-batch", &mini_batch, "Sentences in a mini-batch at most (0: no limit)");
  o.add(g, "maxi-batch", &maxi_batch, "Sentences are length-sorted inside pools of this many mini-batches");
  o.add(g, "max-length", &max_length, "Maximum subwords a side; longer pairs are skipped (see max-length-crop)");
  o.add(g, "max-length-crop", &max_length_crop, "Crop pairs longer than max-length instead of skipping them");
  o.add_choice(g, "shuffle", &shuffle, {"data", "none"}, "Shuffle the corpus each epoch (data) or not (none)");
  o.add(g, "valid-mini-batch", &valid_mini_batch, "Sentences in a validation batch");
  o.add(g, "beam-size", &valid_beam_size, "Beam size when validation translates (bleu, chrf)");
  o.add(g, "normalize", &valid_normalize, "Length normalisation when validation translates");
  o.add(g, "max-length-factor", &valid_max_length_factor, "Output length limit (x source length) in validation");
  g = "Training";
  o.add(g, "after", &after, "Stop after this long: updates (u), target tokens (t) or epochs (e); 0 = never");
  o.add(g, "time-limit", &time_limit_minutes, "Also stop and save after this many minutes of wall time (0: none)");
  o.add(g, "disp-freq", &disp_freq, "Log every this long (u/t/e)");
  o.add(g, "save-freq", &save_freq, "Save a checkpoint every this long (u/t/e)");
  o.add(g, "valid-freq", &valid_freq, "Validate every this long (u/t/e)");
  o.add_choice(g, "valid-metrics", &valid_metrics, {"ce-mean-words", "perplexity", "bleu", "chrf"},
               "Validation metrics; the first decides early stopping and keep-best");
  o.add(g, "early-stopping", &early_stopping, "Stop after this many validations without improvement (0: off)");
  o.add(g, "keep-best", &keep_best, "Also save the best model by the first validation metric");
  o.add(g, "overwrite", &overwrite, "Only keep the latest checkpoint (else also model.iter<N>.safetensors)");
  o.add_choice(g, "optimizer", &optimizer, {"adam", "radam"}, "Optimizer");
  o.add(g, "optimizer-params", &optimizer_params, "beta1 beta2 epsilon");
  o.add(g, "learn-rate", &learn_rate, "Peak learning rate");
  o.add(g, "lr-warmup", &lr_warmup, "Linear warm-up of the learning rate over this many updates");
  o.add(g, "lr-decay-inv-sqrt", &lr_decay_inv_sqrt, "Inverse-square-root decay from this update on");
  o.add(g, "lr-decay-linear", &lr_decay_linear, "Linear decay to 0 at this update (the RealFormer recipe)");
  o.add(g, "clip-norm", &clip_norm, "Clip the global gradient norm to this value (0: off)");
  o.add(g, "optimizer-delay", &optimizer_delay, "Accumulate gradients of this many batches per update");
  o.add(g, "exponential-smoothing", &exponential_smoothing, "Exponential smoothing factor of the weights (0: off)");
  o.add(g, "label-smoothing", &label_smoothing, "Label smoothing of the cross-entropy");
  g = "Hardware and logging";
  o.add(g, "devices", &devices,
        "GPUs to train on (e.g. 0 or cuda:0; under mpirun local rank i takes the i-th); empty: the CPU");
  o.add_choice(g, "precision", &precision, {"f32", "tf32", "bf16", "f16"},
               "Compute precision: f32 (exact); on a GPU also tf32 (TF32 tensor-core GEMMs), bf16 or f16 (f32 "
               "master weights; f16 with dynamic loss scaling)");
  o.add(g, "loss-scale", &loss_scale, "f16: initial loss scale (halved on overflow, doubled after loss-scale-window)");
  o.add(g, "loss-scale-window", &loss_scale_window, "f16: updates without overflow before the loss scale doubles");
  o.add(g, "cpu-threads", &cpu_threads, "CPU threads (0: all cores)");
  o.add(g, "comm-timeout", &comm_timeout,
        "mpirun: seconds a collective (all-reduce, rank 0's validation and saving) may wait for the other ranks "
        "before the job stops with an error");
  o.add(g, "seed", &seed, "Random seed (initialisation, dropout, data order)");
  o.add(g, "metrics-file", &metrics_file, "JSON-lines metrics for plotting; default <model>.metrics.jsonl");
  o.add(g, "log", &log, "Also append the log to this file");
  o.add(g, "quiet-progress", &quiet_progress, "No progress bar on a terminal");
  model_config.declare(o);
}

void TrainOptions::validate() const {
  REALMT_CHECK(train_sets.size() == 1 || train_sets.size() == 2,
               "train-sets: give the source and target files, or one TSV file (got {} files)", train_sets.size());
  REALMT_CHECK(vocabs.size() == 1, "vocabs: give one joint SentencePiece model (got {}); train one with realmt-data vocab",
               vocabs.size());
  REALMT_CHECK(valid_sets.empty() || valid_sets.size() == 2, "valid-sets: give a source and a target file (got {})",
               valid_sets.size());
  REALMT_CHECK(!model.empty(), "model: a checkpoint path is needed");
  REALMT_CHECK(mini_batch_words > 0 || mini_batch > 0, "mini-batch-words or mini-batch must be positive");
  REALMT_CHECK(optimizer_params.size() == 3, "optimizer-params: give beta1 beta2 epsilon (got {} values)",
               optimizer_params.size());
  REALMT_CHECK(learn_rate > 0, "learn-rate must be positive, got {}", learn_rate);
  for (const Duration* d : {&lr_warmup, &lr_decay_inv_sqrt, &lr_decay_linear})
    REALMT_CHECK(d->off() || d->unit == Duration::Unit::kUpdates,
                 "lr-warmup, lr-decay-inv-sqrt and lr-decay-linear count updates (u), got {}", d->str());
  REALMT_CHECK(lr_decay_linear.off() || lr_decay_inv_sqrt.off(),
               "lr-decay-linear and lr-decay-inv-sqrt are alternatives; set one");
  REALMT_CHECK(optimizer_delay >= 1, "optimizer-delay must be >= 1, got {}", optimizer_delay);
  REALMT_CHECK(clip_norm >= 0, "clip-norm must be >= 0, got {}", clip_norm);
  REALMT_CHECK(exponential_smoothing >= 0 && exponential_smoothing < 1,
               "exponential-smoothing must be in [0, 1), got {}", exponential_smoothing);
  REALMT_CHECK(label_smoothing >= 0 && label_smoothing < 1, "label-smoothing must be in [0, 1), got {}",
               label_smoothing);
  REALMT_CHECK(loss_scale > 0, "loss-scale must be positive, got {}", loss_scale);
  REALMT_CHECK(loss_scale_window >= 1, "loss-scale-window must be >= 1, got {}", loss_scale_window);
  // devices: one a process without mpirun (checked by the trainer, which knows the job's size).
  REALMT_CHECK(comm_timeout > 0, "comm-timeout must be positive seconds, got {}", comm_timeout);
  REALMT_CHECK(!disp_freq.off(), "disp-freq must not be 0");
  REALMT_CHECK(time_limit_minutes >= 0, "time-limit must be >= 0 minutes, got {}", time_limit_minutes);
  model_config.validate();
}

data::BatchGeneratorOptions TrainOptions::loader_options() const {
  data::BatchGeneratorOptions d;
  d.src_path = train_sets.at(0);
  d.tgt_path = train_sets.size() > 1 ? train_sets[1] : "";
  d.vocab_path = vocabs.at(0);
  d.mini_batch_words = mini_batch_words;
  d.mini_batch = mini_batch;
  d.maxi_batch = maxi_batch;
  d.max_length = max_length;
  d.max_length_crop = max_length_crop;
  d.shuffle = shuffle == "data";
  d.seed = static_cast<uint64_t>(seed);
  d.threads = 1;  // encoding is far faster than training; more threads only contend for the cores
  return d;
}

}  // namespace realmt::training
