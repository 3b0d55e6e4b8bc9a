#include "metrics/cli_moses.h"

#include "core/error.h"

namespace realmt::metrics {

bool is_moses_tokenizer(const std::string& name) { return name == "moses" || name == "moses-a"; }

std::shared_ptr<const MosesBleuTokenizer> make_moses_tokenizer(const CliOptions& o,
                                                               const std::string& name) {
  REALMT_CHECK(!o.bleu_lowercase,
               "-lc is not available with -tok {}: the papers' tokenized BLEU is case-sensitive",
               name);
  MosesBleuOptions m;
  if (o.language_pair) {
    const size_t dash = o.language_pair->find('-');
    REALMT_CHECK(dash != std::string::npos && dash + 1 < o.language_pair->size(),
                 "-l must be SRC-TRG (e.g. en-fr), got '{}'", *o.language_pair);
    m.lang = o.language_pair->substr(dash + 1);
  }
  m.aggressive = name == "moses-a";
  m.compound_split = o.compound_split;
  m.prefixes_dir = o.moses_prefixes;
  return std::make_shared<const MosesBleuTokenizer>(m);
}

void check_moses_options(const CliOptions& o, size_t num_systems) {
  const bool moses = o.tokenize && is_moses_tokenizer(*o.tokenize);
  REALMT_CHECK(moses || !o.compound_split, "--compound-split needs -tok moses or -tok moses-a");
  REALMT_CHECK(moses || o.moses_prefixes.empty(),
               "--moses-prefixes needs -tok moses or -tok moses-a");
  if (!o.multi_bleu) return;
  REALMT_CHECK(o.metrics.size() == 1 && o.metrics[0] == "bleu",
               "--multi-bleu prints BLEU only: drop -m");
  REALMT_CHECK(
      num_systems == 1 && !o.sentence_level && !o.confidence && !o.paired_bs && !o.paired_ar,
      "--multi-bleu scores one system at corpus level, without statistical tests");
}

}  // namespace realmt::metrics
