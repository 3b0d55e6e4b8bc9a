// realmt-score: log-probabilities of given sentence pairs under a model (or an ensemble), per
// sentence (optionally per token), as a corpus summary, or as an added n-best feature.
#include <fstream>
#include <iostream>

#include "common/options.h"
#include "common/program.h"
#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "search/decode_options.h"
#include "search/model_loader.h"
#include "search/score_files.h"
#include "search/translator.h"

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-score", [&] {
    search::ScoreCliOptions o;
    OptionSet set("realmt-score",
                  "Score sentence pairs or rescore an n-best list with realmt models");
    o.declare(set);
    if (!set.parse(argc, argv, std::cout)) return 0;
    if (o.model.cpu_threads > 0) set_num_threads(o.model.cpu_threads);
    const search::Translator translator =
        search::Translator::load(o.model.models, o.model.vocabs,
                                 search::parse_decode_device(o.model.devices), o.model.quantize);
    const search::Scorer scorer(translator.models());
    std::ofstream file;
    if (!search::is_stdout(o.output)) {
      file.open(o.output, std::ios::binary);
      REALMT_CHECK(file.good(), "output: cannot write {}", o.output);
    }
    std::ostream& out = search::is_stdout(o.output) ? std::cout : file;
    const search::ScoreSummary s = search::score_files(o, scorer, translator.vocab(), out);
    out.flush();
    REALMT_CHECK(out.good(), "output: writing {} failed", o.output);
    log::line(format("realmt-score: {} pairs, {} target tokens (eos included), perplexity {}",
                     s.sentences, s.target_tokens, s.perplexity()),
              o.quiet);
    return 0;
  });
}
