// Marian's decoder options (Marian 1.12's config_parser.cpp, translation and scoring modes) that
// realmt accepts without effect (logged) or refuses with the reason unless they hold Marian's
// default, and gemm-type, which it maps onto quantize. The others it maps onto its own are bound
// in decode_options.cc.
#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "search/decode_options.h"

namespace realmt::search {

namespace {

// Marian's 8-bit GEMM types by prefix: int8 and its tuned variants, intgemm8 (ssse3, avx2, avx512,
// avx512vnni, tuned), packed8 (avx2, avx512); the 16-bit ones likewise.
constexpr const char* kInt8Prefixes[] = {"int8", "intgemm8", "packed8"};
constexpr const char* kInt16Prefixes[] = {"int16", "intgemm16", "packed16"};

bool starts_with_any(const std::string& text, const auto& prefixes) {
  for (const char* prefix : prefixes)
    if (text.starts_with(prefix)) return true;
  return false;
}

}  // namespace

MarianGemm parse_marian_gemm(const std::string& type) {
  if (type == "float32") return MarianGemm::kFloat32;
  if (starts_with_any(type, kInt8Prefixes)) return MarianGemm::kInt8;
  if (starts_with_any(type, kInt16Prefixes)) return MarianGemm::kInt16;
  REALMT_USAGE_FAIL(
      "gemm-type: '{}' is not one of Marian's: float32, int8*, intgemm8* (ssse3, avx2, avx512, "
      "avx512vnni), packed8avx2, packed8avx512, intgemm16*, packed16",
      type);
}

void declare_marian_gemm_type(OptionSet& o, ModelOptions* model) {
  o.add("Hardware", "gemm-type", &model->gemm_type,
        "Marian's CPU GEMM type: int8*, intgemm8*, packed8* = quantize int8; float32 = quantize "
        "none; the 16-bit "
        "types (intgemm16*, packed16) decode in f32")
      .short_name("gemm-type", 'g');
  for (const std::string prefix : kInt8Prefixes)
    o.preset("gemm-type", prefix + "*", {{"quantize", "int8"}});
  o.on_parsed([model](const OptionSet& set) {
    if (parse_marian_gemm(model->gemm_type) != MarianGemm::kInt16) return;
    log::info("{}: gemm-type {}: realmt has no 16-bit GEMM; decoding in {}", set.program(),
              model->gemm_type,
              model->quantize == Quantize::kInt8 ? "int8 (quantize int8)" : "f32");
  });
}

void declare_marian_decoder_options(OptionSet& o, DecoderProgram program) {
  using Kind = OptionSet::Kind;
  const char* f32 = "realmt decodes in f32";
  // The last argument: Marian's defaults (what a --dump-config holds); only other values are noted.
  o.add_no_effect("workspace", Kind::kValue, "memory is allocated on demand by a caching allocator",
                  {"512"})
      .short_name("workspace", 'w')
      .add_no_effect("seed", Kind::kValue, "decoding is deterministic", {"0"})
      .add_no_effect("check-nan", Kind::kFlag, "decoding checks nothing it need not")
      .add_no_effect("log-time-zone", Kind::kValue, "log times are the machine's local time", {""})
      .add_no_effect("ignore-model-config", Kind::kFlag,
                     "the checkpoint's config is the model's architecture")
      .add_no_effect("num-devices", Kind::kValue, "one device a process (devices)", {"0", "1"})
      .add_no_effect("optimize", Kind::kFlag, "the graph is not rewritten at run time")
      .add_no_effect("quantize-range", Kind::kValue,
                     "int8 weights are scaled by their row's largest magnitude", {"0"})
      .add_no_effect("data-threads", Kind::kValue, "input is read and encoded by one thread", {"8"})
      .add_unavailable("input-types", Kind::kList, {"sequence"}, "inputs are sequences of subwords")
      .add_unavailable("no-spm-encode", Kind::kFlag, {},
                       "a .spm vocabulary encodes text; give text (spm_decode pieces), or "
                       "translate pre-segmented "
                       "text with a model trained on a word-list vocabulary (.yml)")
      .add_unavailable("fp16", Kind::kFlag, {}, f32)
      .add_unavailable("precision", Kind::kList, {"float32", "f32"}, f32)
      .add_unavailable("tsv", Kind::kFlag, {}, "give the source and the target as separate files")
      .add_unavailable("tsv-fields", Kind::kValue, {"0"},
                       "give the source and the target as separate files")
      .add_unavailable("interpolate-env-vars", Kind::kFlag, {},
                       "let the shell expand ${VAR} in paths")
      .add_unavailable("relative-paths", Kind::kFlag, {},
                       "paths are relative to the working directory");
  if (program == DecoderProgram::kScore) {
    o.add_unavailable("max-length-crop", Kind::kFlag, {}, "realmt-score scores whole sentences");
    return;
  }
  o.add_no_effect("allow-special", Kind::kFlag,
                  "pad and <s> are never produced; other pieces always may be")
      .add_no_effect("skip-cost", Kind::kFlag, "the model's cost is always computed")
      .add_no_effect("stat-freq", Kind::kValue,
                     "realmt-translate reports speed at the end (and every 5 s with "
                     "quiet-translation)",
                     {"0"})
      .add_unavailable("word-scores", Kind::kFlag, {},
                       "word scores of translations: use realmt-score --word-scores")
      .add_unavailable("output-sampling", Kind::kFlag, {},
                       "sampling is not implemented; realmt runs beam search")
      .add_unavailable("output-approx-knn", Kind::kList, {},
                       "approximate output search is not implemented");
}

}  // namespace realmt::search
