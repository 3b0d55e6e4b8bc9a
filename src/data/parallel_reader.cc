#include "data/parallel_reader.h"

#include "core/error.h"
#include "common/utf8.h"

namespace realmt::data {

std::string ReadStats::summary() const {
  return format("read {} pairs, kept {}; skipped {} with an empty side, {} over the length limit",
                lines, kept, empty, too_long);
}

ParallelReader::ParallelReader(ParallelReaderOptions options) : options_(std::move(options)) {
  src_ = std::make_unique<LineReader>(options_.src_path);
  if (!options_.tgt_path.empty()) tgt_ = std::make_unique<LineReader>(options_.tgt_path);
}

std::string ParallelReader::name() const {
  return tgt_ ? options_.src_path + " + " + options_.tgt_path : options_.src_path;
}

bool ParallelReader::read_raw(SentencePair& pair) {
  if (!tgt_) {
    if (!src_->next(line_)) return false;
    const size_t tab = line_.find('\t');
    REALMT_CHECK(tab != std::string::npos,
                 "{}:{}: no tab in this line; a TSV corpus needs source<TAB>target on each line",
                 options_.src_path, src_->line_number());
    const size_t end = line_.find('\t', tab + 1);
    std::string a = line_.substr(0, tab);
    std::string b = line_.substr(tab + 1, end == std::string::npos ? end : end - tab - 1);
    if (options_.swap_tsv_columns) std::swap(a, b);
    pair.src = std::move(a);
    pair.tgt = std::move(b);
    pair.line = src_->line_number();
    return true;
  }
  const bool has_src = src_->next(pair.src);
  const bool has_tgt = tgt_->next(pair.tgt);
  if (has_src != has_tgt) {
    const LineReader& shorter = has_src ? *tgt_ : *src_;
    const LineReader& longer = has_src ? *src_ : *tgt_;
    REALMT_FAIL(
        "line counts differ: {} has {} lines but {} has line {} and more; the two sides "
        "of a parallel corpus must have the same number of lines",
        shorter.path(), shorter.line_number(), longer.path(), longer.line_number());
  }
  pair.line = src_->line_number();
  return has_src;
}

bool ParallelReader::next(SentencePair& pair) {
  while (read_raw(pair)) {
    ++stats_.lines;
    if (options_.skip_empty && (pair.src.empty() || pair.tgt.empty())) {
      ++stats_.empty;
      continue;
    }
    if (options_.max_words > 0 && (count_words(pair.src) > size_t(options_.max_words) ||
                                   count_words(pair.tgt) > size_t(options_.max_words))) {
      ++stats_.too_long;
      continue;
    }
    ++stats_.kept;
    return true;
  }
  return false;
}

}  // namespace realmt::data
