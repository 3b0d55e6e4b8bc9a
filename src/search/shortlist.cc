#include "search/shortlist.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>
#include <unordered_map>

#include "common/atomic_file.h"
#include "core/error.h"
#include "core/log.h"
#include "data/vocab.h"

namespace realmt::search {
namespace {

int64_t parse_count(const std::string& text, const char* field) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  REALMT_USAGE_CHECK(
      !text.empty() && *end == '\0' && v >= 0,
      "shortlist: {} must be a whole number >= 0, got '{}' (FILE [first [best [threshold]]])",
      field, text);
  return v;
}

// The white-space separated fields of a line (at most `max` + 1 of them: one more says "too many").
size_t split_fields(std::string_view line, std::string_view* fields, size_t max) {
  size_t n = 0, i = 0;
  while (n <= max) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i == line.size()) break;
    const size_t j = line.find_first_of(" \t\r", i);
    const size_t end = j == std::string_view::npos ? line.size() : j;
    if (n < max) fields[n] = line.substr(i, end - i);
    ++n;
    i = end;
  }
  return n;
}

// piece -> id tables of the two sides (a source piece the side lacks is not found, not unk).
struct PieceIds {
  std::unordered_map<std::string, int32_t> source, target;
  explicit PieceIds(const data::Vocab& vocab) {
    for (int32_t id = 0; id < vocab.size(); ++id) source.emplace(vocab.source_piece(id), id);
    for (int32_t id = 0; id < vocab.target_size(); ++id) target.emplace(vocab.piece(id), id);
  }
  static int32_t find(const std::unordered_map<std::string, int32_t>& table,
                      std::string_view piece) {
    const auto it = table.find(std::string(piece));
    return it == table.end() ? -1 : it->second;
  }
};

struct Candidate {
  float prob;
  int32_t target;
};

}  // namespace

ShortlistOptions ShortlistOptions::parse(const std::vector<std::string>& values) {
  REALMT_USAGE_CHECK(!values.empty() && values.size() <= 4 && !values[0].empty(),
                     "shortlist: give FILE [first [best [threshold]]] (Marian's), got {} values",
                     values.size());
  ShortlistOptions o;
  o.path = values[0];
  if (values.size() > 1) o.first = parse_count(values[1], "first");
  if (values.size() > 2) o.best = parse_count(values[2], "best");
  if (values.size() > 3) {
    char* end = nullptr;
    o.threshold = std::strtod(values[3].c_str(), &end);
    REALMT_USAGE_CHECK(
        *end == '\0' && std::isfinite(o.threshold) && o.threshold >= 0 && o.threshold <= 1,
        "shortlist: threshold must be a probability in [0, 1], got '{}'", values[3]);
  }
  return o;
}

std::shared_ptr<const Shortlist> Shortlist::load(const ShortlistOptions& options,
                                                 const data::Vocab& vocab) {
  return parse(read_file(options.path), options.path, options, vocab);
}

std::shared_ptr<const Shortlist> Shortlist::parse(const std::string& text, const std::string& name,
                                                  const ShortlistOptions& o,
                                                  const data::Vocab& vocab) {
  REALMT_CHECK(text.find('\0') == std::string::npos,
               "shortlist {}: not a text file (Marian's binary shortlist?); give the text "
               "shortlist, TARGET SOURCE "
               "PROB a line (realmt-data shortlist writes one)",
               name);
  auto s = std::make_shared<Shortlist>();
  s->options_ = o;
  s->target_vocab_ = vocab.target_size();
  s->copy_source_ = vocab.joint();
  const PieceIds ids(vocab);
  std::vector<std::vector<Candidate>> table(static_cast<size_t>(vocab.size()));
  std::string_view rest(text), fields[3];
  for (int64_t line_no = 1; !rest.empty(); ++line_no) {
    const size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const size_t n = split_fields(line, fields, 3);
    if (n == 0) continue;  // a blank line
    REALMT_CHECK(n == 3, "shortlist {}: line {}: expected TARGET SOURCE PROB, got {} fields", name,
                 line_no, n);
    const std::string prob_text(fields[2]);
    char* end = nullptr;
    const double prob = std::strtod(prob_text.c_str(), &end);
    REALMT_CHECK(*end == '\0' && std::isfinite(prob),
                 "shortlist {}: line {}: PROB '{}' is not a number (TARGET SOURCE PROB)", name,
                 line_no, prob_text);
    if (fields[0] == "NULL" || fields[1] == "NULL") continue;
    const int32_t y = PieceIds::find(ids.target, fields[0]),
                  x = PieceIds::find(ids.source, fields[1]);
    if (x < 0 || y < 0) {
      ++s->unknown_;
      continue;
    }
    if (prob >= o.threshold) table[static_cast<size_t>(x)].push_back({static_cast<float>(prob), y});
  }
  s->targets_.resize(table.size());
  for (size_t x = 0; x < table.size(); ++x) {
    auto& row = table[x];
    std::sort(row.begin(), row.end(), [](const Candidate& a, const Candidate& b) {
      return a.prob > b.prob || (a.prob == b.prob && a.target < b.target);
    });
    for (const Candidate& c : row) {
      auto& kept = s->targets_[x];
      if (static_cast<int64_t>(kept.size()) >= o.best) break;
      if (std::find(kept.begin(), kept.end(), c.target) == kept.end())
        kept.push_back(c.target);  // repeated lines
    }
    s->entries_ += static_cast<int64_t>(s->targets_[x].size());
  }
  for (int32_t y = 0; y < std::min<int64_t>(o.first, s->target_vocab_); ++y)
    s->always_.push_back(y);
  s->always_.push_back(vocab.ids().eos);
  s->always_.push_back(vocab.ids().unk);
  if (s->unknown_ > 0)
    log::debug("shortlist {}: {} entries skipped: a piece the vocabulary lacks", name, s->unknown_);
  log::info("shortlist {}: first {}, best {}, threshold {}: {} entries", name, o.first, o.best,
            o.threshold, s->entries_);
  return s;
}

std::vector<int32_t> Shortlist::candidates(const std::vector<std::vector<int32_t>>& sources) const {
  std::vector<char> in(static_cast<size_t>(target_vocab_), 0), seen(targets_.size(), 0);
  for (int32_t y : always_) in[static_cast<size_t>(y)] = 1;
  for (const auto& sentence : sources) {
    for (int32_t x : sentence) {
      REALMT_CHECK(x >= 0 && static_cast<size_t>(x) < targets_.size(),
                   "shortlist: source id {} outside [0, {})", x, targets_.size());
      if (seen[static_cast<size_t>(x)]) continue;
      seen[static_cast<size_t>(x)] = 1;
      if (copy_source_ && x < target_vocab_) in[static_cast<size_t>(x)] = 1;
      for (int32_t y : targets_[static_cast<size_t>(x)]) in[static_cast<size_t>(y)] = 1;
    }
  }
  std::vector<int32_t> out;
  for (int32_t y = 0; y < target_vocab_; ++y)
    if (in[static_cast<size_t>(y)]) out.push_back(y);
  ++batches_;
  candidate_sum_ += static_cast<int64_t>(out.size());
  return out;
}

}  // namespace realmt::search
