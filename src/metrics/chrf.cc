#include "metrics/chrf.h"

#include <algorithm>
#include <bit>

#include "core/error.h"
#include "metrics/ngram_index.h"
#include "metrics/parallel.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {

PyNum chrf_f_score(const std::vector<PyNum>& stats, const ChrfOptions& o) {
  const double eps = 1e-16;
  const int order = o.char_order + o.word_order;
  const double factor = static_cast<double>(o.beta) * o.beta;
  PyNum score = PyNum::py(0.0), avg_prec = PyNum::py(0.0), avg_rec = PyNum::py(0.0);
  int effective_order = 0;
  for (int i = 0; i < order; ++i) {
    const PyNum n_hyp = stats[3 * i], n_ref = stats[3 * i + 1], n_match = stats[3 * i + 2];
    const PyNum prec = n_hyp.v > 0 ? n_match / n_hyp : PyNum::py(eps);
    const PyNum rec = n_ref.v > 0 ? n_match / n_ref : PyNum::py(eps);
    const PyNum denom = factor * prec + rec;
    score = score + (denom.v > 0 ? (1 + factor) * prec * rec / denom : PyNum::py(eps));
    if (n_hyp.v > 0 && n_ref.v > 0) {
      avg_prec = avg_prec + prec;
      avg_rec = avg_rec + rec;
      ++effective_order;
    }
  }
  if (o.eps_smoothing) return 100.0 * score / static_cast<double>(order);
  if (effective_order == 0) {
    avg_prec = avg_rec = PyNum::py(0.0);
  } else {
    avg_prec = avg_prec / static_cast<double>(effective_order);
    avg_rec = avg_rec / static_cast<double>(effective_order);
  }
  if ((avg_prec + avg_rec).v != 0.0) {
    score = (1 + factor) * avg_prec * avg_rec;
    score = score / (factor * avg_prec + avg_rec);
    return 100.0 * score;
  }
  return PyNum::py(0.0);
}

namespace {
constexpr bool is_ascii_punct(char c) {  // string.punctuation
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}
}  // namespace

void chrf_words(std::string_view line, std::vector<std::string_view>& out) {
  thread_local std::vector<std::string_view> words;
  words.clear();
  py_split(line, words);
  for (std::string_view w : words) {
    // len(w) counts code points; an ASCII first/last byte is a whole code point.
    size_t i = 0;
    next_code_point(w, i);
    if (i == w.size()) {
      out.push_back(w);
    } else if (is_ascii_punct(w.back())) {
      out.push_back(w.substr(0, w.size() - 1));
      out.push_back(w.substr(w.size() - 1));
    } else if (is_ascii_punct(w.front())) {
      out.push_back(w.substr(0, 1));
      out.push_back(w.substr(1));
    } else {
      out.push_back(w);
    }
  }
}

Chrf::Chrf(ChrfOptions options) : options_(options) {
  REALMT_CHECK(options_.char_order >= 1 && options_.word_order >= 0,
               "chrF orders must be char >= 1 and word >= 0, got {} and {}", options_.char_order,
               options_.word_order);
}

std::string Chrf::name() const {
  return "chrF" + std::to_string(options_.beta) +
         std::string(static_cast<size_t>(options_.word_order), '+');
}

void Chrf::set_references(const std::vector<std::vector<std::string>>& refs) {
  REALMT_CHECK(!refs.empty(), "chrF needs at least one reference stream");
  nrefs_ = refs.size();
  refs_.assign(refs[0].size(), {});
  for (size_t i = 0; i < refs_.size(); ++i) {
    for (const auto& stream : refs) {
      std::string s;
      if (options_.lowercase) {
        py_lower(stream[i], s);
      } else {
        s = stream[i];
      }
      refs_[i].push_back(std::move(s));
    }
  }
}

namespace {

// Dense character ids (0, 1, ... in order of first appearance): a direct table below U+0800,
// a hash map above.
class CharIds {
 public:
  CharIds() : small_(kSmall, 0) {}
  uint32_t id(char32_t c) {
    if (c < kSmall) {
      uint32_t& v = small_[c];
      if (v == 0) {
        v = ++size_;
        used_.push_back(static_cast<uint16_t>(c));
      }
      return v - 1;
    }
    const uint32_t d = large_.id(c);
    if (d == large_ids_.size()) large_ids_.push_back(size_++);
    return large_ids_[d];
  }
  uint32_t size() const { return size_; }
  void clear() {
    for (uint16_t c : used_) small_[c] = 0;
    used_.clear();
    large_.clear();
    large_ids_.clear();
    size_ = 0;
  }

