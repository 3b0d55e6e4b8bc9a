#include "data/clean.h"

#include <algorithm>
#include <fstream>

#include "core/error.h"
#include "data/hash_set.h"
#include "common/utf8.h"

namespace realmt::data {

std::string CleanReport::summary() const {
  return format(
      "read {} pairs, kept {}; dropped {} with an empty side, {} over the word limit, {} "
      "with a bad length ratio, {} exact duplicates; normalization changed {} pairs",
      read, kept, empty, too_long, bad_ratio, duplicate, normalized);
}

namespace {
std::ofstream open_out(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  REALMT_CHECK(out.good(), "cannot write {}", path);
  return out;
}
}  // namespace

CleanReport clean_corpus(const CleanOptions& o) {
  REALMT_CHECK(!o.src_out.empty() && !o.tgt_out.empty(), "clean: name both outputs");
  ParallelReaderOptions in = o.input;
  in.skip_empty = false;  // counted here, with the other reasons
  in.max_words = 0;
  ParallelReader reader(in);
  std::ofstream src_out = open_out(o.src_out), tgt_out = open_out(o.tgt_out);
  std::ofstream dropped;
  if (!o.dropped_out.empty()) dropped = open_out(o.dropped_out);
  auto drop = [&](const char* reason, const SentencePair& p) {
    if (dropped.is_open())
      dropped << reason << '\t' << p.line << '\t' << p.src << '\t' << p.tgt << '\n';
  };
  CleanReport r;
  HashSet seen;
  SentencePair p;
  while (reader.next(p)) {
    ++r.read;
    if (o.normalization != Normalization::kNone) {
      std::string s = normalize(p.src, o.normalization), t = normalize(p.tgt, o.normalization);
      const bool changed = s != p.src || t != p.tgt;
      p.src = std::move(s), p.tgt = std::move(t);
      r.normalized += changed;
    }
    if (p.src.empty() || p.tgt.empty()) {
      ++r.empty, drop("empty", p);
      continue;
    }
    if (o.max_words > 0 &&
        (count_words(p.src) > size_t(o.max_words) || count_words(p.tgt) > size_t(o.max_words))) {
      ++r.too_long, drop("too-long", p);
      continue;
    }
    if (o.max_ratio > 0) {
      const double a = double(count_code_points(p.src)), b = double(count_code_points(p.tgt));
      const double lo = std::min(a, b), hi = std::max(a, b);
      if (hi >= double(o.ratio_min_chars) && hi > o.max_ratio * lo) {
        ++r.bad_ratio, drop("ratio", p);
        continue;
      }
    }
    if (o.dedup && !seen.insert(hash_text(p.tgt, hash_text(p.src) ^ 0x9E3779B97F4A7C15ULL))) {
      ++r.duplicate, drop("duplicate", p);
      continue;
    }
    ++r.kept;
    src_out << p.src << '\n';
    tgt_out << p.tgt << '\n';
  }
  src_out.flush(), tgt_out.flush();
  REALMT_CHECK(src_out.good() && tgt_out.good(), "clean: writing {} / {} failed (disk full?)",
               o.src_out, o.tgt_out);
  return r;
}

}  // namespace realmt::data
