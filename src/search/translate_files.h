// realmt-translate's job: the input file (or stdin) translated to `out` in input order, read and
// length-sorted a maxi-batch at a time, as Marian's decoder does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

#include "search/decode_options.h"
#include "search/translator.h"

namespace realmt::search {

struct TranslateSummary {
  size_t sentences = 0;
  size_t target_tokens = 0;  // subwords of the best translations, eos included
  size_t skipped = 0;        // sources over max-length, left empty
  size_t failed = 0;         // sentences without a finite-scoring translation, left empty
  double seconds = 0;        // model loading excluded
};

// Writes one line a sentence (n-best: the beam's lines; alignments after " ||| "). On stderr,
// unless quiet: Marian's "[time] Best translation <id> : <text>" lines (not with
// quiet-translation, which prints a speed line every 5 s instead), a warning per skipped
// source, and at the end "Total time: <s>s wall" followed by realmt's counts and speed. A
// sentence without a finite-scoring translation gets an error naming its line and an empty line;
// after the whole input, an Error says how many there were. With a target language, its tag
// (data::Vocab::language_tag, which fails before anything is read when the vocabulary lacks it)
// goes before every non-blank line.
TranslateSummary translate_stream(const TranslateOptions& o, const Translator& translator,
                                  std::ostream& out);

}  // namespace realmt::search
