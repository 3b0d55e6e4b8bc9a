#include "metrics/cli_options.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include "metrics/cli_argparse.h"

#ifndef REALMT_VERSION
#define REALMT_VERSION "unknown"
#endif

namespace realmt::metrics {

std::string implementation_name() { return std::string("realmt-bleu ") + REALMT_VERSION; }

std::string cli_usage_line() {
  return "usage: realmt-bleu [refs ...] [-i SYS [SYS ...]] [-m {bleu,chrf,ter} ...] [options]\n"
         "       realmt-bleu -t TEST_SET -l SRC-TRG [-i SYS ...] [options] | --echo FIELD... | "
         "--list\n";
}

std::string cli_usage() {
  return cli_usage_line() +
         "sacreBLEU 2.6.0-compatible BLEU/chrF/TER with paired significance tests "
         "(docs/realmt-bleu.md).\n"
         "  hypotheses from stdin (tab-separated columns = systems) or -i files; references as "
         "files,\n"
         "  or -t SET -l SRC-TRG: any test set in sacreBLEU's cache ($SACREBLEU, else "
         "~/.sacrebleu; --list),\n"
         "  which sacreBLEU, realmt-data testsets --from DIR or tools/prepare-wmt14-enfr fill\n"
         "  BLEU: -tok {13a,intl,zh,char,none,spm,flores101,flores200} -s {exp,floor,add-k,none} "
         "-sv V -lc\n"
         "  papers' tokenized BLEU: -tok {moses,moses-a} -l SRC-TRG --moses-prefixes DIR "
         "[--compound-split]\n"
         "    [--multi-bleu: multi-bleu.perl's output line]\n"
         "  chrF: -cc N -cw N --chrf-beta N --chrf-whitespace --chrf-lowercase "
         "--chrf-eps-smoothing\n"
         "  TER:  --ter-case-sensitive --ter-asian-support --ter-no-punct --ter-normalized\n"
         "  -sl sentence level; -ci [-cin N] confidence interval; --paired-bs [-pbsn N] | "
         "--paired-ar [-parn N]\n"
         "  -nr K references per line (tab-separated); -f {json,text,latex} -w N -b -sh -q; "
         "--threads N; -V\n"
         "  --log FILE (also append the log there), --log-level LEVEL (realmt's, as every realmt "
         "program)\n"
         "  options as sacreBLEU's argparse reads them: --opt=value, unambiguous prefixes (--tok "
         "13a)\n";
}

namespace {

using argparse::ArgumentError;
using argparse::Nargs;
using argparse::Option;
using Names = std::vector<std::string>;

std::string display(const Names& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "/") + n;
  return out;
}

int to_int(const Names& names, const std::string& v) {
  char* end = nullptr;
  const long r = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0')
    throw ArgumentError{"argument " + display(names) + ": invalid int value: '" + v + "'"};
  return static_cast<int>(r);
}

double to_double(const Names& names, const std::string& v) {
  char* end = nullptr;
  const double r = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0')
    throw ArgumentError{"argument " + display(names) + ": invalid float value: '" + v + "'"};
  return r;
}

std::string to_choice(const Names& names, const Names& choices, const std::string& v) {
  if (std::find(choices.begin(), choices.end(), v) != choices.end()) return v;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "'" : ", '") + c + "'";
  throw ArgumentError{"argument " + display(names) + ": invalid choice: '" + v + "' (choose from " +
                      list + ")"};
}

Option flag(Names names, std::function<void()> f) {
  return {std::move(names), Nargs::kZero, [f = std::move(f)](const Names&) { f(); }};
}
Option value(Names names, std::function<void(const std::string&)> f) {
  return {std::move(names), Nargs::kOne, [f = std::move(f)](const Names& v) { f(v[0]); }};
}
Option int_value(Names names, int& target) {
  return {names, Nargs::kOne, [names, &target](const Names& v) { target = to_int(names, v[0]); }};
}
Option choice(Names names, Names choices, std::string& target) {
  return {names, Nargs::kOne,
          [=, &target](const Names& v) { target = to_choice(names, choices, v[0]); }};
}

// What a parse collects beside the options: sacreBLEU features realmt-bleu refuses (exit 1
// once the whole line parsed, as argparse accepts them) and the paired test chosen first.
struct ParseState {
  std::vector<std::string> refused;
  std::string paired_first;
  std::string format;
};

