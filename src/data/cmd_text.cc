// realmt-data sgm2txt and stats.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include "core/error.h"
#include "data/cli.h"
#include "data/commands.h"
#include "data/line_reader.h"
#include "data/sgm_reader.h"
#include "data/utf8.h"
#include "data/vocab.h"

namespace realmt::data {

int run_sgm2txt(const Args& args) {
  namespace po = cli::po;
  std::string input, output;
  po::options_description opts("Options");
  opts.add_options()
      ("input,i", po::value(&input)->required(), "SGM file (e.g. newstest2014-fren-src.en.sgm)")
      ("output,o", po::value(&output), "text file to write (default: standard output)");
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  if (!cli::parse(args, "usage: realmt-data sgm2txt IN.sgm [-o OUT.txt]",
                  "Writes each <seg> on its own line, in document order, entities decoded.", opts,
                  &pos, vm)) {
    return 0;
  }
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
  std::cerr << "sgm2txt: " << input << ": " << doc.segments.size() << " segments in " << ndocs
            << " documents; " << doc.unknown_entities << " unknown entities kept as written\n";
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
          << std::fixed << std::setprecision(2) << 100.0 * double(counts[b]) / double(std::max<int64_t>(total, 1))
          << "%\n";
    }
  }
};

}  // namespace

int run_stats(const Args& args) {
  namespace po = cli::po;
  std::vector<std::string> inputs;
  std::string vocab_path;
  po::options_description opts("Options");
  opts.add_options()
      ("input,i", po::value(&inputs)->multitoken()->required(), "text files (plain or gzip)")
      ("vocab", po::value(&vocab_path), "SentencePiece model: also count subword tokens and <unk>");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  if (!cli::parse(args, "usage: realmt-data stats FILE... [--vocab MODEL.spm]",
                  "Prints, per file: lines, empty lines, words (white-space separated), characters,\n"
                  "length histograms, and with --vocab subword tokens and vocabulary coverage\n"
                  "(share of subword tokens that are not <unk>).",
                  opts, &pos, vm)) {
    return 0;
  }
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
