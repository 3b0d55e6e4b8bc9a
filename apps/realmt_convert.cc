// realmt-convert: Hugging Face MarianMTModel directories and Marian .npz models (OPUS-MT) into
// realmt checkpoints, realmt models into CTranslate2 model directories
// (realmt-convert --from hf opus-mt-en-fr/ -o enfr.realmt; see convert/convert_options.h).
#include <iostream>

#include "common/options.h"
#include "common/program.h"
#include "convert/convert_options.h"
#include "core/log.h"

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-convert", [&] {
    convert::ConvertOptions o;
    OptionSet set(
        "realmt-convert",
        "Convert Hugging Face Marian and Marian models to realmt checkpoints, and realmt models to "
        "CTranslate2");
    o.declare(set);
    if (!set.parse(argc, argv, std::cout)) return 0;
    o.validate();
    log::info("realmt-convert: {}", convert::run_conversion(o));
    return 0;
  });
}