Option refuse(Names names, Nargs nargs, const std::string& why, ParseState& st) {
  const std::string shown = display(names);
  return {std::move(names), nargs,
          [&st, shown, why](const Names&) { st.refused.push_back(shown + ": " + why); }};
}

// --paired-bs and --paired-ar: argparse's mutually exclusive group.
Option paired(Names names, bool& target, ParseState& st) {
  return {
      names, Nargs::kZero, [&target, &st, names](const Names&) {
        const std::string me = display(names);
        if (!st.paired_first.empty() && st.paired_first != me) {
          throw ArgumentError{"argument " + me + ": not allowed with argument " + st.paired_first};
        }
        st.paired_first = me;
        target = true;
      }};
}

// sacreBLEU's options up to --sentence-level, in its add_argument order (which orders the
// names of an ambiguous prefix's message).
std::vector<Option> input_options(CliOptions& o, ParseState& st) {
  const std::string no_dl =
      "realmt-bleu never downloads: sacreBLEU itself, realmt-data testsets --from DIR or "
      "tools/prepare-wmt14-enfr fill the cache it reads";
  std::vector<Option> t;
  t.push_back({{"-h", "--help"}, Nargs::kZero, [&o](const Names&) { o.help = true; }, false, true});
  t.push_back(refuse({"--citation", "--cite"}, Nargs::kZero,
                     "realmt-bleu has no citations of test sets", st));
  t.push_back(flag({"--list"}, [&o] { o.list = true; }));
  t.push_back(value({"--test-set", "-t"}, [&o](const std::string& v) { o.test_set = v; }));
  t.push_back(
      value({"--language-pair", "-l"}, [&o](const std::string& v) { o.language_pair = v; }));
  t.push_back(refuse({"--origlang", "-ol"}, Nargs::kOne,
                     "subsets by original language are not supported", st));
  t.push_back(
      refuse({"--subset"}, Nargs::kOne, "subsets by document annotation are not supported", st));
  t.push_back(refuse({"--download"}, Nargs::kOne, no_dl, st));
  t.push_back({{"--echo"}, Nargs::kPlus, [&o](const Names& v) { o.echo = v; }});
  t.push_back({{"--input", "-i"}, Nargs::kStar, [&o](const Names& v) { o.inputs = v; }});
  t.push_back(int_value({"--num-refs", "-nr"}, o.num_refs));
  t.push_back(value({"--encoding", "-e"}, [&st](const std::string& v) {
    std::string lower = v;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower != "utf-8" && lower != "utf8")
      st.refused.push_back("--encoding/-e: only UTF-8 input is supported, not " + v);
  }));
  t.push_back({{"--metrics", "-m"}, Nargs::kPlus, [&o](const Names& v) {
                 for (const auto& m : v) to_choice({"--metrics", "-m"}, {"bleu", "chrf", "ter"}, m);
                 o.metrics = v;
               }});
  t.push_back(flag({"--sentence-level", "-sl"}, [&o] { o.sentence_level = true; }));
  return t;
}

// The BLEU, chrF and TER options.
std::vector<Option> metric_options(CliOptions& o) {
  static const Names tokenizers = {"none",      "zh",       "13a",    "intl",      "char",
                                   "ja-mecab",  "ko-mecab", "spm",    "flores101", "flores200",
                                   "spBLEU-1K", "moses",    "moses-a"};
  std::vector<Option> t;
  t.push_back(value({"--smooth-method", "-s"}, [&o](const std::string& v) {
    const Names names = {"--smooth-method", "-s"};
    o.smooth_method = parse_smoothing(to_choice(names, enum_spellings<Smoothing>(), v));
  }));
  t.push_back(value({"--smooth-value", "-sv"}, [&o](const std::string& v) {
    o.smooth_value = to_double({"--smooth-value", "-sv"}, v);
  }));
  t.push_back(value({"--tokenize", "-tok"}, [&o](const std::string& v) {
    o.tokenize = to_choice({"--tokenize", "-tok"}, tokenizers, v);
  }));
  t.push_back(flag({"--lowercase", "-lc"}, [&o] { o.bleu_lowercase = true; }));
  t.push_back(flag({"--force"}, [] {}));
  t.push_back(int_value({"--chrf-char-order", "-cc"}, o.chrf.char_order));
  t.push_back(int_value({"--chrf-word-order", "-cw"}, o.chrf.word_order));
  t.push_back(int_value({"--chrf-beta"}, o.chrf.beta));
  t.push_back(flag({"--chrf-whitespace"}, [&o] { o.chrf.whitespace = true; }));
  t.push_back(flag({"--chrf-lowercase"}, [&o] { o.chrf.lowercase = true; }));
  t.push_back(flag({"--chrf-eps-smoothing"}, [&o] { o.chrf.eps_smoothing = true; }));
  t.push_back(flag({"--ter-case-sensitive"}, [&o] { o.ter.case_sensitive = true; }));
  t.push_back(flag({"--ter-asian-support"}, [&o] { o.ter.asian_support = true; }));
  t.push_back(flag({"--ter-no-punct"}, [&o] { o.ter.no_punct = true; }));
  t.push_back(flag({"--ter-normalized"}, [&o] { o.ter.normalized = true; }));
  return t;
}

