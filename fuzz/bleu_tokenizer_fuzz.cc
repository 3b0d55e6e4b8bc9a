// realmt-bleu's tokenizers (13a, intl, zh, char; REALMT_FUZZ_TOKENIZER picks one per target) on
// arbitrary valid UTF-8 lines, as the CLI gives them: the fused token pass must give the same
// tokens as tokenizing then splitting, and a corpus BLEU over the lines must be a score in
// [0, 100] (hypotheses: the lines; references: the lines in reverse order).
#include "core/error.h"
#include "fuzz_util.h"
#include "metrics/bleu.h"
#include "metrics/tokenizer.h"
#include "metrics/unicode_text.h"

#include <cmath>

using namespace realmt;
using namespace realmt::metrics;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  if (find_invalid_utf8(text) != std::string::npos) return 0;  // the CLI refuses such files
  const TokenizerKind kind = TokenizerKind::REALMT_FUZZ_TOKENIZER;
  std::vector<std::string> lines = fuzz::lines(text);
  std::string out, scratch, bytes;
  std::vector<uint32_t> ends;
  std::vector<std::string_view> words;
  for (const std::string& line : lines) {
    const std::string_view l = py_rstrip(line);
    tokenize(kind, l, out, scratch);
    words.clear();
    py_split(out, words);
    // tokenize_to_tokens appends (the BLEU statistics keep a whole corpus back to back): start
    // each line empty, as Bleu's per-sentence path does.
    bytes.clear();
    ends.clear();
    tokenize_to_tokens(kind, l, bytes, ends, scratch);
    REALMT_FUZZ_CHECK(ends.size() == words.size());
    uint32_t begin = 0;
    for (size_t i = 0; i < ends.size(); ++i) {
      REALMT_FUZZ_CHECK(std::string_view(bytes).substr(begin, ends[i] - begin) == words[i]);
      begin = ends[i];
    }
  }
  if (lines.empty()) return 0;
  try {
    BleuOptions o;
    o.tokenizer = kind;
    o.lowercase = size % 2 == 1;
    Bleu bleu(o);
    bleu.set_references({std::vector<std::string>(lines.rbegin(), lines.rend())});
    const Score s = bleu.corpus_score(bleu.corpus_stats(lines, 1));
    REALMT_FUZZ_CHECK(std::isfinite(s.score) && s.score >= 0 && s.score <= 100 + 1e-9);
  } catch (const Error&) {
  }
  return 0;
}