 private:
  static constexpr char32_t kSmall = 0x800;
  std::vector<uint32_t> small_;  // id + 1, 0 = unseen
  std::vector<uint16_t> used_;
  DenseIdMap large_;
  std::vector<uint32_t> large_ids_;
  uint32_t size_ = 0;
};

struct ChrfEntry {
  uint64_t key;
  uint32_t h;  // count in the hypothesis
  uint32_t r;  // count in the current reference
};

struct ChrfWorkspace {
  std::string lowered;
  CharIds chars;
  PackedNgramTable<ChrfEntry> table;
  NgramPacker packer;
  std::vector<char32_t> cps;
  std::vector<std::string_view> words;
  TokenInterner interner;
  NgramIndexer indexer;
  IdCounts hyp, ref;
  std::vector<double> per_ref;  // nrefs x num_stats
  std::vector<PyNum> tmp;
};

// Appends [hyp, ref, match] triples for orders 1..max_order of the indexer's sequences
// (0 = hypothesis, 1.. = references) into per_ref (row r-1 for reference r).
void count_orders(ChrfWorkspace& w, size_t nrefs, int max_order, size_t num_stats, size_t offset) {
  for (int n = 1; n <= max_order; ++n) {
    if (n > 1) w.indexer.next_order();
    const uint32_t bound = w.indexer.id_bound();
    w.hyp.ensure(bound);
    w.ref.ensure(bound);
    const auto hyp_ids = w.indexer.ids(0);
    w.hyp.add(hyp_ids);
    for (size_t r = 0; r < nrefs; ++r) {
      const auto ref_ids = w.indexer.ids(r + 1);
      w.ref.add(ref_ids);
      long long match = 0;
      for (uint32_t id : w.hyp.used()) match += std::min(w.hyp.get(id), w.ref.get(id));
      w.ref.clear();
      double* t = w.per_ref.data() + r * num_stats + offset + 3 * static_cast<size_t>(n - 1);
      t[0] = ref_ids.empty() ? 0.0 : static_cast<double>(hyp_ids.size());  // no ref n-grams: hyp 0
      t[1] = static_cast<double>(ref_ids.size());
      t[2] = static_cast<double>(match);
    }
    w.hyp.clear();
  }
}

// count_orders with exact packed keys (NgramPacker) instead of per-order dense ids, when they
// fit. A reference n-gram absent from the hypothesis ends that position's walk: no longer n-gram
// starting there can be in the hypothesis either. Returns false (nothing written) when the keys
// do not fit.
bool count_orders_packed(ChrfWorkspace& w, size_t nrefs, int max_order, size_t num_stats,
                         size_t offset) {
  NgramPacker& pk = w.packer;
  if (!pk.init(w.indexer.id_bound(), max_order)) return false;
  const auto& hs = w.indexer.symbols(0);
  const size_t hyp_len = hs.size();
  w.table.prepare(hyp_len * static_cast<size_t>(max_order));
  pk.for_each(hs, [&](size_t, uint64_t full, int valid) {
    for (int n = 1; n <= valid; ++n) ++w.table.insert(pk.key(full, n)).h;
  });
  for (size_t r = 0; r < nrefs; ++r) {
    if (r > 0) w.table.for_each_used([](ChrfEntry& e) { e.r = 0; });
    const auto& rs = w.indexer.symbols(r + 1);
    const size_t ref_len = rs.size();
    long long match[16] = {};
    pk.for_each(rs, [&](size_t, uint64_t full, int valid) {
      for (int n = 1; n <= valid; ++n) {
        ChrfEntry* e = w.table.find(pk.key(full, n));
        if (e == nullptr) break;
        match[n] += e->r < e->h ? 1 : 0;
        ++e->r;
      }
    });
    for (int n = 1; n <= max_order; ++n) {
      const auto nn = static_cast<size_t>(n);
      const size_t hyp_count = hyp_len >= nn ? hyp_len - nn + 1 : 0;
      const size_t ref_count = ref_len >= nn ? ref_len - nn + 1 : 0;
      double* t = w.per_ref.data() + r * num_stats + offset + 3 * (nn - 1);
      t[0] = ref_count == 0 ? 0.0 : static_cast<double>(hyp_count);  // no ref n-grams: hyp 0
      t[1] = static_cast<double>(ref_count);
      t[2] = static_cast<double>(match[n]);
    }
  }
  w.table.clear();
  return true;
}

void load_chars(ChrfWorkspace& w, size_t k, std::string_view s, bool whitespace) {
  auto& sym = w.indexer.symbols(k);
  size_t i = 0;
  while (i < s.size()) {
    const char32_t c = next_code_point(s, i);
    if (!whitespace && is_py_space(c)) continue;
    sym.push_back(w.chars.id(c));
  }
}

}  // namespace

