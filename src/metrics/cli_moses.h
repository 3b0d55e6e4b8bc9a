// realmt-bleu's paper-comparable tokenized BLEU options (moses_bleu.h), kept apart from the
// sacreBLEU command line they extend:
//   -tok moses | moses-a      the Moses pipeline for BLEU (language: -l SRC-TRG's TRG)
//   --compound-split          add the ##AT##-##AT## step (with a moses tokenizer only)
//   --moses-prefixes DIR      where nonbreaking_prefix.<lang> is
//   --multi-bleu              print multi-bleu.perl's line (one system, BLEU, no smoothing)
#pragma once

#include <memory>
#include <string>

#include "metrics/cli_options.h"
#include "metrics/moses_bleu.h"

namespace realmt::metrics {

bool is_moses_tokenizer(const std::string& name);
// The pipeline that -tok `name` (a moses tokenizer) and the options ask for; throws with what
// is missing or inconsistent (no -l, no --moses-prefixes, -lc).
std::shared_ptr<const MosesBleuTokenizer> make_moses_tokenizer(const CliOptions& o,
                                                               const std::string& name);
// Throws when a Moses-only option is given without a moses tokenizer, or --multi-bleu with
// more than BLEU, several systems, sentence level or statistical tests.
void check_moses_options(const CliOptions& o, size_t num_systems);

}  // namespace realmt::metrics
