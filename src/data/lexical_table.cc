#include "data/lexical_table.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "core/error.h"
#include "data/line_reader.h"
#include "data/vocab.h"

namespace realmt::data {
namespace {

// The table's sparsity pattern: row x (a source id; the NULL word is the last row) holds the
// sorted target ids targets[offsets[x] .. offsets[x + 1]) that co-occur with x in some pair.
struct Pattern {
  std::vector<int64_t> offsets;
  std::vector<int32_t> targets;
  // The slot of (x, y); the pair is always in the pattern (both came from one sentence pair).
  int64_t find(int32_t x, int32_t y) const {
    const auto first = targets.begin() + offsets[static_cast<size_t>(x)];
    const auto last = targets.begin() + offsets[static_cast<size_t>(x) + 1];
    return std::lower_bound(first, last, y) - targets.begin();
  }
};

int resolve_threads(int threads) {
  return threads > 0 ? threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Runs fn(thread, first, last) over [0, n) split into `threads` contiguous parts, in parallel.
template <typename Fn>
void split_work(size_t n, int threads, Fn fn) {
  std::vector<std::thread> pool;
  const size_t parts = static_cast<size_t>(threads);
  for (size_t t = 0; t < parts; ++t)
    pool.emplace_back([&, t] { fn(t, n * t / parts, n * (t + 1) / parts); });
  for (auto& th : pool) th.join();
}

// Every (source id or NULL, target id) that co-occurs in a pair, as a CSR pattern. Built in
// chunks of pairs (sorted, deduplicated and merged) so that the position pairs of the whole corpus
// never sit in memory at once.
Pattern co_occurrences(const EncodedCorpus& c, int32_t null_id) {
  std::vector<uint64_t> all, chunk, merged;
  auto flush = [&] {
    std::sort(chunk.begin(), chunk.end());
    chunk.erase(std::unique(chunk.begin(), chunk.end()), chunk.end());
    merged.resize(all.size() + chunk.size());
    merged.erase(std::set_union(all.begin(), all.end(), chunk.begin(), chunk.end(), merged.begin()),
                 merged.end());
    std::swap(all, merged);
    chunk.clear();
  };
  for (size_t p = 0; p < c.sources.size(); ++p) {
    for (int32_t y : c.targets[p]) {
      chunk.push_back(static_cast<uint64_t>(null_id) << 32 | static_cast<uint32_t>(y));
      for (int32_t x : c.sources[p])
        chunk.push_back(static_cast<uint64_t>(x) << 32 | static_cast<uint32_t>(y));
    }
    if (chunk.size() > (size_t{1} << 24)) flush();
  }
  flush();
  Pattern pat;
  pat.offsets.assign(static_cast<size_t>(null_id) + 2, 0);
  pat.targets.reserve(all.size());
  for (uint64_t key : all) {
    ++pat.offsets[(key >> 32) + 1];
    pat.targets.push_back(static_cast<int32_t>(key & 0xffffffffu));
  }
  for (size_t x = 1; x < pat.offsets.size(); ++x) pat.offsets[x] += pat.offsets[x - 1];
  return pat;
}

// Each row of `t` divided by its sum (a row of zeros stays zero).
void normalize_rows(const Pattern& pat, std::vector<float>& t) {
  for (size_t x = 0; x + 1 < pat.offsets.size(); ++x) {
    double sum = 0;
    for (int64_t k = pat.offsets[x]; k < pat.offsets[x + 1]; ++k) sum += t[static_cast<size_t>(k)];
    if (sum <= 0) continue;
    for (int64_t k = pat.offsets[x]; k < pat.offsets[x + 1]; ++k)
      t[static_cast<size_t>(k)] = static_cast<float>(t[static_cast<size_t>(k)] / sum);
  }
}

// One E-step over pairs [first, last): the expected counts of t's alignments added to `counts`
// (with `t` null: the co-occurrence counts, the start).
void expect(const EncodedCorpus& c, const Pattern& pat, int32_t null_id, const float* t,
            size_t first, size_t last, std::vector<float>& counts) {
  std::vector<int64_t> slot;
  for (size_t p = first; p < last; ++p) {
    const auto& src = c.sources[p];
    for (int32_t y : c.targets[p]) {
      slot.clear();
      slot.push_back(pat.find(null_id, y));
      for (int32_t x : src) slot.push_back(pat.find(x, y));
      double denom = 0;
      if (t)
        for (int64_t k : slot) denom += t[k];
      for (int64_t k : slot)
        counts[static_cast<size_t>(k)] +=
            t ? (denom > 0 ? static_cast<float>(t[k] / denom) : 0.0f) : 1.0f;
    }
  }
}

// counts = the E-step's expected counts over the whole corpus, threads each summing a part.
void expect_all(const EncodedCorpus& c, const Pattern& pat, int32_t null_id, const float* t,
                int threads, std::vector<float>& counts) {
  std::vector<std::vector<float>> part(static_cast<size_t>(threads),
                                       std::vector<float>(pat.targets.size(), 0.0f));
  split_work(c.sources.size(), threads, [&](size_t th, size_t first, size_t last) {
    expect(c, pat, null_id, t, first, last, part[th]);
  });
  counts.assign(pat.targets.size(), 0.0f);
  for (const auto& p : part)
    for (size_t k = 0; k < p.size(); ++k) counts[k] += p[k];
}

std::vector<LexEntry> select_entries(const Pattern& pat, const std::vector<float>& t,
                                     int32_t null_id, const LexicalTableOptions& o,
                                     const std::vector<int32_t>& skip) {
  auto skipped = [&](int32_t id) { return std::find(skip.begin(), skip.end(), id) != skip.end(); };
  std::vector<LexEntry> out, row;
  for (int32_t x = 0; x < null_id; ++x) {
    if (skipped(x)) continue;
    row.clear();
    for (int64_t k = pat.offsets[static_cast<size_t>(x)];
         k < pat.offsets[static_cast<size_t>(x) + 1]; ++k) {
      const float p = t[static_cast<size_t>(k)];
      const int32_t y = pat.targets[static_cast<size_t>(k)];
      if (p >= o.min_prob && p > 0 && !skipped(y)) row.push_back({x, y, p});
    }
    std::sort(row.begin(), row.end(), [](const LexEntry& a, const LexEntry& b) {
      return a.prob > b.prob || (a.prob == b.prob && a.target < b.target);
    });
    if (o.top > 0 && static_cast<int64_t>(row.size()) > o.top)
      row.resize(static_cast<size_t>(o.top));
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

bool has_space(const std::string& piece) {
  return piece.empty() || piece.find_first_of(" \t\r\n") != std::string::npos;
}

}  // namespace

std::vector<LexEntry> train_ibm1(const EncodedCorpus& c, const LexicalTableOptions& o,
                                 const std::vector<int32_t>& skip) {
  REALMT_CHECK(c.sources.size() == c.targets.size(), "ibm1: {} sources and {} targets",
               c.sources.size(), c.targets.size());
  REALMT_CHECK(o.iterations >= 0, "ibm1: iterations must be >= 0, got {}", o.iterations);
  for (size_t p = 0; p < c.sources.size(); ++p) {
    for (int32_t x : c.sources[p])
      REALMT_CHECK(x >= 0 && x < c.source_vocab, "ibm1: pair {}: source id {} outside [0, {})", p,
                   x, c.source_vocab);
    for (int32_t y : c.targets[p])
      REALMT_CHECK(y >= 0 && y < c.target_vocab, "ibm1: pair {}: target id {} outside [0, {})", p,
                   y, c.target_vocab);
  }
  const int32_t null_id = c.source_vocab;
  const int threads = resolve_threads(o.threads);
  const Pattern pat = co_occurrences(c, null_id);
  std::vector<float> t;
  expect_all(c, pat, null_id, nullptr, threads, t);
  normalize_rows(pat, t);
  for (int it = 0; it < o.iterations; ++it) {
    std::vector<float> counts;
    expect_all(c, pat, null_id, t.data(), threads, counts);
    normalize_rows(pat, counts);
    t = std::move(counts);
  }
  return select_entries(pat, t, null_id, o, skip);
}

EncodedCorpus encode_corpus(const std::string& source_path, const std::string& target_path,
                            const Vocab& vocab, int threads) {
  std::vector<std::string> src = read_lines(source_path), tgt = read_lines(target_path);
  REALMT_CHECK(src.size() == tgt.size(), "{} has {} lines but {} has {}: give line-aligned files",
               source_path, src.size(), target_path, tgt.size());
  EncodedCorpus c;
  c.source_vocab = vocab.size();
  c.target_vocab = vocab.target_size();
  std::vector<std::vector<int32_t>> s(src.size()), t(src.size());
  split_work(src.size(), resolve_threads(threads), [&](size_t, size_t first, size_t last) {
    for (size_t i = first; i < last; ++i) {
      s[i] = vocab.encode(src[i]);
      t[i] = vocab.encode_target(tgt[i]);
    }
  });
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i].empty() || t[i].empty()) continue;
    c.sources.push_back(std::move(s[i]));
    c.targets.push_back(std::move(t[i]));
  }
  return c;
}

std::string format_lex_s2t(const std::vector<LexEntry>& entries, const Vocab& vocab,
                           int64_t* unwritten) {
  std::string out;
  char prob[32];
  int64_t left_out = 0;
  for (const LexEntry& e : entries) {
    const std::string source = vocab.source_piece(e.source), target = vocab.piece(e.target);
    if (has_space(source) || has_space(target)) {
      ++left_out;
      continue;
    }
    std::snprintf(prob, sizeof prob, "%.6g", static_cast<double>(e.prob));
    out += target + ' ' + source + ' ' + prob + '\n';
  }
  if (unwritten) *unwritten = left_out;
  return out;
}

std::string format_vmap(const std::vector<LexEntry>& entries, const Vocab& vocab, int64_t first,
                        bool copy_source) {
  std::string out = "\t";
  for (int32_t y = 0; y < std::min<int64_t>(first, vocab.target_size()); ++y) {
    const std::string piece = vocab.piece(y);
    if (has_space(piece)) continue;
    if (out.size() > 1) out += ' ';
    out += piece;
  }
  out += '\n';
  const TableSpecialIds ids = vocab.ids();
  size_t i = 0;
  for (int32_t x = 0; x < vocab.size(); ++x) {
    std::string targets;
    const bool special = x == ids.pad || x == ids.unk || x == ids.eos || x == ids.decoder_start;
    if (copy_source && !special && !has_space(vocab.piece(x))) targets = vocab.piece(x);
    for (; i < entries.size() && entries[i].source == x; ++i) {
      const std::string target = vocab.piece(entries[i].target);
      if (has_space(target) || (copy_source && entries[i].target == x)) continue;
      if (!targets.empty()) targets += ' ';
      targets += target;
    }
    const std::string source = vocab.source_piece(x);
    if (!has_space(source) && !targets.empty()) out += source + '\t' + targets + '\n';
  }
  return out;
}

}  // namespace realmt::data
