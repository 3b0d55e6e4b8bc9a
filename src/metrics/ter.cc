#include "metrics/ter.h"

#include <cmath>

#include "core/error.h"
#include "metrics/ngram_index.h"
#include "metrics/parallel.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {

namespace {

constexpr int kMaxShiftSize = 10;
constexpr int kMaxShiftDist = 50;
constexpr int kBeamWidth = 25;
constexpr int kMaxShiftCandidates = 1000;
constexpr long long kInf = 10000000000000000LL;  // 1e16, as sacreBLEU
// The edit-distance matrix is (I+1) x (J+1) cells of 9 bytes; 2^27 cells (1.2 GB) allow two
// sentences of about 11,500 words each. Longer lines are refused with a clear error (a
// 5 MB line would otherwise ask for terabytes).
constexpr unsigned long long kMaxCells = 1ull << 27;

bool matrix_fits(size_t hyp_words, size_t ref_words) {
  const unsigned long long rows = hyp_words + 1ull, cols = ref_words + 1ull;
  return rows <= kMaxCells && cols <= kMaxCells && rows * cols <= kMaxCells;
}

std::string too_long_message(size_t hyp_words, size_t ref_words) {
  return format(
      "TER of a {}-word hypothesis against a {}-word reference needs a {} x {} edit-distance "
      "matrix, "
      "more than the {} cells (1.2 GB) realmt-bleu allows; is this line a whole document?",
      hyp_words, ref_words, hyp_words + 1, ref_words + 1, kMaxCells);
}

enum Op : char { kNop = ' ', kSub = 's', kIns = 'i', kDel = 'd', kUndef = 'x' };

// Beam edit distance (hyp rows x ref columns) with sacreBLEU's tie order: diagonal, then
// deletion, then insertion, each replacing the cell only when strictly cheaper.
class BeamEditDistance {
 public:
  explicit BeamEditDistance(const std::vector<uint32_t>& ref) : ref_(ref), J_(ref.size()) {}

  // Full matrix for hyp (kept for the trace and for prefix reuse by candidates).
  long long full(const std::vector<uint32_t>& hyp) {
    setup(hyp.size());
    cost_.assign((I_ + 1) * (J_ + 1), kInf);
    ops_.assign((I_ + 1) * (J_ + 1), kUndef);
    for (size_t j = 0; j <= J_; ++j) {
      cost_[j] = static_cast<long long>(j);
      ops_[j] = kIns;
    }
    for (size_t i = 1; i <= I_; ++i)
      row(hyp, i, &cost_[(i - 1) * (J_ + 1)], &cost_[i * (J_ + 1)], &ops_[i * (J_ + 1)]);
    return cost_[I_ * (J_ + 1) + J_];
  }

  // Distance of a hypothesis of the same length whose first `prefix` words equal those of the
  // hypothesis last given to full(): rows 0..prefix are reused.
  long long with_prefix(const std::vector<uint32_t>& hyp, size_t prefix) {
    if (prefix >= I_) return cost_[I_ * (J_ + 1) + J_];
    a_.assign(&cost_[prefix * (J_ + 1)], &cost_[prefix * (J_ + 1)] + J_ + 1);
    for (size_t i = prefix + 1; i <= I_; ++i) {
      b_.assign(J_ + 1, kInf);
      tmp_ops_.resize(J_ + 1);
      row(hyp, i, a_.data(), b_.data(), tmp_ops_.data());
      a_.swap(b_);
    }
    return a_[J_];
  }

  // The trace of the last full() call, from (0,0) to (I,J).
  std::string trace() const {
    std::string t;
    size_t i = I_, j = J_;
    while (i > 0 || j > 0) {
      const char op = ops_[i * (J_ + 1) + j];
      t.push_back(op);
      if (op == kSub || op == kNop) {
        --i;
        --j;
      } else if (op == kIns) {
        --j;
      } else if (op == kDel) {
        --i;
      } else {
        REALMT_ASSERT(false, "TER trace reached an undefined cell");
      }
    }
    return {t.rbegin(), t.rend()};
  }

 private:
  void setup(size_t I) {
    I_ = I;
    ratio_ = I ? static_cast<double>(J_) / static_cast<double>(I) : 1.0;
    beam_ = kBeamWidth < ratio_ / 2 ? static_cast<long long>(std::ceil(ratio_ / 2 + kBeamWidth))
                                    : kBeamWidth;
  }

  void row(const std::vector<uint32_t>& hyp, size_t i, const long long* prev, long long* cur,
           char* ops) const {
    const auto diag = static_cast<long long>(std::floor(static_cast<double>(i) * ratio_));
    const long long lo = std::max(0LL, diag - beam_);
    long long hi = std::min(static_cast<long long>(J_) + 1, diag + beam_);
    if (i == I_) hi = static_cast<long long>(J_) + 1;
    for (long long jj = lo; jj < hi; ++jj) {
      const auto j = static_cast<size_t>(jj);
      if (j == 0) {
        cur[0] = prev[0] + 1;
        ops[0] = kDel;
        continue;
      }
      const bool same = hyp[i - 1] == ref_[j - 1];
      long long c = kInf;
      char op = kUndef;
      const long long d = prev[j - 1] + (same ? 0 : 1);
      if (c > d) {
        c = d;
        op = same ? kNop : kSub;
      }
      if (c > prev[j] + 1) {
        c = prev[j] + 1;
        op = kDel;
      }
      if (c > cur[j - 1] + 1) {
        c = cur[j - 1] + 1;
        op = kIns;
      }
      cur[j] = c;
      ops[j] = op;
    }
  }