// Confidence, paired tests and reporting, then --version.
std::vector<Option> report_options(CliOptions& o, ParseState& st) {
  std::vector<Option> t;
  t.push_back(flag({"--confidence", "-ci"}, [&o] { o.confidence = true; }));
  t.push_back(int_value({"--confidence-n", "-cin"}, o.confidence_n));
  t.push_back(paired({"--paired-ar", "-par"}, o.paired_ar, st));
  t.push_back(paired({"--paired-bs", "-pbs"}, o.paired_bs, st));
  t.push_back(int_value({"--paired-ar-n", "-parn"}, o.paired_ar_n));
  t.push_back(int_value({"--paired-bs-n", "-pbsn"}, o.paired_bs_n));
  t.push_back(value({"--paired-jobs", "-j"}, [](const std::string& v) {
    to_int({"--paired-jobs", "-j"}, v);
  }));
  t.push_back(flag({"--quiet", "-q"}, [&o] { o.quiet = true; }));
  t.push_back(flag({"--short", "-sh"}, [&o] { o.short_sig = true; }));
  t.push_back(flag({"--score-only", "-b"}, [&o] { o.score_only = true; }));
  t.push_back(int_value({"--width", "-w"}, o.width));
  t.push_back(
      refuse({"--detail", "-d"}, Nargs::kZero, "the per-origlang detail is not supported", st));
  t.push_back(flag({"--no-color", "-nc"}, [] {}));
  t.push_back(choice({"--format", "-f"}, {"json", "text", "latex"}, st.format));
  t.push_back(
      {{"--version", "-V"}, Nargs::kZero, [&o](const Names&) { o.version = true; }, false, true});
  return t;
}

// realmt-bleu's own options (own = true: they never take a prefix sacreBLEU's options match).
std::vector<Option> own_options(CliOptions& o) {
  static const Names levels = {"trace", "debug", "info", "warn", "err", "error", "critical", "off"};
  std::vector<Option> t;
  t.push_back(int_value({"--threads"}, o.threads));
  t.push_back(flag({"--compound-split"}, [&o] { o.compound_split = true; }));
  t.push_back(value({"--moses-prefixes"}, [&o](const std::string& v) { o.moses_prefixes = v; }));
  t.push_back(flag({"--multi-bleu"}, [&o] { o.multi_bleu = true; }));
  t.push_back(value({"--log"}, [&o](const std::string& v) { o.log_file = v; }));
  t.push_back(choice({"--log-level"}, levels, o.log_level));
  for (auto& opt : t) opt.own = true;
  return t;
}

OutputFormat format_named(const std::string& name) {
  if (name == "text") return OutputFormat::kText;
  return name == "latex" ? OutputFormat::kLatex : OutputFormat::kJson;
}

}  // namespace

CliOptions parse_cli(const std::vector<std::string>& args) {
  CliOptions o;
  ParseState st;
  std::vector<Option> table = input_options(o, st);
  for (auto&& more : {metric_options(o), report_options(o, st), own_options(o)}) {
    table.insert(table.end(), more.begin(), more.end());
  }
  try {
    o.refs = argparse::Parser(std::move(table)).parse(args);
  } catch (const ArgumentError& e) {
    throw CliExit{2, cli_usage_line() + "realmt-bleu: error: " + e.message + "\n"};
  }
  if (o.help || o.version) return o;
  if (!st.refused.empty()) throw CliExit{1, "argument " + st.refused.front()};
  if (!st.format.empty()) o.format = format_named(st.format);
  if (const char* env = std::getenv("SACREBLEU_FORMAT")) {
    std::string v = env;
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v == "json" || v == "text" || v == "latex") o.format = format_named(v);
  }
  return o;
}

}  // namespace realmt::metrics
