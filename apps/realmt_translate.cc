// realmt-translate: batched beam search over a text file or stdin; output in input order,
// optionally as an n-best list and with alignments. Marian's decoder options and log lines
// (search/decode_options.h, search/translate_files.h).
#include <fstream>
#include <iostream>

#include "common/options.h"
#include "common/program.h"
#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"
#include "search/decode_options.h"
#include "search/model_loader.h"
#include "search/translate_files.h"
#include "search/translator.h"

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-translate", [&] {
    search::TranslateOptions o;
    OptionSet set("realmt-translate",
                  "Translate text with a realmt model (or an ensemble) by batched beam search");
    o.declare(set);
    if (!set.parse(argc, argv, std::cout)) return 0;
    if (o.model.cpu_threads > 0) set_num_threads(o.model.cpu_threads);
    search::Translator translator = search::Translator::load(
        o.model.models, o.model.vocabs, search::parse_decode_device(o.model.devices),
        search::parse_quantize(o.model.quantize));
    translator.use_shortlist(search::load_shortlist(o.shortlist, translator));
    std::ofstream file;
    if (!search::is_stdout(o.output)) {
      file.open(o.output, std::ios::binary);
      REALMT_CHECK(file.good(), "output: cannot write {}", o.output);
    }
    search::translate_stream(o, translator, search::is_stdout(o.output) ? std::cout : file);
    if (translator.shortlist() && !o.quiet)
      log::info("{}", search::shortlist_usage(*translator.shortlist()));
    return 0;
  });
}