  const std::vector<uint32_t>& ref_;
  size_t J_;
  size_t I_ = 0;
  double ratio_ = 1.0;
  long long beam_ = kBeamWidth;
  std::vector<long long> cost_, a_, b_;
  std::vector<char> ops_, tmp_ops_;
};

// Python's words[a:b] with clamping.
void append_slice(std::vector<uint32_t>& out, const std::vector<uint32_t>& w, long long a,
                  long long b) {
  const auto n = static_cast<long long>(w.size());
  a = std::clamp(a, 0LL, n);
  b = std::clamp(b, 0LL, n);
  for (long long k = a; k < b; ++k) out.push_back(w[static_cast<size_t>(k)]);
}

void perform_shift(const std::vector<uint32_t>& w, long long start, long long len, long long target,
                   std::vector<uint32_t>& out) {
  out.clear();
  if (target < start) {
    append_slice(out, w, 0, target);
    append_slice(out, w, start, start + len);
    append_slice(out, w, target, start);
    append_slice(out, w, start + len, static_cast<long long>(w.size()));
  } else if (target > start + len) {
    append_slice(out, w, 0, start);
    append_slice(out, w, start + len, target);
    append_slice(out, w, start, start + len);
    append_slice(out, w, target, static_cast<long long>(w.size()));
  } else {
    append_slice(out, w, 0, start);
    append_slice(out, w, start + len, len + target);
    append_slice(out, w, start, start + len);
    append_slice(out, w, len + target, static_cast<long long>(w.size()));
  }
}

struct Candidate {
  long long gain, len, neg_start, neg_idx;
  bool operator>(const Candidate& o) const {
    if (gain != o.gain) return gain > o.gain;
    if (len != o.len) return len > o.len;
    if (neg_start != o.neg_start) return neg_start > o.neg_start;
    return neg_idx > o.neg_idx;
  }
};

}  // namespace

std::pair<long long, long long> translation_edit_rate(const std::vector<uint32_t>& hyp_in,
                                                      const std::vector<uint32_t>& ref) {
  const auto J = static_cast<long long>(ref.size());
  if (J == 0) return {static_cast<long long>(hyp_in.size()), 0};
  REALMT_CHECK(matrix_fits(hyp_in.size(), ref.size()), "{}",
               too_long_message(hyp_in.size(), ref.size()));
  BeamEditDistance ed(ref);
  std::vector<uint32_t> h = hyp_in, shifted, best_words;
  const auto I = static_cast<long long>(h.size());
  long long shifts = 0;
  int checked = 0;
  std::vector<long long> align(static_cast<size_t>(J));
  std::vector<int> hyp_err, ref_err;
  for (;;) {
    // One round: the best shift of the current hypothesis.
    const long long pre = ed.full(h);
    std::string trace = ed.trace();
    hyp_err.clear();
    ref_err.clear();
    long long ph = -1, pr = -1;
    for (char op : trace) {  // ins/del flipped: a recipe for rewriting the reference
      if (op == kNop || op == kSub) {
        ++ph;
        ++pr;
        align[static_cast<size_t>(pr)] = ph;
        hyp_err.push_back(op == kSub);
        ref_err.push_back(op == kSub);
      } else if (op == kDel) {  // flipped to insertion
        ++ph;
        hyp_err.push_back(1);
      } else {  // kIns, flipped to deletion
        ++pr;
        align[static_cast<size_t>(pr)] = ph;
        ref_err.push_back(1);
      }
    }
    bool have_best = false;
    Candidate best{};
    for (long long sh = 0; sh < I && checked < kMaxShiftCandidates; ++sh) {
      bool stop = false;
      for (long long sr = 0; sr < J && !stop; ++sr) {
        if (std::llabs(sr - sh) > kMaxShiftDist) continue;
        for (long long len = 1; len <= kMaxShiftSize; ++len) {
          if (h[static_cast<size_t>(sh + len - 1)] != ref[static_cast<size_t>(sr + len - 1)]) break;
          // candidate (sh, sr, len)
          bool hyp_ok = false, ref_ok = false;
          for (long long k = sh; k < std::min(sh + len, I); ++k)
            hyp_ok |= hyp_err[static_cast<size_t>(k)] != 0;
          for (long long k = sr; k < std::min(sr + len, J); ++k)
            ref_ok |= ref_err[static_cast<size_t>(k)] != 0;
          const long long a = align[static_cast<size_t>(sr)];
          if (hyp_ok && ref_ok && !(sh <= a && a < sh + len)) {
            long long prev_idx = -1;
            for (long long off = -1; off < len; ++off) {
              const long long idx = sr + off == -1 ? 0 : align[static_cast<size_t>(sr + off)] + 1;
              if (idx == prev_idx) continue;
              prev_idx = idx;
              perform_shift(h, sh, len, idx, shifted);
              const long long d =
                  ed.with_prefix(shifted, static_cast<size_t>(std::max(0LL, std::min(sh, idx))));
              const Candidate c{pre - d, len, -sh, -idx};
              ++checked;
              if (!have_best || c > best) {
                have_best = true;
                best = c;
                best_words = shifted;
              }
            }
            if (checked >= kMaxShiftCandidates) {
              stop = true;
              break;
            }
          }
          if (I == sh + len || J == sr + len) break;
        }
      }
      if (stop) break;
    }
    const long long gain = have_best ? best.gain : 0;
    if (checked >= kMaxShiftCandidates) break;  // this round's shift is discarded
    if (gain <= 0) break;
    ++shifts;
    h = best_words;
  }
  return {shifts + ed.full(h), J};
}

