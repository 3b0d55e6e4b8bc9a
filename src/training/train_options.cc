#include "training/train_options.h"

#include <filesystem>

#include "common/options.h"
#include "core/cpu_isa.h"
#include "core/error.h"
#include "models/checkpoint.h"
#include "models/safetensors.h"
#include "training/validator.h"

namespace realmt::training {

void TrainOptions::declare(OptionSet& o) {
  std::string g = "Data";
  o.add(g, "train-sets", &train_sets,
        "Training corpus: source and target files (plain or .gz), or one TSV file");
  o.add(g, "vocabs", &vocabs,
        "Vocabularies: one for both sides, or one a side (two different files: untied embeddings); "
        "a SentencePiece "
        "model (.spm) or a Marian word list (.yml, .json) for pre-segmented text. A missing file "
        "is created from "
        "the train-sets (.spm: SentencePiece trained with dim-vocabs pieces, 32000 when 0)");
  o.add(g, "sentencepiece-options", &sentencepiece_options,
        "Creating a .spm vocabulary: further SentencePiece training flags (--key=value ..., "
        "spm_train's names)");
  o.add(g, "sentencepiece-max-lines", &sentencepiece_max_lines,
        "Creating a .spm vocabulary: lines sampled from the train-sets (0: all)");
  o.add(g, "valid-sets", &valid_sets, "Validation corpus: source and target files");
  o.add(g, "model", &model,
        "Checkpoint path; training state, metrics and decoder config are written beside it");
  o.add(g, "pretrained-model", &pretrained_model,
        "Initial weights (e.g. realmt-init's output) instead of random");
  o.add(g, "no-reload", &no_reload,
        "Start afresh even when a training state lies beside the model");
  o.add(g, "mini-batch-words", &mini_batch_words,
        "Target-token budget of a mini-batch (per process under mpirun)");
  o.add(g, "mini-batch", &mini_batch, "Sentences in a mini-batch at most (0: no limit)");
  o.add(g, "maxi-batch", &maxi_batch,
        "Sentences are length-sorted inside pools of this many mini-batches");
  o.add(g, "max-length", &max_length,
        "Maximum subwords a side; longer pairs are skipped (see max-length-crop)");
  o.add(g, "max-length-crop", &max_length_crop,
        "Crop pairs longer than max-length instead of skipping them");
  o.add_enum(g, "shuffle", &shuffle,
             "Each epoch: shuffle the pairs and the batches (data), read the pairs in file order "
             "and shuffle the "
             "batches of each maxi-batch (batches), or neither (none)");
  o.add(g, "no-restore-corpus", &no_restore_corpus,
        "Resuming: start the epoch's data afresh (Marian's option)");
  g = "Validation";
  o.add(g, "valid-freq", &valid_freq, "Validate every this long (u/t/e)");
  o.add_choice(g, "valid-metrics", &valid_metrics, validation_metric_names(),
               "Validation metrics (Marian's); the first decides early stopping");
  o.add(g, "valid-mini-batch", &valid_mini_batch, "Sentences in a validation batch");
  o.add(g, "valid-max-length", &valid_max_length,
        "Validation sentences longer than this are cropped");
  o.add(g, "beam-size", &valid_beam_size, "Beam size when validation translates");
  o.add(g, "normalize", &valid_normalize, "Length normalisation when validation translates");
  o.add(g, "word-penalty", &valid_word_penalty, "Word penalty when validation translates");
  o.add(g, "max-length-factor", &valid_max_length_factor,
        "Output length limit (x source length) in validation");
  o.add(g, "allow-unk", &valid_allow_unk, "Allow <unk> in validation translations");
  o.add(g, "valid-script-path", &valid_script_path,
        "Command (run by the shell) that prints the score: with the translation metric it gets the "
        "translations' "
        "file as its last argument");
  o.add(g, "valid-script-args", &valid_script_args,
        "Arguments put between valid-script-path and the file");
  o.add(g, "valid-translation-output", &valid_translation_output,
        "Write validation translations here; {E} {U} {B} {T}: epoch, updates, updates in epoch, "
        "target tokens");
  o.add(g, "valid-log", &valid_log, "Also append the validation lines to this file");
  o.add(g, "early-stopping", &early_stopping,
        "Stop after this many validations without improvement (0: off)");
  o.add_enum(g, "early-stopping-on", &early_stopping_on,
             "Which metrics must stall for early stopping: the first, all, or any");
  o.add(g, "valid-reset-stalled", &valid_reset_stalled,
        "Resuming: reset the stalled counts of every metric");
  o.add(g, "valid-reset-all", &valid_reset_all,
        "Resuming: reset the stalled counts and the best values");
  o.add(g, "keep-best", &keep_best,
        "Also save the best model of each validation metric (<model>.best-<metric><ext>)");
  g = "Training";
  o.add(g, "after", &after,
        "Stop after this long: updates (u), target tokens (t) or epochs (e); 0 = never");
  o.add(g, "time-limit", &time_limit_minutes,
        "Also stop and save after this many minutes of wall time (0: none)");
  o.add(g, "disp-freq", &disp_freq, "Log every this long (u/t/e)");
  o.add(g, "disp-first", &disp_first, "Also log each of the first N updates");
  o.add(g, "disp-label-counts", &disp_label_counts,
        "cost-type ce-sum: show the label counts in the cost");
  o.add(g, "lr-report", &lr_report, "Show the learning rate (L.r.) in the training line");
  o.add(g, "gradient-norm-average-window", &gradient_norm_average_window,
        "gNorm in the training line is an exponential average over this many updates");
  o.add_enum(g, "cost-type", &cost_type,
             "How the training line shows the cost (realmt always trains on the per-token mean)");
  o.add(g, "save-freq", &save_freq, "Save a checkpoint every this long (u/t/e)");
  o.add(g, "overwrite", &overwrite,
        "Only keep the latest checkpoint (else also model.iter<N><ext>)");
  o.add_enum(g, "optimizer", &optimizer, "Optimizer");
  o.add(g, "optimizer-params", &optimizer_params,
        "beta1 beta2 epsilon (fewer: the rest are Adam's 0.9 0.999 1e-8, as in Marian; [] all of "
        "them)");
  o.add(g, "learn-rate", &learn_rate, "Peak learning rate");
  o.add(g, "lr-warmup", &lr_warmup, "Linear warm-up of the learning rate over this many updates");
  o.add(g, "lr-decay-inv-sqrt", &lr_decay_inv_sqrt_args,
        "Inverse-square-root decay: D [S]: lr * sqrt(D / (t - S + D)) once update t > S (S: D when "
        "not given)");
  o.add(g, "lr-decay-linear", &lr_decay_linear,
        "Linear decay to 0 at this update (the RealFormer recipe)");
  o.add(g, "clip-norm", &clip_norm, "Clip the global gradient norm to this value (0: off)");
  o.add(g, "optimizer-delay", &optimizer_delay,
        "Accumulate gradients of this many batches per update");
  o.add(g, "exponential-smoothing", &exponential_smoothing,
        "Exponential smoothing factor of the weights (0: off)");
  o.add(g, "label-smoothing", &label_smoothing, "Label smoothing of the cross-entropy");
  g = "Hardware and logging";
  o.add(g, "devices", &devices,
        "GPUs to train on (e.g. 0 or cuda:0; under mpirun local rank i takes the i-th); empty or "
        "cpu: the CPU");
  o.add_enum(g, "precision", &precision,
             "Compute precision: f32 (exact); on a GPU also tf32 (TF32 tensor-core GEMMs), bf16 or "
             "f16 (f32 master "
             "weights; f16 with dynamic loss scaling). Marian's float32/float16/bfloat16 lists are "
             "accepted");
  o.add(g, "loss-scale", &loss_scale,
        "f16: initial loss scale (halved on overflow, doubled after loss-scale-window)");
  o.add(g, "loss-scale-window", &loss_scale_window,
        "f16: updates without overflow before the loss scale doubles");
  o.add(g, "cpu-threads", &cpu_threads, "CPU threads (0: all cores)");
  o.add(g, "comm-timeout", &comm_timeout,
        "mpirun: seconds a collective (all-reduce, rank 0's validation and saving) may wait for "
        "the other ranks "
        "before the job stops with an error");
  o.add(g, "seed", &seed,
        "Random seed (initialisation, dropout, data order); 0: a random one, logged");
  o.add(g, "metrics-file", &metrics_file,
        "JSON-lines metrics for plotting (empty: <model>.metrics.jsonl)");
  o.add(g, "quiet", &quiet, "Nothing on stderr (the log files are still written)");
  o.add(g, "quiet-translation", &quiet_translation, "No translation lines while validating");
  o.add(g, "quiet-progress", &quiet_progress, "No progress bar on a terminal");
  o.add_enum(g, "sigterm", &sigterm, "On SIGTERM: save a checkpoint and stop, or stop at once");
  model_config.declare(o);
  o.short_name("model", 'm')
      .short_name("train-sets", 't')
      .short_name("vocabs", 'v')
      .short_name("devices", 'd');
  o.short_name("learn-rate", 'l')
      .short_name("after", 'a')
      .short_name("beam-size", 'b')
      .short_name("normalize", 'n');
  o.implicit_value("normalize", "1").implicit_value("exponential-smoothing", "1e-4");
  declare_marian(o);
  o.version_line([] { return "cpu kernels: " + cpu_isa_summary(); });
  o.on_parsed(
      [](const OptionSet&) { cpu_isa_configured(); });  // a bad REALMT_CPU_ISA fails at start
  o.on_parsed([this](const OptionSet& set) {
    apply_marian(set);
    validate();
  });
}

void TrainOptions::validate() const {
  REALMT_CHECK(train_sets.size() == 1 || train_sets.size() == 2,
               "train-sets: give the source and target files, or one TSV file (got {} files)",
               train_sets.size());
  REALMT_CHECK(!vocabs.empty(),
               "vocabs: give the vocabulary (.spm, or .yml for pre-segmented text); a missing "
               ".spm is trained on the train-sets");
  REALMT_CHECK(vocabs.size() <= 2, "vocabs: one vocabulary a side (source and target), got {}",
               vocabs.size());
  const bool converted = fine_tunes_converted();
  // As Marian: one embedding table for both sides needs one vocabulary.
  REALMT_CHECK(converted || !separate_vocabs() || !model_config.source_target_tied(),
               "vocabs {} and {}: two different vocabularies cannot share one embedding table "
               "({}); give one "
               "vocabulary for both sides or untie the source: tied-embeddings-all false, "
               "tied-embeddings-src false",
               vocabs[0], vocabs.back(),
               model_config.tied_embeddings_all ? "tied-embeddings-all" : "tied-embeddings-src");
  REALMT_CHECK(sentencepiece_max_lines >= 0,
               "sentencepiece-max-lines must be >= 0 (0: all lines), got {}",
               sentencepiece_max_lines);
  REALMT_CHECK(vocabs.size() == 1 || vocabs.size() == train_sets.size(),
               "vocabs: {} vocabularies for {} train-sets files (one a side, as in Marian)",
               vocabs.size(), train_sets.size());
  REALMT_CHECK(valid_sets.empty() || valid_sets.size() == 2,
               "valid-sets: give a source and a target file (got {})", valid_sets.size());
  REALMT_CHECK(!model.empty(), "model: a checkpoint path is needed");
  REALMT_CHECK(mini_batch_words > 0 || mini_batch > 0,
               "mini-batch-words or mini-batch must be positive");
  REALMT_CHECK(optimizer_params.size() == 3,
               "optimizer-params: give beta1 beta2 epsilon (got {} values)",
               optimizer_params.size());
  REALMT_CHECK(learn_rate > 0, "learn-rate must be positive, got {}", learn_rate);
  for (const Duration* d : {&lr_warmup, &lr_decay_inv_sqrt, &lr_decay_linear})
    REALMT_CHECK(d->off() || d->unit == Duration::Unit::kUpdates,
                 "lr-warmup, lr-decay-inv-sqrt and lr-decay-linear count updates (u), got {}",
                 d->str());
  REALMT_CHECK(lr_decay_linear.off() || lr_decay_inv_sqrt.off(),
               "lr-decay-linear and lr-decay-inv-sqrt are alternatives; set one");
  REALMT_CHECK(optimizer_delay >= 1, "optimizer-delay must be >= 1, got {}", optimizer_delay);
  REALMT_CHECK(clip_norm >= 0, "clip-norm must be >= 0, got {}", clip_norm);
  REALMT_CHECK(exponential_smoothing >= 0 && exponential_smoothing < 1,
               "exponential-smoothing must be in [0, 1), got {}", exponential_smoothing);
  REALMT_CHECK(label_smoothing >= 0 && label_smoothing < 1,
               "label-smoothing must be in [0, 1), got {}", label_smoothing);
  REALMT_CHECK(loss_scale > 0, "loss-scale must be positive, got {}", loss_scale);
  REALMT_CHECK(loss_scale_window >= 1, "loss-scale-window must be >= 1, got {}", loss_scale_window);
  // devices: one a process without mpirun (checked by the trainer, which knows the job's size).
  REALMT_CHECK(comm_timeout > 0, "comm-timeout must be positive seconds, got {}", comm_timeout);
  REALMT_CHECK(!disp_freq.off(), "disp-freq must not be 0");
  REALMT_CHECK(time_limit_minutes >= 0, "time-limit must be >= 0 minutes, got {}",
               time_limit_minutes);
  REALMT_CHECK(disp_first >= 0, "disp-first must be >= 0, got {}", disp_first);
  REALMT_CHECK(gradient_norm_average_window >= 1,
               "gradient-norm-average-window must be >= 1, got {}", gradient_norm_average_window);
  REALMT_CHECK(valid_max_length >= 1, "valid-max-length must be >= 1, got {}", valid_max_length);
  REALMT_CHECK(seed >= 0, "seed must be >= 0 (0: a random seed), got {}", seed);
  for (const auto& m : valid_metrics)
    REALMT_CHECK(
        (m != "translation" && m != "valid-script") || !valid_script_path.empty(),
        "valid-metrics {}: set valid-script-path to the command that prints the score (Marian's "
        "validate.sh); it gets the translations' file as its last argument",
        m);
  compute_precision();  // checks the list
  REALMT_CHECK(converted || model_config.realmt_special_ids(),
               "pad-id {}, unk-id {}, eos-id {}, decoder-start-id {}: realmt-train reads a "
               "SentencePiece vocabulary "
               "into realmt's ids (0, 1, 3, 2); leave them unset",
               model_config.pad_id, model_config.unk_id, model_config.eos_id,
               model_config.decoder_start_id);
  model_config.validate();
}

bool TrainOptions::fine_tunes_converted() const {
  if (pretrained_model.empty() || !std::filesystem::exists(pretrained_model)) return false;
  return models::load_safetensors_header(pretrained_model).metadata.count(models::kVocabTableKey) >
         0;
}

Precision TrainOptions::compute_precision() const {
  // Marian: "float16 float32" = forward/backward in f16, optimizer in f32 (realmt's master
  // weights).
  REALMT_CHECK(!precision.empty() && precision.size() <= 3,
               "precision: give one type (f32, tf32, bf16, f16), got {}", precision.size());
  for (size_t i = 1; i < precision.size(); ++i)
    REALMT_CHECK(precision[i] == Precision::kF32,
                 "precision: realmt keeps f32 master weights and optimizer state; '{}' (item {}) "
                 "must be float32",
                 enum_name(precision[i]), i + 1);
  return precision[0];
}

data::BatchGeneratorOptions TrainOptions::loader_options() const {
  data::BatchGeneratorOptions d;
  d.src_path = train_sets.at(0);
  d.tgt_path = train_sets.size() > 1 ? train_sets[1] : "";
  d.vocab_path = vocabs.at(0);
  d.tgt_vocab_path = vocabs.back();
  d.mini_batch_words = mini_batch_words;
  d.mini_batch = mini_batch;
  d.maxi_batch = maxi_batch;
  d.max_length = max_length;
  d.max_length_crop = max_length_crop;
  d.shuffle = shuffle == Shuffle::kData;
  d.shuffle_batches = shuffle == Shuffle::kBatches;
  d.seed = static_cast<uint64_t>(seed);
  d.threads = 1;  // encoding is far faster than training; more threads only contend for the cores
  return d;
}

}  // namespace realmt::training
