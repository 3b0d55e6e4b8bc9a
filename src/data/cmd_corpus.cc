// realmt-data clean, split and vocab.
#include <iostream>
#include <thread>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "data/clean.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/split.h"
#include "data/vocab_trainer.h"

namespace realmt::data {

namespace {

// --src/--tgt or --tsv, shared by clean and split.
struct InputOptions {
  std::string src, tgt, tsv;
  bool swap_columns = false;
  void declare(OptionSet& set) {
    set.add("Input", "src", &src, "Source side (plain or gzip)")
        .add("Input", "tgt", &tgt, "Target side, line-aligned with --src")
        .add("Input", "tsv", &tsv, "One source<TAB>target file instead of --src/--tgt")
        .add("Input", "swap-columns", &swap_columns, "--tsv: column 2 is the source");
  }
  ParallelReaderOptions reader(const std::string& cmd) const {
    ParallelReaderOptions in;
    if (!tsv.empty()) {
      REALMT_USAGE_CHECK(src.empty() && tgt.empty(),
                         "realmt-data {}: give --tsv or --src/--tgt, not both", cmd);
      in.src_path = tsv;
    } else {
      REALMT_USAGE_CHECK(!src.empty() && !tgt.empty(),
                         "realmt-data {}: give --src and --tgt (or --tsv)", cmd);
      in.src_path = src;
      in.tgt_path = tgt;
    }
    in.swap_tsv_columns = swap_columns;
    return in;
  }
};

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
  InputOptions in;
  std::string normalization = "none";
  bool keep_duplicates = false;
  OptionSet set("realmt-data clean",
                "Drop empty, over-long, badly proportioned and duplicate pairs; normalize Unicode");
  set.details(
      "e.g. realmt-data clean --src IN.en --tgt IN.fr --src-out OUT.en --tgt-out OUT.fr [options]\n"
      "Prints how many pairs were dropped for each reason (empty, too-long, ratio,\n"
      "duplicate); --dropped lists them one by one.");
  in.declare(set);
  const std::string g = "Cleaning";
  set.add(g, "src-out", &o.src_out, "Kept source lines")
      .add(g, "tgt-out", &o.tgt_out, "Kept target lines")
      .add(g, "dropped", &o.dropped_out,
           "Write reason<TAB>line<TAB>src<TAB>tgt of dropped pairs here")
      .add(g, "max-words", &o.max_words,
           "Drop pairs with a side over this many words (0: no limit)")
      .add(g, "max-ratio", &o.max_ratio,
           "Drop pairs whose longer side has more than this times the characters of the shorter "
           "(0: off)")
      .add(g, "ratio-min-chars", &o.ratio_min_chars,
           "Check the ratio only when the longer side has this many characters")
      .add(g, "keep-duplicates", &keep_duplicates, "Keep exact duplicate pairs")
      .add_choice(g, "normalize", &normalization, {"none", "nfc", "nfkc"},
                  "Unicode normalization first")
      .required("src-out")
      .required("tgt-out");
  if (!cli::parse(set, args)) return 0;
  o.input = in.reader("clean");
  o.dedup = !keep_duplicates;
  o.normalization = parse_normalization(normalization);
  const CleanReport r = clean_corpus(o);
  log::info("clean: {}", r.summary());
  return 0;
}

int run_split(const Args& args) {
  SplitOptions o;
  InputOptions in;
  int64_t seed = static_cast<int64_t>(o.seed);
  bool casefold = false;
  std::string src_lang, tgt_lang;
  OptionSet set("realmt-data split", "Train/dev/test split by source sentence");
  set.details(
      "e.g. realmt-data split --src IN.en --tgt IN.fr -o DIR [--dev N] [--test N]\n"
      "dev and test hold one translation per source sentence; no source sentence\n"
      "appears in two splits. Pairs with an empty side are skipped and counted.\n"
      "--match masked compares sources with numbers and format placeholders (%s %d\n"
      "%1$s %(name)s {0} {name} ...) masked, case folded and punctuation ignored, so\n"
      "near-duplicates of a dev/test sentence stay out of train too. --groups FILE (a\n"
      "label a line, e.g. the catalog each pair came from: mo2pairs --groups-out) makes\n"
      "dev and test out of whole groups and drops their pairs whose source occurs in\n"
      "another group: dev and test then hold text from sources never trained on.\n"
      "The default (--match exact, no groups) splits as earlier versions did.");
  in.declare(set);
  const std::string g = "Splitting";
  set.add(g, "out-dir", &o.out_dir, "Writes train.*, dev.*, test.* here")
      .add(g, "dev", &o.dev, "Distinct source sentences in dev")
      .add(g, "test", &o.test, "Distinct source sentences in test")
      .add(g, "seed", &seed, "Random seed for choosing dev/test sources (or groups)")
      .add_enum(
          g, "match", &o.match,
          "How sources are compared: exact, casefold, or masked (numbers, placeholders, case and "
          "punctuation ignored)")
      .add(g, "casefold", &casefold, "Same as --match casefold (kept for earlier command lines)")
      .add(g, "groups", &o.groups_path,
           "File of one group label a line, line-aligned with the corpus: dev and test take whole "
           "groups")
      .add(g, "max-group", &o.max_group,
           "--groups: groups with more sources of their own than this stay in train (0: a quarter "
           "of the "
           "smaller of --dev and --test)")
      .add(g, "src-lang", &src_lang, "Suffix of source files (empty: --src's suffix, else en)")
      .add(g, "tgt-lang", &tgt_lang, "Suffix of target files (empty: --tgt's suffix, else fr)")
      .short_name("out-dir", 'o')
      .required("out-dir");
  if (!cli::parse(set, args)) return 0;
  REALMT_USAGE_CHECK(seed >= 0, "realmt-data split: --seed must be >= 0, got {}", seed);
  REALMT_USAGE_CHECK(
      !casefold || o.match != SourceMatch::kMasked,
      "realmt-data split: --casefold and --match masked contradict each other (masked folds case)");
  REALMT_USAGE_CHECK(o.max_group >= 0, "realmt-data split: --max-group must be >= 0, got {}",
                     o.max_group);
  if (casefold) o.match = SourceMatch::kCasefold;
  o.seed = static_cast<uint64_t>(seed);
  o.input = in.reader("split");
  const bool tsv = o.input.tgt_path.empty();
  o.src_lang = !src_lang.empty() ? src_lang : tsv ? "en" : suffix(o.input.src_path, "en");
  o.tgt_lang = !tgt_lang.empty() ? tgt_lang : tsv ? "fr" : suffix(o.input.tgt_path, "fr");
  REALMT_USAGE_CHECK(
      o.src_lang != o.tgt_lang,
      "realmt-data split: source and target suffixes are both '{}'; set --src-lang/--tgt-lang",
      o.src_lang);
  const SplitReport r = split_corpus(o);
  log::info("split: {}", r.summary());
  return 0;
}

int run_vocab(const Args& args) {
  VocabTrainOptions o;
  o.threads = int(std::max(1u, std::thread::hardware_concurrency()));
  int64_t seed = o.seed;
  OptionSet set("realmt-data vocab",
                "Train a joint SentencePiece vocabulary (pad=0 unk=1 bos=2 eos=3)");
  set.details(
      "e.g. realmt-data vocab -i train.en train.fr -o vocab.spm [options]\n"
      "Trains a SentencePiece model with libsentencepiece. Every vocabulary it writes has\n"
      "these special ids (any other SentencePiece model is accepted too; src/data/vocab.h):\n"
      "  0 <pad>   padding\n  1 <unk>   unknown\n  2 <s>     begin of sentence\n"
      "  3 </s>    end of sentence\n"
      "Extra --special-symbols follow from id 4.");
  const std::string g = "Vocabulary";
  set.add(g, "input", &o.inputs, "Text files (plain or gzip); both sides for a joint vocabulary")
      .add(g, "output", &o.output, "Model to write (.spm); a .vocab listing goes beside it")
      .add(g, "vocab-size", &o.vocab_size, "Pieces, the 4 special ones included")
      .add(g, "character-coverage", &o.character_coverage,
           "Share of characters covered (0.9995 for CJK)")
      .add(g, "sampled-lines", &o.sampled_lines, "Lines sampled for training (0: all)")
      .add(g, "special-symbols", &o.user_symbols,
           "Extra symbols kept whole (ids 4, 5, ...), e.g. '<sep>' '<2fr>'")
      .add_choice(g, "model-type", &o.model_type, {"unigram", "bpe", "char", "word"},
                  "SentencePiece model type")
      .add_choice(g, "normalization", &o.normalization,
                  {"nmt_nfkc", "nfkc", "nmt_nfkc_cf", "nfkc_cf", "identity"},
                  "SentencePiece normalization rule")
      .add(g, "threads", &o.threads, "Training threads")
      .add(g, "seed", &seed, "Random seed for sampling lines")
      .short_name("input", 'i')
      .short_name("output", 'o')
      .required("input")
      .required("output");
  if (!cli::parse(set, args)) return 0;
  REALMT_USAGE_CHECK(seed >= 0 && seed <= 0xffffffffLL,
                     "realmt-data vocab: --seed must be in [0, 2^32), got {}", seed);
  o.seed = static_cast<uint32_t>(seed);
  train_vocab(o);  // logs what it trained
  return 0;
}

}  // namespace realmt::data
