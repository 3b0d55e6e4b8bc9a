#include "metrics/moses_bleu.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace realmt::metrics {

namespace {

const MosesBleuOptions& checked(const MosesBleuOptions& o) {
  REALMT_CHECK(!o.lang.empty(),
               "the Moses tokenizers need the target language: give -l SRC-TRG (e.g. -l en-fr)");
  REALMT_CHECK(
      !o.prefixes_dir.empty(),
      "the Moses tokenizers need the non-breaking prefix lists: give --moses-prefixes DIR (a Moses "
      "checkout's scripts/share/nonbreaking_prefixes, or "
      "\"$(tools/moses-scripts)/nonbreaking_prefixes\")");
  return o;
}

MosesTokenizerOptions tokenizer_options(const MosesBleuOptions& o) {
  MosesTokenizerOptions t;
  t.lang = o.lang;
  t.aggressive = o.aggressive;
  t.final_dot_rules = o.final_dot_rules;
  return t;
}

bool ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Perl's my_log in multi-bleu.perl.
double my_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

}  // namespace

MosesBleuTokenizer::MosesBleuTokenizer(const MosesBleuOptions& options)
    : options_(checked(options)),  // before the prefix file is read: members initialise in order
      tokenizer_(tokenizer_options(options_),
                 load_nonbreaking_prefixes(options_.prefixes_dir, options_.lang)) {}

std::string MosesBleuTokenizer::tokenize(std::string_view line) const {
  std::string normalized;
  normalized.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line.compare(i, 3, "\xE2\x80\x99") == 0) {  // ’
      normalized += '\'';
      i += 2;
    } else {
      normalized += line[i];
    }
  }
  std::string out = tokenizer_.tokenize(normalized);
  return options_.compound_split ? compound_split(out) : out;
}

std::string MosesBleuTokenizer::name() const {
  return std::string(options_.aggressive ? "moses-a-" : "moses-") + options_.lang +
         (options_.compound_split ? "+compound" : "");
}

std::string compound_split(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (i + 2 < s.size() && s[i + 1] == '-' && !ascii_space(s[i]) && !ascii_space(s[i + 2])) {
      out += s[i];
      out += " ##AT##-##AT## ";
      out += s[i + 2];
      i += 3;
    } else {
      out += s[i++];
    }
  }
  return out;
}

std::string multi_bleu_line(const std::vector<double>& sums) {
  REALMT_CHECK(sums.size() == 10, "multi-bleu: BLEU statistics of order 4 expected, got {} values",
               sums.size());
  const double hyp_len = sums[0], ref_len = sums[1];
  REALMT_CHECK(
      ref_len > 0,
      "multi-bleu: the references have no tokens (multi-bleu.perl prints BLEU = 0 and fails)");
  REALMT_CHECK(hyp_len > 0,
               "multi-bleu: the hypotheses have no tokens (multi-bleu.perl dies dividing by zero)");
  double p[4];
  for (int n = 0; n < 4; ++n) p[n] = sums[6 + n] != 0 ? sums[2 + n] / sums[6 + n] : 0.0;
  const double bp = hyp_len < ref_len ? std::exp(1.0 - ref_len / hyp_len) : 1.0;
  const double bleu =
      bp * std::exp((((my_log(p[0]) + my_log(p[1])) + my_log(p[2])) + my_log(p[3])) / 4.0);
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "BLEU = %.2f, %.1f/%.1f/%.1f/%.1f (BP=%.3f, ratio=%.3f, hyp_len=%lld, ref_len=%lld)\n",
      100 * bleu, 100 * p[0], 100 * p[1], 100 * p[2], 100 * p[3], bp, hyp_len / ref_len,
      static_cast<long long>(hyp_len), static_cast<long long>(ref_len));
  return buf;
}

}  // namespace realmt::metrics
