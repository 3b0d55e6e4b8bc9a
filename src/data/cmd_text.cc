// realmt-data sgm2txt and stats.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include "common/options.h"
#include "core/error.h"
#include "core/log.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/line_reader.h"
#include "data/sgm_reader.h"
#include "common/utf8.h"
#include "data/vocab.h"

namespace realmt::data {

int run_sgm2txt(const Args& args) {
  std::string input, output;
  std::vector<std::string> positionals;
  OptionSet set("realmt-data sgm2txt",
                "WMT SGM test set to plain text, one segment a line, in document order");
  set.details(
      "e.g. realmt-data sgm2txt IN.sgm [-o OUT.txt]\n"
      "Writes each <seg> on its own line, in document order, entities decoded.");
  set.add("Options", "input", &input,
          "SGM file (e.g. newstest2014-fren-src.en.sgm); or give it as the argument")
      .add("Options", "output", &output, "Text file to write (empty: standard output)")
      .short_name("input", 'i')
      .short_name("output", 'o')
      .positional("IN.sgm", &positionals, "The SGM file");
  if (!cli::parse(set, args)) return 0;
  input = cli::one_input(input, positionals, "sgm2txt");
  const SgmDocument doc = read_sgm(input);
  std::ofstream file;
  if (!output.empty()) {
    file.open(output, std::ios::binary);
    REALMT_CHECK(file.good(), "cannot write {}", output);
  }
  std::ostream& out = output.empty() ? std::cout : file;
  std::string docs, last;
  int64_t ndocs = 0;
  for (const auto& seg : doc.segments) {
    REALMT_CHECK(seg.text.find('\n') == std::string::npos,
                 "{}:{}: segment holds a newline (from an entity); it would break line alignment",
                 input, seg.line);
    out << seg.text << '\n';
    if (seg.docid != last || ndocs == 0) ++ndocs, last = seg.docid;
  }
  out.flush();
  REALMT_CHECK(out.good(), "writing {} failed", output.empty() ? "standard output" : output);
  log::info("sgm2txt: {}: {} segments in {} documents; {} unknown entities kept as written", input,
            doc.segments.size(), ndocs, doc.unknown_entities);
  return 0;
}

namespace {

struct Histogram {
  static constexpr int kBins = 11;  // 1-10, 11-20, ..., 91-100, >100
  int64_t counts[kBins] = {};
  void add(size_t n) {
    if (n > 0) ++counts[std::min<size_t>((n - 1) / 10, kBins - 1)];
  }
  void print(std::ostream& out, const std::string& what, int64_t total) const {
    out << "  " << what << " per line:\n";
    for (int b = 0; b < kBins; ++b) {
      const std::string label =
          b + 1 < kBins ? std::to_string(b * 10 + 1) + "-" + std::to_string(b * 10 + 10) : ">100";
      out << "    " << std::setw(8) << label << " " << std::setw(10) << counts[b] << "  "
          << std::fixed << std::setprecision(2)
          << 100.0 * double(counts[b]) / double(std::max<int64_t>(total, 1)) << "%\n";
    }
  }
};

}  // namespace

int run_stats(const Args& args) {
  std::vector<std::string> inputs, positionals;
  std::string vocab_path;
  OptionSet set("realmt-data stats",
                "Lines, words, subword tokens, length histograms, vocabulary coverage");
  set.details(
      "e.g. realmt-data stats FILE... [--vocab MODEL.spm]\n"
      "Prints, per file: lines, empty lines, words (white-space separated), characters,\n"
      "length histograms, and with --vocab subword tokens and vocabulary coverage\n"
      "(share of subword tokens that are not <unk>).");
  set.add("Options", "input", &inputs, "Text files (plain or gzip); or give them as the arguments")
      .add("Options", "vocab", &vocab_path,
           "SentencePiece model: also count subword tokens and <unk>")
      .short_name("input", 'i')
      .positional("FILE", &positionals, "Text files (plain or gzip)");
  if (!cli::parse(set, args)) return 0;
  inputs.insert(inputs.end(), positionals.begin(), positionals.end());
  REALMT_USAGE_CHECK(!inputs.empty(),
                     "realmt-data stats: give the text files (see realmt-data stats --help)");
  std::unique_ptr<Vocab> vocab;
  if (!vocab_path.empty()) vocab = std::make_unique<Vocab>(vocab_path);
  for (const auto& path : inputs) {
    LineReader reader(path);
    std::string line;
    int64_t lines = 0, empty = 0, words = 0, chars = 0, tokens = 0, unk = 0, unk_lines = 0;
    size_t max_words = 0, max_tokens = 0;
    Histogram word_hist, token_hist;
    std::vector<int32_t> ids;
    while (reader.next(line)) {
      ++lines;
      if (line.empty()) ++empty;
      const size_t w = count_words(line);
      words += int64_t(w);
      chars += int64_t(count_code_points(line));
      max_words = std::max(max_words, w);
      word_hist.add(w);
      if (vocab) {
        vocab->encode(line, ids);
        tokens += int64_t(ids.size());
        max_tokens = std::max(max_tokens, ids.size());
        token_hist.add(ids.size());
        const auto u = std::count(ids.begin(), ids.end(), kUnkId);
        unk += u;
        unk_lines += u > 0;
      }
    }
    std::cout << path << ":\n  lines: " << lines << "\n  empty lines: " << empty
              << "\n  words: " << words << " (mean " << std::fixed << std::setprecision(2)
              << double(words) / double(std::max<int64_t>(lines, 1)) << " a line, max " << max_words
              << ")\n  characters: " << chars << "\n";
    word_hist.print(std::cout, "words", lines);
    if (vocab) {
      std::cout << "  subword tokens (" << vocab_path << ", " << vocab->size()
                << " pieces): " << tokens << " (mean "
                << double(tokens) / double(std::max<int64_t>(lines, 1)) << " a line, max "
                << max_tokens << ")\n  vocabulary coverage: "
                << 100.0 * double(tokens - unk) / double(std::max<int64_t>(tokens, 1))
                << "% of tokens known; " << unk << " <unk> tokens in " << unk_lines << " lines\n";
      token_hist.print(std::cout, "subword tokens", lines);
    }
  }
  return 0;
}

}  // namespace realmt::data
