// realmt-bleu's command line: sacreBLEU 2.6.0's options, parsed once into a typed struct.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "metrics/ter.h"

namespace realmt::metrics {

enum class OutputFormat {
  kJson,
  kText,
  kLatex
};  // latex: booktabs tables (several systems), else text

struct CliOptions {
  std::vector<std::string> refs;                   // positional reference files
  std::optional<std::vector<std::string>> inputs;  // -i files; nullopt = stdin
  int num_refs = 1;                                // -nr: tab-separated references in one file
  std::vector<std::string> metrics{"bleu"};        // -m, in the order given
  bool sentence_level = false;                     // -sl
  std::optional<std::string> language_pair;  // -l: the test set's pair; selects the BLEU tokenizer
  std::optional<std::string> test_set;       // -t: known test sets (test_sets.h), comma-separated
  std::optional<std::vector<std::string>> echo;  // --echo FIELD...: print the test set's fields
  bool list = false;                             // --list
  std::optional<std::string> tokenize;  // -tok (sacreBLEU's choices, and realmt's moses, moses-a)
  Smoothing smooth_method = Smoothing::kExp;    // -s
  std::optional<double> smooth_value;           // -sv
  bool bleu_lowercase = false;                  // -lc
  ChrfOptions chrf;                             // -cc -cw --chrf-beta --chrf-*
  TerOptions ter;                               // --ter-*
  bool confidence = false;                      // -ci
  int confidence_n = 1000;                      // -cin
  bool paired_bs = false, paired_ar = false;    // -pbs / -par
  int paired_bs_n = 1000, paired_ar_n = 10000;  // -pbsn / -parn
  int threads = 2;                              // --threads (realmt): segment workers
  bool compound_split = false;                  // --compound-split (realmt, cli_moses.h)
  std::string moses_prefixes;                   // --moses-prefixes DIR (realmt)
  bool multi_bleu = false;                      // --multi-bleu (realmt)
  bool quiet = false, short_sig = false, score_only = false;  // -q -sh -b
  int width = 1;                                              // -w
  OutputFormat format = OutputFormat::kJson;                  // -f (or SACREBLEU_FORMAT)
  bool version = false, help = false;
  std::string log_file;            // --log (realmt's, as every program's): also append the log here
  std::string log_level = "info";  // --log-level (realmt's; Marian's names)
};

// Thrown for usage errors and sacreBLEU's fatal conditions; the main prints it and exits.
struct CliExit {
  int code;
  std::string message;
};

// The name and version --version prints, and the JSON "implementation" of every score.
std::string implementation_name();

// Parses argv[1..] as sacreBLEU's argparse parser (Python 3.11) does: --opt=value and -oVALUE,
// unambiguous prefixes of long options (and of single-dash ones), combined one-letter flags (-qb),
// negative numbers as values, -i/-m/--echo taking every following word that is no option, the
// reference files being the first run of free words (a later run is an unrecognized argument).
// realmt-bleu's own options (--threads, --log, ...) never make a sacreBLEU prefix ambiguous: a
// prefix reaches them only when it matches no sacreBLEU option. Usage errors throw CliExit 2 with
// argparse's message; sacreBLEU options realmt-bleu does not support throw CliExit 1.
// SACREBLEU_FORMAT (json, text or latex, any case) overrides -f, as in sacreBLEU.
CliOptions parse_cli(const std::vector<std::string>& args);
std::string cli_usage();
// The usage lines a usage error starts with (argparse prints its usage, then the error).
std::string cli_usage_line();

}  // namespace realmt::metrics
