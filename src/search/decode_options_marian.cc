// Marian's decoder options (Marian 1.12's config_parser.cpp, translation and scoring modes) that
// realmt accepts without effect (logged) or refuses with the reason unless they hold Marian's
// default. Those it maps onto its own are bound in decode_options.cc.
#include "common/options.h"
#include "search/decode_options.h"

namespace realmt::search {

void declare_marian_decoder_options(OptionSet& o, DecoderProgram program) {
  using Kind = OptionSet::Kind;
  const char* f32 = "realmt decodes in f32";
  // The last argument: Marian's defaults (what a --dump-config holds); only other values are noted.
  o.add_no_effect("workspace", Kind::kValue, "memory is allocated on demand by a caching allocator", {"512"})
      .short_name("workspace", 'w')
      .add_no_effect("seed", Kind::kValue, "decoding is deterministic", {"0"})
      .add_no_effect("check-nan", Kind::kFlag, "decoding checks nothing it need not")
      .add_no_effect("log-time-zone", Kind::kValue, "log times are the machine's local time", {""})
      .add_no_effect("ignore-model-config", Kind::kFlag, "the checkpoint's config is the model's architecture")
      .add_no_effect("num-devices", Kind::kValue, "one device a process (devices)", {"0", "1"})
      .add_no_effect("optimize", Kind::kFlag, "the graph is not rewritten at run time")
      .add_no_effect("gemm-type", Kind::kValue, f32, {"float32"})
      .short_name("gemm-type", 'g')
      .add_no_effect("quantize-range", Kind::kValue, f32, {"0"})
      .add_no_effect("data-threads", Kind::kValue, "input is read and encoded by one thread", {"8"})
      .add_unavailable("input-types", Kind::kList, {"sequence"}, "inputs are sequences of subwords")
      .add_unavailable("no-spm-encode", Kind::kFlag, {},
                       "realmt encodes text with the SentencePiece model; give text, not pieces (spm_decode them)")
      .add_unavailable("fp16", Kind::kFlag, {}, f32)
      .add_unavailable("precision", Kind::kList, {"float32", "f32"}, f32)
      .add_unavailable("tsv", Kind::kFlag, {}, "give the source and the target as separate files")
      .add_unavailable("tsv-fields", Kind::kValue, {"0"}, "give the source and the target as separate files")
      .add_unavailable("interpolate-env-vars", Kind::kFlag, {}, "let the shell expand ${VAR} in paths")
      .add_unavailable("relative-paths", Kind::kFlag, {}, "paths are relative to the working directory");
  if (program == DecoderProgram::kScore) {
    o.add_unavailable("max-length-crop", Kind::kFlag, {}, "realmt-score scores whole sentences");
    return;
  }
  o.add_no_effect("allow-special", Kind::kFlag, "pad and <s> are never produced; other pieces always may be")
      .add_no_effect("skip-cost", Kind::kFlag, "the model's cost is always computed")
      .add_no_effect("stat-freq", Kind::kValue, "realmt-translate reports speed at the end (and every 5 s with "
                     "quiet-translation)", {"0"})
      .add_unavailable("word-scores", Kind::kFlag, {}, "word scores of translations: use realmt-score --word-scores")
      .add_unavailable("shortlist", Kind::kList, {}, "lexical shortlists are not implemented")
      .add_unavailable("output-sampling", Kind::kFlag, {}, "sampling is not implemented; realmt runs beam search")
      .add_unavailable("output-approx-knn", Kind::kList, {}, "approximate output search is not implemented");
}

}  // namespace realmt::search
