#include "search/decode_options.h"

#include "common/options.h"
#include "core/error.h"

namespace realmt::search {

void ModelOptions::declare(OptionSet& o, const std::string& g) {
  o.add(g, "models", &models, "Model checkpoints (.safetensors); several form an ensemble");
  o.add(g, "vocabs", &vocabs,
        "The joint SentencePiece vocabulary (.spm) the models were trained with");
  o.add(g, "weights", &weights, "Ensemble weights, one per model (default: 1 each)");
  o.add("Hardware", "devices", &devices, "GPU to decode on (e.g. 0 or cuda:0); empty: the CPU");
  o.add("Hardware", "cpu-threads", &cpu_threads, "CPU threads (0: all cores)");
  o.add_choice("Hardware", "quantize", &quantize, {"none", "int8"},
               "int8: quantize the weights at load (per output row) and decode with int8 GEMMs on the CPU");
  o.add("Batching", "mini-batch", &mini_batch, "Sentences a batch at most");
  o.short_name("models", 'm').short_name("vocabs", 'v');
}

void ModelOptions::validate() const {
  REALMT_CHECK(!models.empty(), "models: give at least one checkpoint (-m model.safetensors)");
  REALMT_CHECK(!vocabs.empty(), "vocabs: give the SentencePiece vocabulary (-v vocab.spm)");
  REALMT_CHECK(vocabs.size() <= 2 && vocabs.front() == vocabs.back(),
               "vocabs: realmt models share one joint vocabulary; give it once (got {})",
               vocabs.size());
  REALMT_CHECK(weights.empty() || weights.size() == models.size(),
               "weights: {} given for {} models (one per model)", weights.size(), models.size());
  REALMT_CHECK(cpu_threads >= 0, "cpu-threads must be >= 0, got {}", cpu_threads);
  REALMT_CHECK(mini_batch >= 1, "mini-batch must be at least 1, got {}", mini_batch);
}

void TranslateOptions::declare(OptionSet& o) {
  model.declare(o, "Model");
  o.add("Input/output", "input", &input,
        "Text to translate, one sentence a line (-: stdin; gzip is read)");
  o.add("Input/output", "output", &output, "Where translations go, in input order (-: stdout)");
  o.add("Search", "beam-size", &beam_size, "Hypotheses kept per sentence (1: greedy)");
  o.add("Search", "normalize", &normalize, "Length normalisation: score / length^arg (0: off)");
  o.add("Search", "word-penalty", &word_penalty,
        "Subtract arg * translation length from the score");
  o.add("Search", "max-length-factor", &max_length_factor,
        "Output length limit as a multiple of the source length");
  o.add("Search", "max-length", &max_length, "Output length limit in subwords");
  o.add("Search", "n-best", &n_best, "Print the whole beam: id ||| text ||| F0= .. ||| score");
  o.add_choice("Search", "alignment", &alignment, {"none", "hard", "soft"},
               "Print subword alignments from cross-attention after ' ||| '");
  o.add("Search", "allow-unk", &allow_unk, "Allow <unk> in translations");
  o.add("Batching", "mini-batch-words", &mini_batch_words,
        "Source subwords a batch at most, padding counted (0: off)");
  o.add("Batching", "maxi-batch", &maxi_batch, "Mini-batches read and sorted by length together");
  o.add("Input/output", "quiet", &quiet, "No progress or summary on stderr");
  o.short_name("input", 'i').short_name("output", 'o').short_name("beam-size", 'b');
}

void TranslateOptions::validate() const {
  model.validate();
  REALMT_CHECK(maxi_batch >= 1, "maxi-batch must be at least 1, got {}", maxi_batch);
  REALMT_CHECK(mini_batch_words >= 0, "mini-batch-words must be >= 0, got {}", mini_batch_words);
  search().validate(model.models.size());
}

SearchOptions TranslateOptions::search() const {
  SearchOptions s;
  s.beam_size = beam_size;
  s.normalize = normalize;
  s.word_penalty = word_penalty;
  s.max_length_factor = max_length_factor;
  s.max_length = max_length;
  s.n_best = n_best ? beam_size : 1;
  s.allow_unk = allow_unk;
  s.alignment = parse_alignment(alignment);
  s.weights = model.weights;
  return s;
}

BatchingOptions TranslateOptions::batching() const { return {model.mini_batch, mini_batch_words}; }

void ScoreCliOptions::declare(OptionSet& o) {
  model.declare(o, "Model");
  o.add("Input/output", "train-sets", &train_sets,
        "Source file and target file (or n-best list with --n-best)");
  o.add("Input/output", "output", &output, "Where scores go (-: stdout)");
  o.add("Scoring", "n-best", &n_best,
        "Rescore an n-best list: append '<n-best-feature>= <score>' to each line");
  o.add("Scoring", "n-best-feature", &n_best_feature, "Feature name for n-best rescoring");
  o.add_choice("Scoring", "summary", &summary, {"", "perplexity", "ce-sum", "ce-mean-words"},
               "Print only a corpus summary instead of per-sentence scores");
  o.add("Scoring", "word-scores", &word_scores,
        "Also print each target token's log-probability (eos last)");
  o.add("Scoring", "normalize", &normalize, "Length normalisation: score / length^arg (0: off)");
  o.add("Scoring", "word-penalty", &word_penalty, "Subtract arg * target length from the score");
  o.short_name("train-sets", 't').short_name("output", 'o');
}

void ScoreCliOptions::validate() const {
  model.validate();
  REALMT_CHECK(train_sets.size() == 2, "train-sets: give a source file and a target file (got {})",
               train_sets.size());
  REALMT_CHECK(!n_best || summary.empty(), "summary and n-best exclude each other");
  REALMT_CHECK(!n_best_feature.empty() && n_best_feature.find(' ') == std::string::npos,
               "n-best-feature must be one word, got '{}'", n_best_feature);
}

}  // namespace realmt::search