void Ter::set_references(const std::vector<std::vector<std::string>>& refs) {
  REALMT_CHECK(!refs.empty(), "TER needs at least one reference stream");
  nrefs_ = refs.size();
  refs_.assign(refs[0].size(), {});
  parallel_for(refs_.size(), 2, [&](size_t begin, size_t end, int) {
    for (size_t i = begin; i < end; ++i) {
      // sacreBLEU pre-processes cached references twice (_cache_references, then
      // _extract_reference_info); the normalised tokenizer is not idempotent, so do the same.
      for (const auto& stream : refs) {
        const std::string once = ter_tokenize(py_rstrip(stream[i]), options_);
        refs_[i].push_back(ter_tokenize(py_rstrip(once), options_));
      }
    }
  });
}

CorpusStats Ter::corpus_stats(const std::vector<std::string>& hyps, int threads) const {
  REALMT_CHECK(hyps.size() == refs_.size(), "System and reference streams have different lengths.");
  CorpusStats stats;
  stats.num_stats = 2;
  stats.values.assign(hyps.size() * 2, 0.0);
  // TER's cost varies a lot per segment: interleave segments across threads.
  const int workers = std::max(1, threads);
  parallel_for(static_cast<size_t>(workers) * 64, workers, [&](size_t, size_t, int worker) {
    TokenInterner interner;
    std::vector<std::string_view> words;
    std::vector<uint32_t> hyp_ids, ref_ids;
    for (size_t i = static_cast<size_t>(worker); i < hyps.size();
         i += static_cast<size_t>(workers)) {
      const std::string hyp = ter_tokenize(py_rstrip(hyps[i]), options_);
      interner.clear();
      words.clear();
      py_split(hyp, words);
      hyp_ids.clear();
      for (auto t : words) hyp_ids.push_back(interner.id(t));
      long long best = kInf;
      double ref_lengths = 0.0;
      for (const std::string& ref : refs_[i]) {
        words.clear();
        py_split(ref, words);
        ref_ids.clear();
        for (auto t : words) ref_ids.push_back(interner.id(t));
        REALMT_CHECK(ref_ids.empty() || matrix_fits(hyp_ids.size(), ref_ids.size()), "line {}: {}",
                     i + 1, too_long_message(hyp_ids.size(), ref_ids.size()));
        const auto [edits, len] = translation_edit_rate(hyp_ids, ref_ids);
        ref_lengths += static_cast<double>(len);
        best = std::min(best, edits);
      }
      stats.values[2 * i] = static_cast<double>(best);
      stats.values[2 * i + 1] = ref_lengths / static_cast<double>(refs_[i].size());
    }
  });
  return stats;
}

Score Ter::score_from_sums(const std::vector<double>& sums) const {
  double score = 0.0;
  if (sums[1] > 0) {
    score = sums[0] / sums[1];
  } else if (sums[0] > 0) {
    score = 1.0;
  }
  return {100 * score, ""};
}

PyNum Ter::bootstrap_score(const std::vector<float>& sums) const {
  const PyNum edits = PyNum::np32(sums[0]), len = PyNum::np32(sums[1]);
  PyNum score = PyNum::py(0.0);
  if (len.v > 0) {
    score = edits / len;
  } else if (edits.v > 0) {
    score = PyNum::py(1.0);
  }
  return 100.0 * score;
}

Signature Ter::signature() const {
  Signature sig;
  sig.fields = {{"nrefs", "#", nrefs_value(nrefs_)},
                {"case", "c", options_.case_sensitive ? "mixed" : "lc"},
                {"tok", "t", "tercom"},
                {"norm", "nr", options_.normalized ? "yes" : "no"},
                {"punct", "pn", options_.no_punct ? "no" : "yes"},
                {"asian", "as", options_.asian_support ? "yes" : "no"},
                {"version", "v", "2.6.0"}};
  return sig;
}

}  // namespace realmt::metrics
