#include "search/translate_files.h"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "core/log.h"
#include "data/line_reader.h"
#include "search/output_format.h"

namespace realmt::search {
namespace {


std::string pieces(const data::Vocab& vocab, const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) {
    if (!out.empty()) out += ' ';
    out += vocab.piece(id);
  }
  return out;
}

}  // namespace

TranslateSummary translate_stream(const TranslateOptions& o, const Translator& translator,
                                  std::ostream& out) {
  const SearchOptions so = o.search();
  const std::string tag =
      o.target_language.empty() ? "" : translator.vocab().language_tag(o.target_language);
  const AlignmentChoice align = o.alignment_choice();
  data::LineReader reader(is_stdin(o.input_path()) ? "-" : o.input_path());
  // Marian's lines "[2024-01-02 10:11:12] text": on stderr unless quiet, in the log file if any.
  auto stamped = [&](const std::string& text) { log::line(text, o.quiet); };
  const bool logging = !o.quiet || log::has_file();
  const bool lines_shown = logging && !o.quiet_translation;
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  TranslateSummary sum;
  double last_report = 0;
  const size_t chunk = static_cast<size_t>(o.maxi_batch * o.model.mini_batch);
  std::vector<std::string> lines;
  std::string line;
  bool more = true;
  while (more) {
    lines.clear();
    while (lines.size() < chunk && (more = reader.next(line))) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(data::with_language_tag(tag, line));
    }
    if (lines.empty()) break;
    const auto result = translator.translate_lines(lines, so, o.batching());
    for (size_t i = 0; i < result.size(); ++i) {
      const size_t id = sum.sentences + i;
      const LineTranslation& r = result[i];
      if (!r.error.empty()) {
        // Over max-length: Marian's empty line and a warning. No finite translation: an error
        // naming the line, the line left empty, and a failed exit at the end.
        if (r.skipped) {
          ++sum.skipped;
        } else {
          ++sum.failed;
        }
        // Errors show even when quiet; warnings then go to the log file only.
        const std::string text =
            o.input_path() + ": line " + std::to_string(id + 1) + ": " + r.error;
        if (!r.skipped)
          log::error("{}", text);
        else if (o.quiet)
          log::file_only(log::Level::kWarn, text);
        else
          log::warn("{}", text);
        if (!o.n_best) out << '\n';
        continue;
      }
      const TextHypothesis& best = r.hypotheses[0];
      auto text = [&](const TextHypothesis& h) {
        return o.no_spm_decode ? pieces(translator.vocab(), h.hyp.tokens) : h.text;
      };
      if (o.n_best) {
        for (const auto& h : r.hypotheses)
          out << format_nbest(id, text(h), h.hyp, align.kind, align.threshold) << '\n';
      } else {
        out << text(best);
        if (align.kind != AlignmentKind::kNone)
          out << " ||| " << format_alignment(best.hyp, align.kind, align.threshold);
        out << '\n';
      }
      if (lines_shown) stamped("Best translation " + std::to_string(id) + " : " + text(best));
      sum.target_tokens += best.hyp.tokens.size() + 1;
    }
    out.flush();
    REALMT_CHECK(out.good(), "output: writing {} failed", o.output);
    sum.sentences += result.size();
    if (logging && o.quiet_translation && seconds() - last_report >= 5.0) {
      last_report = seconds();
      char buf[160];
      std::snprintf(buf, sizeof buf, "%zu sentences, %zu target tokens, %.1f target tokens/s",
                    sum.sentences, sum.target_tokens, sum.target_tokens / last_report);
      stamped(buf);
    }
  }
  sum.seconds = seconds();
  if (logging) {
    // Marian's last line, then realmt's counts (target tokens: subwords of the best translations).
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "Total time: %.5fs wall : %zu sentences : %zu target tokens (eos included) : "
                  "%.1f target tokens/s "
                  ": beam %d",
                  sum.seconds, sum.sentences, sum.target_tokens,
                  sum.seconds > 0 ? sum.target_tokens / sum.seconds : 0.0, o.beam_size);
    stamped(buf);
  }
  REALMT_CHECK(sum.failed == 0,
               "{} of {} sentences got no translation (errors above; their lines are empty)",
               sum.failed, sum.sentences);
  return sum;
}

}  // namespace realmt::search
