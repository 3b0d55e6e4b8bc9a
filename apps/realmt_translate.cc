// realmt-translate: batched beam search over a text file or stdin; output in input order,
// optionally as an n-best list and with alignments. Speed on stderr in target tokens/s
// (subwords of the best translations, eos included; model loading excluded).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "common/options.h"
#include "core/error.h"
#include "core/parallel.h"
#include "data/line_reader.h"
#include "search/decode_options.h"
#include "search/model_loader.h"
#include "search/output_format.h"
#include "search/translator.h"

int main(int argc, char** argv) {
  using namespace realmt;
  try {
    search::TranslateOptions o;
    OptionSet set("realmt-translate",
                  "Translate text with a realmt model (or an ensemble) by batched beam search");
    o.declare(set);
    if (!set.parse(argc, argv, std::cout)) return 0;
    o.validate();
    if (o.model.cpu_threads > 0) set_num_threads(o.model.cpu_threads);
    const search::Translator translator = search::Translator::load(
        o.model.models, o.model.vocab(), search::parse_decode_device(o.model.devices),
        search::parse_quantize(o.model.quantize));
    const search::SearchOptions so = o.search();
    data::LineReader reader(o.input);
    std::ofstream file;
    if (o.output != "-") {
      file.open(o.output, std::ios::binary);
      REALMT_CHECK(file.good(), "output: cannot write {}", o.output);
    }
    std::ostream& out = o.output == "-" ? std::cout : file;
    const auto t0 = std::chrono::steady_clock::now();
    double last_report = 0;
    size_t done = 0, tokens = 0;
    const size_t chunk = static_cast<size_t>(o.maxi_batch * o.model.mini_batch);
    std::vector<std::string> lines;
    std::string line;
    bool more = true;
    while (more) {
      lines.clear();
      while (lines.size() < chunk && (more = reader.next(line))) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
      }
      if (lines.empty()) break;
      const auto result = translator.translate_lines(lines, so, o.batching());
      for (size_t i = 0; i < result.size(); ++i) {
        const size_t id = done + i;
        if (o.n_best) {
          for (const auto& h : result[i])
            out << search::format_nbest(id, h.text, h.hyp, so.alignment) << '\n';
        } else {
          out << result[i][0].text;
          if (so.alignment != search::AlignmentKind::kNone)
            out << " ||| " << search::format_alignment(result[i][0].hyp, so.alignment);
          out << '\n';
        }
        tokens += result[i][0].hyp.tokens.size() + 1;
      }
      out.flush();
      REALMT_CHECK(out.good(), "output: writing {} failed", o.output);
      done += result.size();
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!o.quiet && secs - last_report >= 5.0) {
        std::fprintf(stderr,
                     "realmt-translate: %zu sentences, %zu target tokens, %.1f target tokens/s\n",
                     done, tokens, tokens / secs);
        last_report = secs;
      }
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!o.quiet)
      std::fprintf(
          stderr,
          "realmt-translate: translated %zu sentences (%zu target tokens, eos included) in %.2f s: "
          "%.1f target tokens/s, beam %d\n",
          done, tokens, secs, secs > 0 ? tokens / secs : 0.0, o.beam_size);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "realmt-translate: error: " << e.what() << "\n";
    return 1;
  }
}
