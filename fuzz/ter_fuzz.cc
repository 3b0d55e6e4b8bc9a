// realmt-bleu's TER (tercom tokenizer, shifts, beam edit distance) on arbitrary valid UTF-8:
// lines pair up as (hypothesis, reference); the first byte picks the TER options. The score
// is finite and not negative, and (plain tokenizer) a hypothesis equal to its reference costs
// 0 edits.
#include "core/error.h"
#include "fuzz_util.h"
#include "metrics/ter.h"
#include "metrics/unicode_text.h"

#include <cmath>

using namespace realmt;
using namespace realmt::metrics;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view text = fuzz::as_text(data + 1, size - 1);
  if (find_invalid_utf8(text) != std::string::npos) return 0;
  TerOptions o;
  o.normalized = data[0] & 1;
  o.no_punct = data[0] & 2;
  o.asian_support = data[0] & 4;
  o.case_sensitive = data[0] & 8;
  const std::vector<std::string> lines = fuzz::lines(text);
  std::vector<std::string> hyps, refs;
  for (size_t i = 0; i + 1 < lines.size(); i += 2) {
    hyps.push_back(lines[i]);
    refs.push_back(lines[i + 1]);
  }
  if (hyps.empty()) return 0;
  try {
    Ter ter(o);
    ter.set_references({refs});
    const CorpusStats stats = ter.corpus_stats(hyps, 1);
    REALMT_FUZZ_CHECK(stats.values.size() == 2 * hyps.size());
    for (double v : stats.values) REALMT_FUZZ_CHECK(std::isfinite(v) && v >= 0);
    // sacreBLEU tokenizes references twice; only the plain tokenizer is sure to be idempotent.
    if ((data[0] & 7) == 0) {
      Ter same(o);
      same.set_references({hyps});
      const CorpusStats zero = same.corpus_stats(hyps, 1);
      for (size_t i = 0; i < hyps.size(); ++i) REALMT_FUZZ_CHECK(zero.values[2 * i] == 0);
    }
  } catch (const Error&) {
  }
  return 0;
}