CorpusStats Chrf::corpus_stats(const std::vector<std::string>& hyps, int threads) const {
  REALMT_CHECK(hyps.size() == refs_.size(), "System and reference streams have different lengths.");
  CorpusStats stats;
  stats.num_stats = num_stats();
  stats.values.assign(hyps.size() * stats.num_stats, 0.0);
  const size_t ns = stats.num_stats;
  parallel_for(hyps.size(), threads, [&](size_t begin, size_t end, int) {
    ChrfWorkspace w;
    for (size_t i = begin; i < end; ++i) {
      std::string_view hyp = hyps[i];
      if (options_.lowercase) {
        py_lower(hyp, w.lowered);
        hyp = w.lowered;
      }
      const auto& refs = refs_[i];
      const size_t nseq = refs.size() + 1;
      w.per_ref.assign(refs.size() * ns, 0.0);
      w.chars.clear();
      w.indexer.reset(nseq);
      load_chars(w, 0, hyp, options_.whitespace);
      for (size_t r = 0; r < refs.size(); ++r) load_chars(w, r + 1, refs[r], options_.whitespace);
      w.indexer.begin(w.chars.size());
      if (!count_orders_packed(w, refs.size(), options_.char_order, ns, 0)) {
        count_orders(w, refs.size(), options_.char_order, ns, 0);
      }
      if (options_.word_order > 0) {
        w.interner.clear();
        w.indexer.reset(nseq);
        for (size_t k = 0; k < nseq; ++k) {
          w.words.clear();
          chrf_words(k == 0 ? hyp : std::string_view(refs[k - 1]), w.words);
          auto& sym = w.indexer.symbols(k);
          for (std::string_view t : w.words) sym.push_back(w.interner.id(t));
        }
        w.indexer.begin(w.interner.size());
        const size_t word_offset = 3 * static_cast<size_t>(options_.char_order);
        if (!count_orders_packed(w, refs.size(), options_.word_order, ns, word_offset)) {
          count_orders(w, refs.size(), options_.word_order, ns, word_offset);
        }
      }
      // The reference with the strictly highest sentence F wins; the first wins ties.
      size_t best = 0;
      double best_f = -1.0;
      for (size_t r = 0; r < refs.size(); ++r) {
        w.tmp.clear();
        for (size_t j = 0; j < ns; ++j) w.tmp.push_back(PyNum::py(w.per_ref[r * ns + j]));
        const double f = chrf_f_score(w.tmp, options_).v;
        if (f > best_f) {
          best_f = f;
          best = r;
        }
      }
      std::copy_n(w.per_ref.data() + best * ns, ns, stats.values.data() + i * ns);
    }
  });
  return stats;
}

Score Chrf::score_from_sums(const std::vector<double>& sums) const {
  std::vector<PyNum> s;
  for (double v : sums) s.push_back(PyNum::py(v));
  return {chrf_f_score(s, options_).v, ""};
}

PyNum Chrf::bootstrap_score(const std::vector<float>& sums) const {
  std::vector<PyNum> s;
  for (float v : sums) s.push_back(PyNum::np32(v));
  return chrf_f_score(s, options_);
}

Signature Chrf::signature() const {
  Signature sig;
  sig.fields = {{"nrefs", "#", nrefs_value(nrefs_)},
                {"case", "c", options_.lowercase ? "lc" : "mixed"},
                {"eff", "e", options_.eps_smoothing ? "no" : "yes"},
                {"nc", "nc", std::to_string(options_.char_order)},
                {"nw", "nw", std::to_string(options_.word_order)},
                {"space", "s", options_.whitespace ? "yes" : "no"},
                {"version", "v", "2.6.0"}};
  return sig;
}

}  // namespace realmt::metrics
