#include "metrics/cli_options.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>

#ifndef REALMT_VERSION
#define REALMT_VERSION "unknown"
#endif

namespace realmt::metrics {

std::string implementation_name() { return std::string("realmt-bleu ") + REALMT_VERSION; }

std::string cli_usage() {
  return "usage: realmt-bleu [refs ...] [-i SYS [SYS ...]] [-m {bleu,chrf,ter} ...] [options]\n"
         "       realmt-bleu -t TEST_SET -l SRC-TRG [-i SYS ...] [options] | --echo FIELD... | --list\n"
         "sacreBLEU 2.6.0-compatible BLEU/chrF/TER with paired significance tests (docs/realmt-bleu.md).\n"
         "  hypotheses from stdin (tab-separated columns = systems) or -i files; references as files,\n"
         "  or -t wmt14 -l en-fr (WMT'08-'14 en-fr/fr-en, see --list) read from $SACREBLEU or ~/.sacrebleu\n"
         "  (fill it with realmt-data testsets --from DIR or tools/prepare-wmt14-enfr)\n"
         "  BLEU: -tok {13a,intl,zh,char,none,spm,flores101,flores200} -s {exp,floor,add-k,none} -sv V -lc\n"
         "  papers' tokenized BLEU: -tok {moses,moses-a} -l SRC-TRG --moses-prefixes DIR [--compound-split]\n"
         "    [--multi-bleu: multi-bleu.perl's output line]\n"
         "  chrF: -cc N -cw N --chrf-beta N --chrf-whitespace --chrf-lowercase --chrf-eps-smoothing\n"
         "  TER:  --ter-case-sensitive --ter-asian-support --ter-no-punct --ter-normalized\n"
         "  -sl sentence level; -ci [-cin N] confidence interval; --paired-bs [-pbsn N] | --paired-ar [-parn N]\n"
         "  -nr K references per line (tab-separated); -f {json,text} -w N -b -sh -q; --threads N; -V\n"
         "  --log FILE (also append the log there), --log-level LEVEL (realmt's, as every realmt program)\n";
}

namespace {

[[noreturn]] void usage_error(const std::string& msg) { throw CliExit{2, "realmt-bleu: error: " + msg + "\n" + cli_usage()}; }

int to_int(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  const long r = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') usage_error("argument " + opt + ": invalid int value: '" + v + "'");
  return static_cast<int>(r);
}

double to_double(const std::string& opt, const std::string& v) {
  char* end = nullptr;
  const double r = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') usage_error("argument " + opt + ": invalid float value: '" + v + "'");
  return r;
}

bool is_option(const std::string& a) { return a.size() > 1 && a[0] == '-'; }

}  // namespace

CliOptions parse_cli(const std::vector<std::string>& args) {
  CliOptions o;
  if (const char* f = std::getenv("SACREBLEU_FORMAT")) {
    std::string v = f;
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v == "json") o.format = OutputFormat::kJson;
    if (v == "text") o.format = OutputFormat::kText;
  }
  bool format_from_env = std::getenv("SACREBLEU_FORMAT") != nullptr;
  using Flag = std::function<void()>;
  using Value = std::function<void(const std::string&)>;
  const std::map<std::string, Flag> flags = {
      {"-sl", [&] { o.sentence_level = true; }}, {"--sentence-level", [&] { o.sentence_level = true; }},
      {"-lc", [&] { o.bleu_lowercase = true; }}, {"--lowercase", [&] { o.bleu_lowercase = true; }},
      {"--force", [] {}},
      {"--compound-split", [&] { o.compound_split = true; }},
      {"--multi-bleu", [&] { o.multi_bleu = true; }},
      {"--chrf-whitespace", [&] { o.chrf.whitespace = true; }},
      {"--chrf-lowercase", [&] { o.chrf.lowercase = true; }},
      {"--chrf-eps-smoothing", [&] { o.chrf.eps_smoothing = true; }},
      {"--ter-case-sensitive", [&] { o.ter.case_sensitive = true; }},
      {"--ter-asian-support", [&] { o.ter.asian_support = true; }},
      {"--ter-no-punct", [&] { o.ter.no_punct = true; }},
      {"--ter-normalized", [&] { o.ter.normalized = true; }},
      {"-ci", [&] { o.confidence = true; }}, {"--confidence", [&] { o.confidence = true; }},
      {"-pbs", [&] { o.paired_bs = true; }}, {"--paired-bs", [&] { o.paired_bs = true; }},
      {"-par", [&] { o.paired_ar = true; }}, {"--paired-ar", [&] { o.paired_ar = true; }},
      {"-q", [&] { o.quiet = true; }}, {"--quiet", [&] { o.quiet = true; }},
      {"-sh", [&] { o.short_sig = true; }}, {"--short", [&] { o.short_sig = true; }},
      {"-b", [&] { o.score_only = true; }}, {"--score-only", [&] { o.score_only = true; }},
      {"-nc", [] {}}, {"--no-color", [] {}},
      {"-V", [&] { o.version = true; }}, {"--version", [&] { o.version = true; }},
      {"--list", [&] { o.list = true; }},
      {"-h", [&] { o.help = true; }}, {"--help", [&] { o.help = true; }},
  };
  const std::map<std::string, Value> values = {
      {"-nr", [&](const std::string& v) { o.num_refs = to_int("-nr", v); }},
      {"--num-refs", [&](const std::string& v) { o.num_refs = to_int("-nr", v); }},
      {"-t", [&](const std::string& v) { o.test_set = v; }},
      {"--test-set", [&](const std::string& v) { o.test_set = v; }},
      {"-l", [&](const std::string& v) { o.language_pair = v; }},
      {"--language-pair", [&](const std::string& v) { o.language_pair = v; }},
      {"-tok", [&](const std::string& v) { o.tokenize = v; }},
      {"--tokenize", [&](const std::string& v) { o.tokenize = v; }},
      {"-s", [&](const std::string& v) { o.smooth_method = v; }},
      {"--smooth-method", [&](const std::string& v) { o.smooth_method = v; }},
      {"-sv", [&](const std::string& v) { o.smooth_value = to_double("-sv", v); }},
      {"--smooth-value", [&](const std::string& v) { o.smooth_value = to_double("-sv", v); }},
      {"-cc", [&](const std::string& v) { o.chrf.char_order = to_int("-cc", v); }},
      {"--chrf-char-order", [&](const std::string& v) { o.chrf.char_order = to_int("-cc", v); }},
      {"-cw", [&](const std::string& v) { o.chrf.word_order = to_int("-cw", v); }},
      {"--chrf-word-order", [&](const std::string& v) { o.chrf.word_order = to_int("-cw", v); }},
      {"--chrf-beta", [&](const std::string& v) { o.chrf.beta = to_int("--chrf-beta", v); }},
      {"-cin", [&](const std::string& v) { o.confidence_n = to_int("-cin", v); }},
      {"--confidence-n", [&](const std::string& v) { o.confidence_n = to_int("-cin", v); }},
      {"-pbsn", [&](const std::string& v) { o.paired_bs_n = to_int("-pbsn", v); }},
      {"--paired-bs-n", [&](const std::string& v) { o.paired_bs_n = to_int("-pbsn", v); }},
      {"-parn", [&](const std::string& v) { o.paired_ar_n = to_int("-parn", v); }},
      {"--paired-ar-n", [&](const std::string& v) { o.paired_ar_n = to_int("-parn", v); }},
      {"-j", [](const std::string&) {}}, {"--paired-jobs", [](const std::string&) {}},
      {"--threads", [&](const std::string& v) { o.threads = to_int("--threads", v); }},
      {"--moses-prefixes", [&](const std::string& v) { o.moses_prefixes = v; }},
      {"--log", [&](const std::string& v) { o.log_file = v; }},
      {"--log-level", [&](const std::string& v) {
         static const std::vector<std::string> names = {"trace", "debug", "info", "warn", "err", "error", "critical", "off"};
         if (std::find(names.begin(), names.end(), v) == names.end()) {
           usage_error("argument --log-level: invalid choice: '" + v +
                       "' (choose from trace, debug, info, warn, err, error, critical, off)");
         }
         o.log_level = v;
       }},
      {"-w", [&](const std::string& v) { o.width = to_int("-w", v); }},
      {"--width", [&](const std::string& v) { o.width = to_int("-w", v); }},
      {"-e", [&](const std::string& v) {
         if (v != "utf-8" && v != "utf8" && v != "UTF-8") usage_error("only UTF-8 input is supported, not " + v);
       }},
      {"--encoding", [&](const std::string& v) {
         if (v != "utf-8" && v != "utf8" && v != "UTF-8") usage_error("only UTF-8 input is supported, not " + v);
       }},
      {"-f", [&](const std::string& v) {
         if (format_from_env) return;  // SACREBLEU_FORMAT overrides -f
         if (v == "json") o.format = OutputFormat::kJson;
         else if (v == "text") o.format = OutputFormat::kText;
         else usage_error("argument --format/-f: '" + v + "' is not supported (json, text)");
       }},
  };
  // sacreBLEU options for what realmt-bleu does not have: refused with the reason.
  const std::map<std::string, std::string> refused = {
      {"--download", "realmt-bleu never downloads: tools/prepare-wmt14-enfr downloads the WMT test sets and "
                     "fills the cache (or realmt-data testsets --from DIR, from files you have)"},
      {"--citation", "realmt-bleu has no citations of test sets; see sacreBLEU's DATASETS"},
      {"--cite", "realmt-bleu has no citations of test sets; see sacreBLEU's DATASETS"},
      {"--origlang", "subsets by original language are not supported"},
      {"-ol", "subsets by original language are not supported"},
      {"--subset", "subsets by document annotation are not supported"},
      {"--detail", "the per-origlang detail is not supported"},
      {"-d", "the per-origlang detail is not supported"},
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--format") a = "-f";
    if (auto r = refused.find(a); r != refused.end()) usage_error("argument " + a + ": " + r->second);
    if (a == "-i" || a == "--input" || a == "-m" || a == "--metrics" || a == "--echo") {
      std::vector<std::string> list;
      while (i + 1 < args.size() && !is_option(args[i + 1])) list.push_back(args[++i]);
      if (a == "--echo") {
        if (list.empty()) usage_error("argument --echo: expected at least one argument");
        o.echo = list;
      } else if (a == "-i" || a == "--input") {
        o.inputs = list;
      } else {
        if (list.empty()) usage_error("argument --metrics/-m: expected at least one argument");
        for (const auto& m : list) {
          if (m != "bleu" && m != "chrf" && m != "ter") usage_error("argument --metrics/-m: invalid choice: '" + m + "' (choose from 'bleu', 'chrf', 'ter')");
        }
        o.metrics = list;
      }
    } else if (auto f = flags.find(a); f != flags.end()) {
      f->second();
    } else if (auto v = values.find(a); v != values.end()) {
      if (i + 1 >= args.size()) usage_error("argument " + a + ": expected one argument");
      v->second(args[++i]);
    } else if (is_option(a)) {
      usage_error("unrecognized arguments: " + a);
    } else {
      o.refs.push_back(a);
    }
  }
  if (o.paired_bs && o.paired_ar) usage_error("argument --paired-bs/-pbs: not allowed with argument --paired-ar/-par");
  return o;
}

}  // namespace realmt::metrics
