// realmt-data clean, split and vocab.
#include <iostream>
#include <thread>

#include "core/error.h"
#include "data/clean.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/split.h"
#include "data/vocab_trainer.h"

namespace realmt::data {

namespace {

namespace po = cli::po;

// --src/--tgt or --tsv, shared by clean and split.
void add_input_options(po::options_description& opts, ParallelReaderOptions& in) {
  opts.add_options()
      ("src", po::value(&in.src_path), "source side (plain or gzip)")
      ("tgt", po::value(&in.tgt_path), "target side, line-aligned with --src")
      ("tsv", po::value<std::string>(), "one source<TAB>target file instead of --src/--tgt")
      ("swap-columns", po::bool_switch(&in.swap_tsv_columns), "--tsv: column 2 is the source");
}

void check_input(const po::variables_map& vm, ParallelReaderOptions& in, const std::string& cmd) {
  if (vm.count("tsv")) {
    REALMT_CHECK(in.src_path.empty() && in.tgt_path.empty(), "{}: give --tsv or --src/--tgt, not both", cmd);
    in.src_path = vm["tsv"].as<std::string>();
  } else {
    REALMT_CHECK(!in.src_path.empty() && !in.tgt_path.empty(), "{}: give --src and --tgt (or --tsv)", cmd);
  }
}

std::string suffix(const std::string& path, const std::string& fallback) {
  std::string p = path;
  if (p.size() > 3 && p.ends_with(".gz")) p.resize(p.size() - 3);
  const size_t dot = p.rfind('.'), slash = p.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return fallback;
  return p.substr(dot + 1);
}

}  // namespace

int run_clean(const Args& args) {
  CleanOptions o;
  std::string normalization = "none";
  bool keep_duplicates = false;
  po::options_description opts("Options");
  add_input_options(opts, o.input);
  opts.add_options()
      ("src-out", po::value(&o.src_out)->required(), "kept source lines")
      ("tgt-out", po::value(&o.tgt_out)->required(), "kept target lines")
      ("dropped", po::value(&o.dropped_out), "write reason<TAB>line<TAB>src<TAB>tgt of dropped pairs")
      ("max-words", po::value(&o.max_words)->default_value(o.max_words), "drop pairs with a side over this many words (0: no limit)")
      ("max-ratio", po::value(&o.max_ratio)->default_value(o.max_ratio), "drop pairs whose longer side has more than this times the characters of the shorter (0: off)")
      ("ratio-min-chars", po::value(&o.ratio_min_chars)->default_value(o.ratio_min_chars), "check the ratio only when the longer side has this many characters")
      ("keep-duplicates", po::bool_switch(&keep_duplicates), "keep exact duplicate pairs")
      ("normalize", po::value(&normalization)->default_value(normalization), "Unicode normalization first: none, nfc or nfkc");
  po::variables_map vm;
  if (!cli::parse(args, "usage: realmt-data clean --src IN.en --tgt IN.fr --src-out OUT.en --tgt-out OUT.fr [options]",
                  "Prints how many pairs were dropped for each reason (empty, too-long, ratio,\n"
                  "duplicate); --dropped lists them one by one.", opts, nullptr, vm)) {
    return 0;
  }
  check_input(vm, o.input, "clean");
  o.dedup = !keep_duplicates;
  o.normalization = parse_normalization(normalization);
  const CleanReport r = clean_corpus(o);
  std::cerr << "clean: " << r.summary() << "\n";
  return 0;
}

int run_split(const Args& args) {
  SplitOptions o;
  po::options_description opts("Options");
  add_input_options(opts, o.input);
  opts.add_options()
      ("out-dir,o", po::value(&o.out_dir)->required(), "writes train.*, dev.*, test.* here")
      ("dev", po::value(&o.dev)->default_value(o.dev), "distinct source sentences in dev")
      ("test", po::value(&o.test)->default_value(o.test), "distinct source sentences in test")
      ("seed", po::value(&o.seed)->default_value(o.seed), "random seed for choosing dev/test sources")
      ("casefold", po::bool_switch(&o.casefold), "compare source sentences case-folded")
      ("src-lang", po::value<std::string>(), "suffix of source files (default: --src's suffix, else en)")
      ("tgt-lang", po::value<std::string>(), "suffix of target files (default: --tgt's suffix, else fr)");
  po::variables_map vm;
  if (!cli::parse(args, "usage: realmt-data split --src IN.en --tgt IN.fr -o DIR [--dev N] [--test N]",
                  "dev and test hold one translation per source sentence; no source sentence\n"
                  "appears in two splits. Pairs with an empty side are skipped and counted.",
                  opts, nullptr, vm)) {
    return 0;
  }
  check_input(vm, o.input, "split");
  const bool tsv = o.input.tgt_path.empty();
  o.src_lang = vm.count("src-lang") ? vm["src-lang"].as<std::string>() : tsv ? "en" : suffix(o.input.src_path, "en");
  o.tgt_lang = vm.count("tgt-lang") ? vm["tgt-lang"].as<std::string>() : tsv ? "fr" : suffix(o.input.tgt_path, "fr");
  REALMT_CHECK(o.src_lang != o.tgt_lang, "split: source and target suffixes are both '{}'; set --src-lang/--tgt-lang", o.src_lang);
  const SplitReport r = split_corpus(o);
  std::cerr << "split: " << r.summary() << "\n";
  return 0;
}

int run_vocab(const Args& args) {
  VocabTrainOptions o;
  o.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  std::string symbols;
  po::options_description opts("Options");
  opts.add_options()
      ("input,i", po::value(&o.inputs)->multitoken()->required(), "text files (plain or gzip); both sides for a joint vocabulary")
      ("output,o", po::value(&o.output)->required(), "model to write (.spm); a .vocab listing goes beside it")
      ("vocab-size", po::value(&o.vocab_size)->default_value(o.vocab_size), "pieces, the 4 special ones included")
      ("character-coverage", po::value(&o.character_coverage)->default_value(o.character_coverage), "share of characters covered (0.9995 for CJK)")
      ("sampled-lines", po::value(&o.sampled_lines)->default_value(o.sampled_lines), "lines sampled for training (0: all)")
      ("special-symbols", po::value(&symbols), "extra symbols kept whole, comma-separated (ids 4, 5, ...)")
      ("model-type", po::value(&o.model_type)->default_value(o.model_type), "unigram, bpe, char or word")
      ("normalization", po::value(&o.normalization)->default_value(o.normalization), "SentencePiece rule: nmt_nfkc, nfkc, nmt_nfkc_cf, nfkc_cf, identity")
      ("threads", po::value(&o.threads)->default_value(o.threads), "training threads")
      ("seed", po::value(&o.seed)->default_value(o.seed), "random seed for sampling lines");
  po::variables_map vm;
  if (!cli::parse(args, "usage: realmt-data vocab -i train.en train.fr -o vocab.spm [options]",
                  "Trains a SentencePiece model with libsentencepiece. Every realmt vocabulary has\n"
                  "these fixed special ids (src/data/vocab.h):\n"
                  "  0 <pad>   padding\n  1 <unk>   unknown\n  2 <s>     begin of sentence\n"
                  "  3 </s>    end of sentence\n"
                  "Extra --special-symbols follow from id 4.", opts, nullptr, vm)) {
    return 0;
  }
  o.user_symbols = cli::split_list(symbols);
  const VocabTrainReport r = train_vocab(o);
  std::cerr << "vocab: " << r.vocab_size << " pieces trained on " << r.lines_read
            << " lines (" << r.empty_lines << " empty lines skipped) -> " << o.output << "\n";
  return 0;
}

}  // namespace realmt::data
