// realmt-data marian-vocab: Marian's marian-vocab (text on stdin, a {piece: id} YAML word list on
// stdout), for pre-segmented corpora and the recipes that create their .yml vocabulary with it.
#include <iostream>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/marian_vocab.h"

namespace realmt::data {

int run_marian_vocab(const Args& args) {
  int64_t max_size = 0;
  std::vector<std::string> inputs{"-"};
  OptionSet set("realmt-data marian-vocab",
                "Create a Marian word-list vocabulary (.yml) of pre-segmented text");
  set.details(
      "e.g. cat corpus.bpe.en corpus.bpe.de | realmt-data marian-vocab --max-size 36000 > "
      "vocab.yml\n"
      "As Marian's marian-vocab: </s> id 0, <unk> id 1, then the space-separated tokens by "
      "falling\n"
      "frequency. realmt-train reads such a file as --vocabs (and creates it itself when "
      "missing).");
  set.add("Vocabulary", "max-size", &max_size,
          "Ids at most, </s> and <unk> included (0: every token)")
      .add("Vocabulary", "input", &inputs, "Text files (plain or gzip; - is stdin)")
      .short_name("max-size", 'm')
      .short_name("input", 'i');
  if (!cli::parse(set, args)) return 0;
  REALMT_USAGE_CHECK(max_size >= 0, "realmt-data marian-vocab: --max-size must be >= 0, got {}",
                     max_size);
  int64_t ids = 0;
  std::cout << word_list_yaml(inputs, max_size, &ids) << std::flush;
  log::info("marian-vocab: {} ids", ids);
  return 0;
}

}  // namespace realmt::data
