// realmt-data shortlist: lexical translation probabilities of a parallel corpus (IBM model 1 over
// the vocabulary's pieces, data/lexical_table.h) written as Marian's text shortlist (lex.s2t) and,
// optionally, as CTranslate2's vocabulary map, for realmt-translate --shortlist.
#include <chrono>
#include <cstdio>

#include "common/atomic_file.h"
#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/lexical_table.h"
#include "data/vocab.h"

namespace realmt::data {
namespace {

struct ShortlistCommand {
  std::string src, tgt, output, vmap;
  std::vector<std::string> vocabs;
  int64_t vmap_first = 100;
  LexicalTableOptions table;

  void declare(OptionSet& set) {
    set.add("Input", "src", &src, "Source side of the training corpus (plain or gzip)")
        .add("Input", "tgt", &tgt, "Target side, line-aligned with --src")
        .add("Input", "vocabs", &vocabs,
             "The model's vocabulary (.spm or word list), once, or once a side (source, target)")
        .add("Output", "output", &output,
             "The shortlist: TARGET SOURCE PROB a line (Marian's lex.s2t)")
        .add("Output", "vmap", &vmap,
             "Also write CTranslate2's vocabulary map (use_vmap) of the same entries")
        .add("Output", "vmap-first", &vmap_first,
             "Target ids the vocabulary map always allows (its empty-key line): decoding's `first`")
        .add("Model", "top", &table.top,
             "Entries kept per source piece, most probable first (0: all)")
        .add("Model", "min-prob", &table.min_prob, "Entries below this probability are dropped")
        .add("Model", "iterations", &table.iterations, "EM iterations of IBM model 1")
        .add("Model", "threads", &table.threads, "Threads (0: all cores)")
        .short_name("output", 'o')
        .short_name("vocabs", 'v')
        .required("src")
        .required("tgt")
        .required("vocabs")
        .required("output");
  }
  void validate() const {
    REALMT_USAGE_CHECK(vocabs.size() == 1 || vocabs.size() == 2,
                       "realmt-data shortlist: --vocabs takes one vocabulary or one a side, got {}",
                       vocabs.size());
    REALMT_USAGE_CHECK(table.top >= 0, "realmt-data shortlist: --top must be >= 0, got {}",
                       table.top);
    REALMT_USAGE_CHECK(table.min_prob >= 0 && table.min_prob <= 1,
                       "realmt-data shortlist: --min-prob must be in [0, 1], got {}",
                       table.min_prob);
    REALMT_USAGE_CHECK(table.iterations >= 0 && table.iterations <= 100,
                       "realmt-data shortlist: --iterations must be in [0, 100], got {}",
                       table.iterations);
    REALMT_USAGE_CHECK(table.threads >= 0, "realmt-data shortlist: --threads must be >= 0, got {}",
                       table.threads);
    REALMT_USAGE_CHECK(vmap_first >= 0, "realmt-data shortlist: --vmap-first must be >= 0, got {}",
                       vmap_first);
  }
};

std::string seconds_since(std::chrono::steady_clock::time_point t0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return buf;
}

}  // namespace

int run_shortlist(const Args& args) {
  ShortlistCommand c;
  OptionSet set("realmt-data shortlist",
                "Lexical shortlist of a parallel corpus (IBM model 1) for --shortlist");
  set.details(
      "e.g. realmt-data shortlist --src train.en --tgt train.fr -v vocab.spm -o lex.s2t [--vmap "
      "vmap.txt]\n"
      "Writes p(target piece | source piece) as Marian's text shortlist, TARGET SOURCE PROB a "
      "line, the\n"
      "best --top a source piece; realmt-translate --shortlist lex.s2t 100 100 reads it.");
  c.declare(set);
  if (!cli::parse(set, args)) return 0;
  c.validate();
  const auto t0 = std::chrono::steady_clock::now();
  const Vocab vocab =
      c.vocabs.size() == 2 ? Vocab::pair(c.vocabs[0], c.vocabs[1]) : Vocab(c.vocabs[0]);
  const EncodedCorpus corpus = encode_corpus(c.src, c.tgt, vocab, c.table.threads);
  REALMT_CHECK(!corpus.sources.empty(),
               "realmt-data shortlist: {} and {} hold no pair with both sides non-empty", c.src,
               c.tgt);
  log::info("shortlist: {} pairs encoded in {}", corpus.sources.size(), seconds_since(t0));
  const TableSpecialIds ids = vocab.ids();
  const auto entries = train_ibm1(corpus, c.table, {ids.pad, ids.unk, ids.eos, ids.decoder_start});
  int64_t unwritten = 0;
  write_file_atomic(c.output, format_lex_s2t(entries, vocab, &unwritten));
  log::info("shortlist: {} entries written to {} ({}; {} left out: a piece with white space)",
            entries.size() - static_cast<size_t>(unwritten), c.output, seconds_since(t0),
            unwritten);
  if (!c.vmap.empty()) {
    write_file_atomic(c.vmap, format_vmap(entries, vocab, c.vmap_first, vocab.joint()));
    log::info("shortlist: vocabulary map written to {}", c.vmap);
  }
  return 0;
}

}  // namespace realmt::data
