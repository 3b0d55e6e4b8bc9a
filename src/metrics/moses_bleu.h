// Paper-comparable tokenized BLEU (as the papers report it): realmt-bleu's "-tok moses"
// and "-tok moses-a" run the papers' text pipeline on hypotheses and references before BLEU
// counts n-grams, and --multi-bleu prints the score as Moses' multi-bleu.perl does.
//
// The pipeline of one line, as fairseq's and ADMIN's prepare-wmt14en2fr.sh treat the test
// references (RealFormer's Table 7 and ADMIN's En-Fr numbers):
//   1. ’ (U+2019) -> ' (their `sed -e "s/\’/\'/g"`)
//   2. Moses tokenizer.perl -l LANG, with -a for moses-a (moses_tokenizer.h), escaping on
//   3. with compound_split: tensor2tensor's get_ende_bleu.sh step (also fairseq's
//      compound_split_bleu.sh), `s{(\S)-(\S)}{$1 ##AT##-##AT## $2}g` on bytes (En-De papers)
// Hypotheses go through the same steps as references (a realmt model writes plain text).
// Then BLEU splits on whitespace and counts as multi-bleu.perl: case-sensitive, clipped
// counts, closest reference length (ties: the shorter); use -s none for its zero handling.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/moses_tokenizer.h"

namespace realmt::metrics {

struct MosesBleuOptions {
  std::string lang;             // the target language (-l SRC-TRG's TRG)
  bool aggressive = false;      // moses-a
  bool compound_split = false;  // --compound-split
  std::string prefixes_dir;     // where nonbreaking_prefix.<lang> is (--moses-prefixes)
  bool final_dot_rules = true;  // MosesTokenizerOptions::final_dot_rules
};

class MosesBleuTokenizer {
 public:
  // Loads the language's non-breaking prefixes (throws naming the file when missing).
  explicit MosesBleuTokenizer(const MosesBleuOptions& options);
  // The pipeline above on one line: a string whose whitespace split gives the tokens.
  std::string tokenize(std::string_view line) const;
  // The signature value: "moses-<lang>", "moses-a-<lang>", "+compound" with compound splitting.
  std::string name() const;

 private:
  MosesBleuOptions options_;
  MosesTokenizer tokenizer_;
};

// (\S)-(\S) -> "$1 ##AT##-##AT## $2", left to right, each match consuming both neighbours;
// \S is any byte but ASCII whitespace (the script reads bytes).
std::string compound_split(std::string_view line);

// multi-bleu.perl's output line from BLEU statistics summed over the corpus
// ([hyp_len, ref_len, correct_1..4, total_1..4]): "BLEU = 41.29, 70.1/47.5/34.6/25.6 (BP=1.000,
// ratio=1.002, hyp_len=76321, ref_len=76193)". Its arithmetic: precisions as fractions, a zero
// precision's log as -9999999999, scores printed with C's %.2f/%.1f/%.3f. Throws for an empty
// reference side ("BLEU = 0" and exit 1 in the script) and an empty hypothesis side (the
// script dies dividing by zero).
std::string multi_bleu_line(const std::vector<double>& sums);

}  // namespace realmt::metrics
