// moses_tokenize: the Moses tokenizer of realmt-bleu (metrics/moses_tokenizer.h) as a filter,
// so that regression/bleu/moses_pipeline.sh can compare it line for line with tokenizer.perl.
// Usage: moses_tokenize -l LANG --prefixes DIR [-a] [-no-escape] [--legacy] < in > out
// --legacy: without mosesdecoder master's end-of-line rules (the 2016 tokenizer-v1.1.perl).
#include <iostream>
#include <string>

#include "core/error.h"
#include "metrics/moses_tokenizer.h"

int main(int argc, char** argv) {
  using namespace realmt::metrics;
  MosesTokenizerOptions o;
  std::string dir;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-l" && i + 1 < argc)
      o.lang = argv[++i];
    else if (a == "--prefixes" && i + 1 < argc)
      dir = argv[++i];
    else if (a == "-a")
      o.aggressive = true;
    else if (a == "-no-escape")
      o.escape = false;
    else if (a == "--legacy")
      o.final_dot_rules = false;
    else {
      std::cerr << "moses_tokenize: unknown argument " << a << "\n";
      return 2;
    }
  }
  try {
    const MosesTokenizer tok(o, load_nonbreaking_prefixes(dir, o.lang));
    std::string line;
    while (std::getline(std::cin, line)) std::cout << tok.tokenize(line) << '\n';
  } catch (const realmt::Error& e) {
    std::cerr << "moses_tokenize: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
