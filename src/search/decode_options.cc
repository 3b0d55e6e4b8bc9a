#include "search/decode_options.h"

#include <cstdlib>

#include "common/options.h"
#include "core/cpu_isa.h"
#include "core/error.h"
#include "search/shortlist.h"

namespace realmt::search {

bool is_stdin(const std::string& path) { return path == "stdin" || path == "-"; }
bool is_stdout(const std::string& path) { return path == "stdout" || path == "-"; }

AlignmentChoice parse_alignment_choice(const std::string& text) {
  if (text.empty() || text == "none") return {AlignmentKind::kNone, 1.0};
  if (text == "hard") return {AlignmentKind::kHard, 1.0};
  if (text == "soft") return {AlignmentKind::kSoft, 1.0};
  char* end = nullptr;
  const double t = std::strtod(text.c_str(), &end);
  REALMT_CHECK(*end == '\0' && t > 0 && t <= 1,
               "alignment: '{}' is not none, hard, soft or a threshold in (0, 1] (Marian's values)",
               text);
  return {AlignmentKind::kHard, t};
}

void ModelOptions::declare(OptionSet& o, const std::string& g) {
  o.add(g, "models", &models, "Model checkpoints (.safetensors); several form an ensemble");
  o.add(g, "vocabs", &vocabs,
        "The joint SentencePiece vocabulary (.spm) the models were trained with: once, or once a "
        "side (a converted "
        "model: its source and target .spm)");
  o.add(g, "weights", &weights, "Ensemble weights, one per model (empty: 1 each)");
  o.add("Hardware", "devices", &devices,
        "GPU to decode on (e.g. 0 or cuda:0); empty or cpu: the CPU");
  o.add("Hardware", "cpu-threads", &cpu_threads, "CPU threads (0: all cores)");
  o.add_enum(
      "Hardware", "quantize", &quantize,
      "int8: quantize the weights at load (per output row) and decode with int8 GEMMs on the CPU");
  o.add("Batching", "mini-batch", &mini_batch, "Sentences a batch at most");
  declare_marian_gemm_type(o, this);
  o.short_name("models", 'm').short_name("vocabs", 'v').short_name("devices", 'd');
  o.version_line([] { return "cpu kernels: " + cpu_isa_summary(); });
  o.on_parsed(
      [](const OptionSet&) { cpu_isa_configured(); });  // a bad REALMT_CPU_ISA fails at start
}

void ModelOptions::validate() const {
  REALMT_CHECK(!models.empty(), "models: give at least one checkpoint (-m model.safetensors)");
  REALMT_CHECK(!vocabs.empty(), "vocabs: give the SentencePiece vocabulary (-v vocab.spm)");
  // Two different files: checked against the model when it is loaded (search::load_vocab).
  REALMT_CHECK(vocabs.size() <= 2, "vocabs: one vocabulary a side (source and target), got {}",
               vocabs.size());
  REALMT_CHECK(weights.empty() || weights.size() == models.size(),
               "weights: {} given for {} models (one per model)", weights.size(), models.size());
  REALMT_CHECK(cpu_threads >= 0, "cpu-threads must be >= 0, got {}", cpu_threads);
  REALMT_CHECK(mini_batch >= 1, "mini-batch must be at least 1, got {}", mini_batch);
}

void declare_shortlist(OptionSet& o, std::vector<std::string>* shortlist) {
  o.add("Search", "shortlist", shortlist,
        "Lexical shortlist: FILE [first [best [threshold]]] (Marian's; 100 100 0 when left out): "
        "score only the "
        "target ids 0..first-1, eos, unk, the source pieces and each source piece's best targets "
        "with probability "
        ">= threshold (FILE: TARGET SOURCE PROB lines, realmt-data shortlist writes it; CPU only)");
}

void validate_shortlist(const std::vector<std::string>& shortlist) {
  if (!shortlist.empty()) ShortlistOptions::parse(shortlist);
}

void TranslateOptions::declare(OptionSet& o) {
  model.declare(o, "Model");
  o.add("Input/output", "input", &input,
        "Text to translate, one sentence a line (stdin or -: standard input; gzip is read)");
  o.add("Input/output", "output", &output,
        "Where translations go, in input order (stdout or -: standard output)");
  o.add("Search", "beam-size", &beam_size, "Hypotheses kept per sentence (1: greedy)");
  o.add("Search", "normalize", &normalize, "Length normalisation: score / length^arg (0: off)");
  o.add("Search", "word-penalty", &word_penalty,
        "Subtract arg * translation length from the score");
  o.add("Search", "max-length-factor", &max_length_factor,
        "Output length limit as a multiple of the source length");
  o.add("Search", "max-length", &max_length,
        "Source sentences longer than this many subwords (eos counted) are not translated: their "
        "line is "
        "empty, with a warning (see max-length-crop)");
  o.add("Search", "max-length-crop", &max_length_crop,
        "Crop source sentences longer than max-length");
  o.add_enum("Search", "length-rule", &length_rule,
             "At the length limit: realmt (floor(max-length-factor x source length) tokens, the "
             "last one eos) or "
             "marian (Marian's: the ceiling, any token at the last position, the output cut there "
             "without eos)");
  o.add("Search", "repeat-guard", &repeat_guard,
        "Loop guard: no token that makes an n-gram of this many subwords occur a third time (0: "
        "off)");
  o.add_enum("Search", "beam-mode", &beam_mode,
             "shrink: a finished hypothesis leaves the beam (Marian); full: the beam stays full "
             "until beam-size "
             "hypotheses have finished (Hugging Face generate with early_stopping, fairseq)");
  o.add("Search", "n-best", &n_best, "Print the whole beam: id ||| text ||| F0= .. ||| score");
  o.add("Search", "alignment", &alignment,
        "Print subword alignments after ' ||| ': hard, soft, or a threshold in (0, 1] (1 = hard)");
  o.add("Search", "allow-unk", &allow_unk, "Allow <unk> in translations");
  o.add("Input/output", "no-spm-decode", &no_spm_decode,
        "Print the subword pieces instead of the text");
  o.add("Input/output", "target-language", &target_language,
        "Multilingual models: put the vocabulary's tag >>arg<< (e.g. fra: >>fra<<) before every "
        "non-blank line");
  o.add("Batching", "mini-batch-words", &mini_batch_words,
        "Source subwords a batch at most, padding counted (0: off)");
  o.add("Batching", "maxi-batch", &maxi_batch, "Mini-batches read and sorted by length together");
  o.add_enum(
      "Batching", "maxi-batch-sort", &maxi_batch_sort,
      "realmt sorts each maxi-batch by source length either way; the output keeps the input order");
  o.add("Input/output", "quiet", &quiet, "Nothing on stderr (a log file still gets the lines)");
  o.add("Input/output", "quiet-translation", &quiet_translation, "No 'Best translation' lines");
  declare_shortlist(o, &shortlist);
  o.short_name("input", 'i')
      .short_name("output", 'o')
      .short_name("beam-size", 'b')
      .short_name("normalize", 'n');
  o.implicit_value("normalize", "1").implicit_value("alignment", "1");
  declare_marian_decoder_options(o, DecoderProgram::kTranslate);
  o.on_parsed([this](const OptionSet&) { validate(); });
}

void TranslateOptions::validate() const {
  model.validate();
  REALMT_CHECK(input.size() == 1,
               "input: give one file (realmt translates one source side), got {}", input.size());
  REALMT_CHECK(maxi_batch >= 1, "maxi-batch must be at least 1, got {}", maxi_batch);
  REALMT_CHECK(mini_batch_words >= 0, "mini-batch-words must be >= 0, got {}", mini_batch_words);
  REALMT_CHECK(max_length >= 2, "max-length must be at least 2 (a subword and eos), got {}",
               max_length);
  parse_alignment_choice(alignment);
  validate_shortlist(shortlist);
  search().validate(model.models.size());
}

SearchOptions TranslateOptions::search() const {
  SearchOptions s;
  s.beam_size = beam_size;
  s.beam_mode = beam_mode;
  s.normalize = normalize;
  s.word_penalty = word_penalty;
  s.max_length_factor = max_length_factor;
  s.repeat_ngram = repeat_guard;
  s.length_rule = length_rule;
  s.n_best = n_best ? beam_size : 1;
  s.allow_unk = allow_unk;
  s.alignment = parse_alignment_choice(alignment).kind;
  s.weights = model.weights;
  return s;
}

BatchingOptions TranslateOptions::batching() const {
  BatchingOptions b;
  b.mini_batch = model.mini_batch;
  b.mini_batch_words = mini_batch_words;
  b.max_length = max_length;
  b.max_length_crop = max_length_crop;
  return b;
}

void ScoreCliOptions::declare(OptionSet& o) {
  model.declare(o, "Model");
  o.add("Input/output", "train-sets", &train_sets,
        "Source file and target file (or n-best list with --n-best)");
  o.add("Input/output", "output", &output, "Where scores go (stdout or -: standard output)");
  o.add("Input/output", "quiet", &quiet, "Nothing on stderr");
  o.add("Scoring", "n-best", &n_best,
        "Rescore an n-best list: append '<n-best-feature>= <score>' to each line");
  o.add("Scoring", "n-best-feature", &n_best_feature, "Feature name for n-best rescoring");
  o.add_choice(
      "Scoring", "summary", &summary,
      {"", "cross-entropy", "ce-mean", "ce-mean-words", "ce-sum", "perplexity"},
      "Print only a corpus summary instead of per-sentence scores (cross-entropy: per sentence)");
  o.add("Scoring", "word-scores", &word_scores,
        "Also print each target token's log-probability (eos last)");
  o.add("Scoring", "normalize", &normalize, "Length normalisation: score / length^arg (0: off)");
  o.add("Scoring", "word-penalty", &word_penalty, "Subtract arg * target length from the score");
  o.add("Scoring", "max-length", &max_length,
        "Subwords a side at most (eos counted); a longer pair is an error naming its line");
  o.short_name("train-sets", 't').short_name("output", 'o').short_name("normalize", 'n');
  o.implicit_value("normalize", "1").implicit_value("summary", "cross-entropy");
  declare_marian_decoder_options(o, DecoderProgram::kScore);
  o.on_parsed([this](const OptionSet&) { validate(); });
}

void ScoreCliOptions::validate() const {
  model.validate();
  REALMT_CHECK(train_sets.size() == 2, "train-sets: give a source file and a target file (got {})",
               train_sets.size());
  REALMT_CHECK(!n_best || summary.empty(), "summary and n-best exclude each other");
  REALMT_CHECK(!n_best_feature.empty() && n_best_feature.find(' ') == std::string::npos,
               "n-best-feature must be one word, got '{}'", n_best_feature);
  REALMT_CHECK(max_length >= 2, "max-length must be at least 2 (a subword and eos), got {}",
               max_length);
}

}  // namespace realmt::search
