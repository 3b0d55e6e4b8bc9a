#include "data/commands.h"

namespace realmt::data {

const std::vector<Command>& commands() {
  static const std::vector<Command> all = {
      {"sgm2txt", "WMT SGM test set to plain text, one segment a line, in document order",
       run_sgm2txt},
      {"clean", "drop empty, over-long, badly proportioned and duplicate pairs; normalize Unicode",
       run_clean},
      {"vocab", "train a joint SentencePiece vocabulary (pad=0 unk=1 bos=2 eos=3)", run_vocab},
      {"marian-vocab",
       "Marian's marian-vocab: a word-list vocabulary (.yml) of pre-segmented text on stdin",
       run_marian_vocab},
      {"split", "train/dev/test split by source sentence", run_split},
      {"stats", "lines, words, subword tokens, length histograms, vocabulary coverage", run_stats},
      {"mo2pairs", "English-French pairs from gettext .mo catalogs (for tools/fetch-corpus)",
       run_mo2pairs},
      {"shortlist",
       "lexical shortlist (IBM model 1) of a parallel corpus for realmt-translate --shortlist",
       run_shortlist},
      {"testsets",
       "fill the sacreBLEU-style test-set cache realmt-bleu -t reads (WMT'08-'14 en-fr)",
       run_testsets},
  };
  return all;
}

}  // namespace realmt::data
