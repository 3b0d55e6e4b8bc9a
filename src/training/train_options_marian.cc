// realmt-train's Marian options (Marian 1.12's config_parser.cpp, training mode): the ones realmt
// maps onto its own, the ones it accepts without effect (logged), and the ones for features it
// does not have (refused with the reason unless they hold Marian's default).
#include <cmath>
#include <map>
#include <random>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "models/safetensors.h"
#include "training/train_options.h"

namespace realmt::training {

namespace {

using Kind = OptionSet::Kind;

void declare_no_effect(OptionSet& o) {
  const char* fit =
      "batches hold mini-batch-words target tokens (set it to size them); nothing is fitted to a "
      "workspace";
  const char* corpus =
      "realmt shuffles an index of the corpus in memory, never the text in temporary files";
  const char* ranks =
      "every rank holds the whole model and all-reduces gradients (NCCL on GPUs, MPI on CPUs)";
  // The last argument: Marian's defaults (what a --dump-config holds); only other values are noted.
  o.add_no_effect("workspace", Kind::kValue, "memory is allocated on demand by a caching allocator",
                  {"2048"})
      .short_name("workspace", 'w')
      .add_no_effect("mini-batch-fit", Kind::kFlag, fit)
      .add_no_effect("mini-batch-fit-step", Kind::kValue, fit, {"10"})
      .add_no_effect("mini-batch-round-up", Kind::kFlag, "batch sizes are not rounded", {"true"})
      .add_no_effect("sync-sgd", Kind::kFlag, "data parallelism in realmt is always synchronous")
      .add_no_effect("check-nan", Kind::kFlag, "realmt always stops on a non-finite loss")
      .add_no_effect("check-gradient-nan", Kind::kFlag,
                     "realmt stops on a non-finite loss; with f16 an overflowed update is skipped")
      .add_no_effect("tempdir", Kind::kValue, corpus, {"/tmp"})
      .short_name("tempdir", 'T')
      .add_no_effect("shuffle-in-ram", Kind::kFlag, corpus)
      .add_no_effect("sqlite", Kind::kValue, corpus, {""})
      .implicit_value("sqlite", "temporary")
      .add_no_effect("sqlite-drop", Kind::kFlag, corpus)
      .add_no_effect("data-threads", Kind::kValue,
                     "realmt encodes the corpus with one thread (far faster than training)", {"8"})
      .add_no_effect("multi-loss-type", Kind::kValue, "realmt trains one loss", {"sum"})
      .add_no_effect("no-nccl", Kind::kFlag, ranks)
      .add_no_effect("sharding", Kind::kValue, ranks, {"global"})
      .add_no_effect("sync-freq", Kind::kValue, ranks, {"200u"})
      .add_no_effect("gradient-checkpointing", Kind::kFlag,
                     "activations are kept for the backward pass")
      .add_no_effect("factor-weight", Kind::kValue, "realmt has no factored vocabularies", {"1"})
      .add_no_effect("log-time-zone", Kind::kValue, "log times are the machine's local time", {""})
      .add_no_effect("ignore-model-config", Kind::kFlag,
                     "the checkpoint's config is the model's architecture")
      .add_no_effect("n-best", Kind::kFlag, "validation keeps the best translation only")
      .add_no_effect("word-scores", Kind::kFlag, "validation keeps the best translation only");
}

void declare_unavailable(OptionSet& o) {
  const char* rnn =
      "RNN (s2s, amun, nematus) models are not implemented; realmt trains Transformers";
  const char* factors =
      "factored vocabularies are not implemented; realmt uses one SentencePiece vocabulary";
  const char* bert = "BERT models are not implemented";
  const char* ulr = "ULR (universal language representation) is not implemented";
  const char* lr =
      "learning-rate decay by epochs, batches or stalls is not implemented; realmt has lr-warmup, "
      "lr-decay-inv-sqrt and lr-decay-linear";
  for (const char* name : {"dim-rnn", "enc-type", "enc-cell", "enc-cell-depth", "dec-cell",
                           "dec-cell-base-depth", "dec-cell-high-depth"}) {
    static const std::map<std::string, std::vector<std::string>> defaults = {
        {"dim-rnn", {"1024"}},         {"enc-type", {"bidirectional"}},
        {"enc-cell", {"gru"}},         {"enc-cell-depth", {"1"}},
        {"dec-cell", {"gru"}},         {"dec-cell-base-depth", {"2"}},
        {"dec-cell-high-depth", {"1"}}};
    o.add_unavailable(name, Kind::kValue, defaults.at(name), rnn);
  }
  for (const char* name : {"skip", "layer-normalization", "best-deep"})
    o.add_unavailable(name, Kind::kFlag, {}, rnn);
  o.add_unavailable("dropout-rnn", Kind::kValue, {"0"}, rnn)
      .add_unavailable("dropout-src", Kind::kValue, {"0"}, "source word dropout is not implemented")
      .add_unavailable("dropout-trg", Kind::kValue, {"0"}, "target word dropout is not implemented")
      .add_unavailable("right-left", Kind::kFlag, {}, "right-to-left training is not implemented")
      .add_unavailable("input-types", Kind::kList, {"sequence"}, "inputs are sequences of subwords")
      .add_unavailable("factors-dim-emb", Kind::kValue, {"0"}, factors)
      .add_unavailable("factors-combine", Kind::kValue, {"sum"}, factors)
      .add_unavailable("lemma-dependency", Kind::kValue, {""}, factors)
      .add_unavailable("lemma-dim-emb", Kind::kValue, {"0"}, factors)
      .add_unavailable("transformer-no-projection", Kind::kFlag, {},
                       "attention always has its output projection")
      .add_unavailable(
          "transformer-rnn-projection", Kind::kFlag, {},
          "the decoder's autoregressive layer is self-attention; RNN layers are not implemented")
      .add_unavailable("no-spm-encode", Kind::kFlag, {},
                       "a .spm vocabulary encodes text; for pre-segmented text give a word-list "
                       "vocabulary (.yml), "
                       "which splits it on spaces")
      .add_unavailable("early-stopping-epsilon", Kind::kList, {"0"},
                       "any improvement resets the stalled count (Marian's default 0)")
      .add_unavailable("transformer-pool", Kind::kFlag, {},
                       "the decoder always attends to the encoder")
      .add_unavailable("transformer-ffn-depth", Kind::kValue, {"2"},
                       "the feed-forward block has two layers")
      .add_unavailable("transformer-decoder-autoreg", Kind::kValue, {"self-attention"},
                       "average attention (AAN) is not implemented")
      .add_unavailable("transformer-dim-aan", Kind::kValue, {"2048"},
                       "average attention (AAN) is not implemented")
      .add_unavailable("transformer-aan-depth", Kind::kValue, {"2"},
                       "average attention (AAN) is not implemented")
      .add_unavailable("transformer-aan-activation", Kind::kValue, {"swish"},
                       "average attention (AAN) is not implemented")
      .add_unavailable("transformer-aan-nogate", Kind::kFlag, {},
                       "average attention (AAN) is not implemented")
      .add_unavailable("transformer-tied-layers", Kind::kList, {},
                       "tied decoder layers are not implemented")
      .add_unavailable("transformer-guided-alignment-layer", Kind::kValue, {"last"},
                       "guided alignment is not implemented")
      .add_unavailable("transformer-train-position-embeddings", Kind::kFlag, {},
                       "positions are sinusoidal; learned position embeddings are not implemented")
      .add_unavailable("transformer-depth-scaling", Kind::kFlag, {},
                       "depth-scaled initialisation is not implemented; realmt's deep models use "
                       "ADMIN (admin-init)")
      .add_unavailable("output-omit-bias", Kind::kFlag, {},
                       "the output layer's bias is always there")
      .add_unavailable("bert-mask-symbol", Kind::kValue, {"[MASK]"}, bert)
      .add_unavailable("bert-sep-symbol", Kind::kValue, {"[SEP]"}, bert)
      .add_unavailable("bert-class-symbol", Kind::kValue, {"[CLS]"}, bert)
      .add_unavailable("bert-masking-fraction", Kind::kValue, {"0.15"}, bert)
      .add_unavailable("bert-train-type-embeddings", Kind::kValue, {"true"}, bert)
      .add_unavailable("bert-type-vocab-size", Kind::kValue, {"2"}, bert)
      .add_unavailable("ulr", Kind::kFlag, {}, ulr)
      .add_unavailable("ulr-query-vectors", Kind::kValue, {""}, ulr)
      .add_unavailable("ulr-keys-vectors", Kind::kValue, {""}, ulr)
      .add_unavailable("ulr-trainable-transformation", Kind::kFlag, {}, ulr)
      .add_unavailable("ulr-dim-emb", Kind::kValue, {"0"}, ulr)
      .add_unavailable("ulr-dropout", Kind::kValue, {"0"}, ulr)
      .add_unavailable("ulr-softmax-temperature", Kind::kValue, {"1"}, ulr)
      .add_unavailable("unlikelihood-loss", Kind::kFlag, {},
                       "unlikelihood training is not implemented")
      .add_unavailable("sentencepiece-alphas", Kind::kList, {"0"},
                       "subword sampling is not implemented")
      .add_unavailable("lr-decay", Kind::kValue, {"0"}, lr)
      .add_unavailable("lr-decay-strategy", Kind::kValue, {"epoch+stalled"}, lr)
      .add_unavailable("lr-decay-start", Kind::kList, {"10", "1"}, lr)
      .add_unavailable("lr-decay-freq", Kind::kValue, {"50000"}, lr)
      .add_unavailable("lr-decay-reset-optimizer", Kind::kFlag, {}, lr)
      .add_unavailable("lr-decay-repeat-warmup", Kind::kFlag, {}, lr)
      .add_unavailable("lr-warmup-start-rate", Kind::kValue, {"0"},
                       "the warm-up always starts from 0")
      .add_unavailable("lr-warmup-cycle", Kind::kFlag, {}, "cyclic warm-up is not implemented")
      .add_unavailable("lr-warmup-at-reload", Kind::kFlag, {},
                       "a resumed run continues its schedule exactly")
      .add_unavailable("guided-alignment", Kind::kValue, {"none"},
                       "guided alignment is not implemented")
      .add_unavailable("guided-alignment-cost", Kind::kValue, {"mse", "ce", "mult"},
                       "guided alignment is not implemented")
      .add_unavailable("guided-alignment-weight", Kind::kValue, {"0.1"},
                       "guided alignment is not implemented")
      .add_unavailable("data-weighting", Kind::kValue, {""}, "data weighting is not implemented")
      .add_unavailable("data-weighting-type", Kind::kValue, {"sentence"},
                       "data weighting is not implemented")
      .add_unavailable("embedding-vectors", Kind::kList, {},
                       "pre-trained embedding vectors are not implemented")
      .add_unavailable("embedding-normalization", Kind::kFlag, {},
                       "pre-trained embedding vectors are not implemented")
      .add_unavailable("embedding-fix-src", Kind::kFlag, {},
                       "frozen embeddings are not implemented")
      .add_unavailable("embedding-fix-trg", Kind::kFlag, {},
                       "frozen embeddings are not implemented")
      .add_unavailable("dynamic-gradient-scaling", Kind::kList, {},
                       "dynamic gradient scaling is not implemented")
      .add_unavailable("normalize-gradient", Kind::kFlag, {},
                       "gradients are always per target token")
      .add_unavailable("train-embedder-rank", Kind::kList, {},
                       "embedder training is not implemented")
      .add_unavailable("quantize-bits", Kind::kValue, {"0"},
                       "quantized training is not implemented")
      .add_unavailable("quantize-optimization-steps", Kind::kValue, {"0"},
                       "quantized training is not implemented")
      .add_unavailable("quantize-log-based", Kind::kFlag, {},
                       "quantized training is not implemented")
      .add_unavailable("quantize-biases", Kind::kFlag, {}, "quantized training is not implemented")
      .add_unavailable("all-caps-every", Kind::kValue, {"0"},
                       "case augmentation is not implemented")
      .add_unavailable("english-title-case-every", Kind::kValue, {"0"},
                       "case augmentation is not implemented")
      .add_unavailable("mini-batch-words-ref", Kind::kValue, {"0"},
                       "hyper-parameter scaling by batch size is not "
                       "implemented")
      .add_unavailable("mini-batch-warmup", Kind::kValue, {"0"},
                       "batch-size warm-up is not implemented")
      .add_unavailable("mini-batch-track-lr", Kind::kFlag, {},
                       "batch-size tracking is not implemented")
      .add_unavailable(
          "maxi-batch-sort", Kind::kValue, {"trg"},
          "realmt sorts each maxi-batch by target length, then source length (Marian's trg)")
      .add_unavailable("logical-epoch", Kind::kList, {"1e", "0"}, "epochs are passes over the data")
      .add_unavailable("interpolate-env-vars", Kind::kFlag, {},
                       "let the shell expand ${VAR} in paths")
      .add_unavailable("relative-paths", Kind::kFlag, {},
                       "paths are relative to the working directory");
}

std::vector<std::pair<std::string, std::string>> task_preset(bool big, bool prenorm) {
  // Marian's aliases (src/common/aliases.cpp, Marian 1.12), option for option where realmt has the
  // option, plus what makes realmt's Transformer Vaswani's: no residual attention, no ADMIN.
  // transformer-postprocess-emb stays Marian's default d; valid-mini-batch is in sentences in both.
  std::vector<std::pair<std::string, std::string>> v = {
      {"type", "transformer"},
      {"enc-depth", "6"},
      {"dec-depth", "6"},
      {"dim-emb", big ? "1024" : "512"},
      {"tied-embeddings-all", "true"},
      {"transformer-dim-ffn", big ? "4096" : "2048"},
      {"transformer-heads", big ? "16" : "8"},
      {"transformer-postprocess", prenorm ? "da" : "dan"},
      {"transformer-preprocess", prenorm ? "n" : ""},
      {"transformer-ffn-activation", "relu"},
      {"transformer-dropout", "0.1"},
      {"learn-rate", big ? "0.0002" : "0.0003"},
      {"cost-type", "ce-mean-words"},
      {"lr-warmup", big ? "8000" : "16000"},
      {"lr-decay-inv-sqrt", big ? "8000" : "16000"},
      {"label-smoothing", "0.1"},
      {"clip-norm", "0"},
      {"sync-sgd", "true"},
      {"exponential-smoothing", "1e-4"},
      {"max-length", "100"},
      {"mini-batch-fit", "true"},
      {"mini-batch", "1000"},
      {"maxi-batch", "1000"},
      {"workspace", big ? "13000" : "9500"},
      {"optimizer-params", big ? "0.9 0.998 1e-09" : "0.9 0.98 1e-09"},
      {"beam-size", "8"},
      {"valid-mini-batch", big ? "8" : "16"},
      {"normalize", "1"},
      {"residual-attention-encoder", "none"},
      {"residual-attention-decoder", "none"},
      {"residual-attention-cross", "none"},
      {"admin-init", "none"}};
  if (prenorm) v.push_back({"transformer-postprocess-top", "n"});
  return v;
}

}  // namespace

void TrainOptions::declare_marian(OptionSet& o) {
  declare_no_effect(o);
  declare_unavailable(o);
  o.add_unavailable("tsv-fields", Kind::kValue, {"0", "2"},
                    "a TSV corpus has two fields, source and target");
  const std::string g = "Marian aliases";
  o.add(g, "after-epochs", &marian.after_epochs, "Stop after this many epochs (= after Ne)")
      .short_name("after-epochs", 'e')
      .add(g, "after-batches", &marian.after_batches, "Stop after this many updates (= after Nu)")
      .add(g, "no-shuffle", &marian.no_shuffle, "= shuffle none")
      .add(g, "fp16", &marian.fp16,
           "= precision float16 float32 (f16 compute, dynamic loss scaling; needs a GPU)")
      .add(g, "cost-scaling", &marian.cost_scaling,
           "f16 loss scaling: power-of-2 initial scale, window (= loss-scale 2^power, "
           "loss-scale-window)")
      .add(g, "transformer-preprocess", &marian.preprocess, "n: Pre-LN (= transformer-norm pre)")
      .add(g, "transformer-postprocess", &marian.postprocess,
           "dan: Post-LN (= transformer-norm post)")
      .add(g, "transformer-postprocess-emb", &marian.postprocess_emb,
           "d: dropout on the embeddings")
      .add(g, "transformer-postprocess-top", &marian.postprocess_top,
           "n: a final layer norm (realmt's Pre-LN has it)")
      .add(g, "tsv", &marian.tsv,
           "train-sets is one TSV file (realmt tells by the number of files)")
      .add(g, "num-devices", &marian.num_devices,
           "Devices of this process: 1 (start more with mpirun)")
      .add_choice(g, "task", &marian.task,
                  {"transformer-base", "transformer-big", "transformer-base-prenorm",
                   "transformer-big-prenorm"},
                  "Marian's presets: Vaswani's Transformer base or big, Post-LN or Pre-LN "
                  "(prenorm), with Marian's "
                  "training and validation settings (no residual attention, no ADMIN); options "
                  "given explicitly win")
      .preset("task", "transformer-base", task_preset(false, false))
      .preset("task", "transformer-big", task_preset(true, false))
      .preset("task", "transformer-base-prenorm", task_preset(false, true))
      .preset("task", "transformer-big-prenorm", task_preset(true, true))
      .add(g, "transformer-decoder-dim-ffn", &marian.decoder_dim_ffn,
           "0 or transformer-dim-ffn: realmt's decoder has the encoder's feed-forward size")
      .add(g, "transformer-decoder-ffn-depth", &marian.decoder_ffn_depth,
           "0 or 2: realmt's decoder feed-forward has two layers, as the encoder's")
      .add(g, "overwrite-checkpoint", &marian.overwrite_checkpoint,
           "One training state beside the model; model.iter<N> files hold weights only (Marian's "
           "true; false is "
           "refused)");
}

// Marian writes lr-decay-inv-sqrt as a list: D and an optional start S (scheduler.h: decays from S,
// shifted so that the factor is 1 at S; S = D when not given).
void TrainOptions::apply_lr_decay_inv_sqrt() {
  const std::vector<std::string>& a = lr_decay_inv_sqrt_args;
  REALMT_CHECK(a.size() == 1 || a.size() == 2,
               "lr-decay-inv-sqrt: give one or two values (D [S]), got {}", a.size());
  lr_decay_inv_sqrt = Duration::parse(a[0]);
  lr_decay_inv_sqrt_start = -1;
  if (a.size() == 2) {
    const Duration start = Duration::parse(a[1]);
    REALMT_CHECK(start.off() || start.unit == lr_decay_inv_sqrt.unit || lr_decay_inv_sqrt.off(),
                 "lr-decay-inv-sqrt {} {}: both values must have the same unit", a[0], a[1]);
    lr_decay_inv_sqrt_start = start.value;
  }
}

// Marian's Adam takes beta1, beta2, epsilon in order; missing ones keep Adam's defaults
// (optimizers.h), a fourth is AdamW's weight decay (0: none).
void TrainOptions::apply_optimizer_params() {
  std::vector<double>& p = optimizer_params;
  REALMT_CHECK(p.size() <= 3 || (p.size() == 4 && p[3] == 0),
               "optimizer-params: give beta1 beta2 epsilon (got {} values; a fourth, AdamW's "
               "weight decay, is not "
               "implemented unless 0)",
               p.size());
  if (p.size() == 4) p.pop_back();
  const double adam[3] = {0.9, 0.999, 1e-8};
  while (p.size() < 3) p.push_back(adam[p.size()]);
}

// dim-vocabs sizes the vocabularies realmt-train creates (an existing one decides its own size, as
// in Marian). Two different vocabularies untie the source embeddings, as Marian's default; asked
// for (tied-embeddings-all, tied-embeddings-src, also by --task) validate() refuses them.
void TrainOptions::apply_vocabs(const OptionSet& set) {
  created_vocab_sizes.clear();
  if (set.was_set("dim-vocabs"))
    created_vocab_sizes.assign(model_config.dim_vocabs.begin(), model_config.dim_vocabs.end());
  if (!separate_vocabs()) return;
  if (!set.was_set("tied-embeddings-all")) model_config.tied_embeddings_all = false;
  if (!model_config.source_target_tied())
    log::info("{}: vocabs {} and {}: separate source and target embedding tables ({})",
              set.program(), vocabs[0], vocabs[1],
              model_config.tied_embeddings ? "the target's tied to the output layer"
                                           : "and an output layer");
}

void TrainOptions::apply_marian(const OptionSet& set) {
  const MarianAliases& m = marian;
  if (m.after_epochs > 0 || m.after_batches > 0) {
    REALMT_CHECK(
        after.off() && (m.after_epochs == 0 || m.after_batches == 0),
        "after, after-epochs and after-batches: realmt stops at one criterion; give one of them");
    after = m.after_epochs > 0 ? Duration{Duration::Unit::kEpochs, m.after_epochs}
                               : Duration{Duration::Unit::kUpdates, m.after_batches};
  }
  if (m.no_shuffle) shuffle = Shuffle::kNone;
  REALMT_CHECK(
      m.decoder_dim_ffn == 0 || m.decoder_dim_ffn == model_config.dim_ffn,
      "transformer-decoder-dim-ffn {}: realmt's decoder has the encoder's feed-forward size "
      "(transformer-dim-ffn {}); set 0 or {}",
      m.decoder_dim_ffn, model_config.dim_ffn, model_config.dim_ffn);
  REALMT_CHECK(m.decoder_ffn_depth == 0 || m.decoder_ffn_depth == 2,
               "transformer-decoder-ffn-depth {}: realmt's decoder feed-forward has two layers, as "
               "the encoder's "
               "(transformer-ffn-depth 2); set 0 or 2",
               m.decoder_ffn_depth);
  REALMT_CHECK(m.overwrite_checkpoint,
               "overwrite-checkpoint false: realmt keeps one training state beside the model "
               "(model.iter<N> files, "
               "without overwrite, hold the weights only)");
  apply_lr_decay_inv_sqrt();
  apply_optimizer_params();
  if (m.fp16) precision = {Precision::kF16};
  if (!m.cost_scaling.empty()) {
    char* end = nullptr;
    const double power = std::strtod(m.cost_scaling[0].c_str(), &end);
    REALMT_CHECK(*end == '\0' || *end == 'f',
                 "cost-scaling: the first value is a power of 2, got '{}'", m.cost_scaling[0]);
    loss_scale = std::exp2(power);
    if (m.cost_scaling.size() > 1) loss_scale_window = std::stoll(m.cost_scaling[1]);
    if (m.cost_scaling.size() > 2)
      log::warn(
          "{}: cost-scaling: realmt halves the loss scale on overflow and doubles it after the "
          "window; the "
          "values after the second have no effect",
          set.program());
  }
  // Marian's pre/post-processing strings: d dropout, a add (residual), n layer norm.
  if (set.was_set("transformer-preprocess") || set.was_set("transformer-postprocess") ||
      set.was_set("transformer-postprocess-top")) {
    const bool pre = m.preprocess.find('n') != std::string::npos,
               post = m.postprocess.find('n') != std::string::npos;
    REALMT_CHECK(pre != post && m.postprocess.find('a') != std::string::npos,
                 "transformer-preprocess '{}' / transformer-postprocess '{}': realmt has Post-LN "
                 "(postprocess dan) or "
                 "Pre-LN (preprocess n, postprocess da)",
                 m.preprocess, m.postprocess);
    const models::Norm norm = pre ? models::Norm::kPre : models::Norm::kPost;
    REALMT_CHECK(!set.was_set("transformer-norm") || model_config.norm == norm,
                 "transformer-norm {} contradicts transformer-preprocess '{}' / "
                 "transformer-postprocess '{}'",
                 enum_name(model_config.norm), m.preprocess, m.postprocess);
    model_config.norm = norm;
    REALMT_CHECK(m.postprocess_top.empty() || (pre && m.postprocess_top == "n"),
                 "transformer-postprocess-top '{}': realmt's Pre-LN ends each stack with a layer "
                 "norm (top n); "
                 "Post-LN has nothing on top",
                 m.postprocess_top);
    if (pre && m.postprocess_top.empty())
      log::warn(
          "{}: realmt's Pre-LN ends each stack with a layer norm (as transformer-postprocess-top "
          "n)",
          set.program());
  }
  REALMT_CHECK(
      m.postprocess_emb.find('n') == std::string::npos,
      "transformer-postprocess-emb '{}': a layer norm on the embeddings is not implemented (use d)",
      m.postprocess_emb);
  if (set.was_set("transformer-postprocess-emb") &&
      m.postprocess_emb.find('d') == std::string::npos)
    log::warn(
        "{}: transformer-postprocess-emb '{}': realmt applies transformer-dropout to the "
        "embeddings",
        set.program(), m.postprocess_emb);
  apply_vocabs(set);
  REALMT_CHECK(!m.tsv || train_sets.size() == 1,
               "tsv: give one train-sets file of source<TAB>target lines");
  REALMT_CHECK(
      m.num_devices <= 1,
      "num-devices {}: realmt trains on one device a process; start {} processes with mpirun",
      m.num_devices, m.num_devices);
  REALMT_CHECK(
      train_sets.empty() || (train_sets[0] != "stdin" && train_sets[0] != "-"),
      "train-sets: realmt reads the corpus once an epoch and cannot train from stdin; give files");
  if (set.was_set("cost-type") && cost_type != CostType::kCeMeanWords &&
      !set.origin("cost-type").starts_with("task"))
    log::warn(
        "{}: cost-type {}: realmt trains on the per-token mean (ce-mean-words); cost-type only "
        "sets how the "
        "training line shows the cost",
        set.program(), enum_name(cost_type));
  if (models::checkpoint_file(model) != model)
    log::info(
        "{}: model {}: realmt's checkpoints are safetensors files, written as {} (Marian's other "
        "names "
        "likewise: {}.decoder.yml lists it); realmt-convert --to marian writes a Marian .npz of a "
        "model "
        "without residual attention",
        set.program(), model, models::checkpoint_file(model), model);
  if (seed == 0) {
    seed = static_cast<int64_t>(std::random_device{}() & 0x7fffffff) + 1;
    log::info("{}: seed 0: using the random seed {}", set.program(), seed);
  }
}

}  // namespace realmt::training
