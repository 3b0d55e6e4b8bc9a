#include "metrics/bleu.h"

#include <cmath>
#include <cstdio>

#include "core/error.h"
#include "metrics/ngram_index.h"
#include "metrics/parallel.h"
#include "metrics/spm_tokenizer.h"
#include "metrics/unicode_text.h"

namespace realmt::metrics {

Smoothing parse_smoothing(const std::string& name) {
  return parse_enum<Smoothing>(name, "BLEU smoothing");
}

namespace {

// Default smoothing values: floor 0.1, add-k 1; exp and none take none.
std::optional<double> smooth_default(Smoothing s) {
  if (s == Smoothing::kFloor) return 0.1;
  if (s == Smoothing::kAddK) return 1.0;
  return std::nullopt;
}

// The tokens of one (rstripped) line, appended as tokenize_to_tokens does.
void line_tokens(const BleuOptions& o, std::string_view line, std::string& bytes,
                 std::vector<uint32_t>& ends, std::string& scratch) {
  if (!o.moses) return tokenize_to_tokens(o.tokenizer, line, bytes, ends, scratch);
  const std::string t = o.moses->tokenize(line);
  thread_local std::vector<std::string_view> toks;
  toks.clear();
  py_split(t, toks);
  for (std::string_view x : toks) {
    bytes.append(x);
    ends.push_back(static_cast<uint32_t>(bytes.size()));
  }
}

// sacreBLEU's my_log: a "floored" log for zero precisions.
inline double my_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

}  // namespace

std::string BleuDetail::verbose() const {
  std::string s;
  char buf[64];
  for (size_t i = 0; i < precisions.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.1f", i ? "/" : "", precisions[i]);
    s += buf;
  }
  const double ratio = ref_len ? static_cast<double>(sys_len) / static_cast<double>(ref_len) : 0.0;
  std::snprintf(buf, sizeof buf, " (BP = %.3f ratio = %.3f ", bp, ratio);
  s += buf;
  s += "hyp_len = " + std::to_string(sys_len) + " ref_len = " + std::to_string(ref_len) + ")";
  return s;
}

BleuDetail compute_bleu(std::vector<double> correct, std::vector<double> total, long long sys_len,
                        long long ref_len, Smoothing smoothing, std::optional<double> smooth_value,
                        bool effective_order) {
  const size_t order = correct.size();
  if (!smooth_value) smooth_value = smooth_default(smoothing);
  BleuDetail d;
  d.sys_len = sys_len;
  d.ref_len = ref_len;
  d.bp = 1.0;
  if (sys_len < ref_len)
    d.bp = sys_len > 0 ? std::exp(1.0 - static_cast<double>(ref_len) / sys_len) : 0.0;
  d.precisions.assign(order, 0.0);
  bool any = false;
  for (double c : correct) any |= c != 0.0;
  if (!any) {  // early exit before smoothing: score 0, precisions 0
    d.counts = std::move(correct);
    d.totals = std::move(total);
    return d;
  }
  double mteval = 1.0;
  size_t eff = order;
  for (size_t n = 1; n <= order; ++n) {
    if (smoothing == Smoothing::kAddK && n > 1) {
      correct[n - 1] += *smooth_value;
      total[n - 1] += *smooth_value;
    }
    if (total[n - 1] == 0) break;
    if (effective_order) eff = n;
    if (correct[n - 1] == 0) {
      if (smoothing == Smoothing::kExp) {
        mteval *= 2;
        d.precisions[n - 1] = 100.0 / (mteval * total[n - 1]);
      } else if (smoothing == Smoothing::kFloor) {
        d.precisions[n - 1] = 100.0 * *smooth_value / total[n - 1];
      }
    } else {
      d.precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1];
    }
  }
  double sum = 0.0;  // Python's sum(): left to right from 0
  for (size_t n = 0; n < eff; ++n) sum += my_log(d.precisions[n]);
  d.score = d.bp * std::exp(sum / static_cast<double>(eff));
  d.counts = std::move(correct);
  d.totals = std::move(total);
  return d;
}

Bleu::Bleu(BleuOptions options) : options_(options) {
  REALMT_CHECK(options_.max_ngram_order >= 1, "BLEU max n-gram order must be >= 1, got {}",
               options_.max_ngram_order);
  // The SentencePiece model is loaded now (as sacreBLEU does), so a missing one fails at once.
  const TokenizerKind t = options_.tokenizer;
  if (t == TokenizerKind::kSpm || t == TokenizerKind::kFlores101 || t == TokenizerKind::kFlores200)
    spm_tokenizer(t);
}

std::string Bleu::preprocess(const std::string& line) const {
  std::string lowered, out, scratch;
  std::string_view s = line;
  if (options_.lowercase) {
    py_lower(s, lowered);
    s = lowered;
  }
  if (options_.moses) return options_.moses->tokenize(py_rstrip(s));
  tokenize(options_.tokenizer, py_rstrip(s), out, scratch);
  return out;
}

void Bleu::set_references(const std::vector<std::vector<std::string>>& refs) {
  REALMT_CHECK(!refs.empty(), "BLEU needs at least one reference stream");
  nrefs_ = refs.size();
  const size_t n = refs[0].size();
  ref_tokens_.assign(n * nrefs_, TokenRange{0, 0, 0});
  ref_stores_.assign(2, TokenStore{});
  parallel_for(n, 2, [&](size_t begin, size_t end, int worker) {
    TokenStore& st = ref_stores_[static_cast<size_t>(worker)];
    std::string lowered, scratch;
    for (size_t i = begin; i < end; ++i) {
      for (size_t r = 0; r < nrefs_; ++r) {
        std::string_view s = refs[r][i];
        if (options_.lowercase) {
          py_lower(s, lowered);
          s = lowered;
        }
        const auto first = static_cast<uint32_t>(st.ends.size() - 1);
        line_tokens(options_, py_rstrip(s), st.bytes, st.ends, scratch);
        const auto count = static_cast<uint32_t>(st.ends.size() - 1 - first);
        for (uint32_t j = first; j < first + count; ++j) {
          st.hashes.push_back(token_hash(
              std::string_view(st.bytes).substr(st.ends[j], st.ends[j + 1] - st.ends[j])));
        }
        ref_tokens_[i * nrefs_ + r] = TokenRange{static_cast<uint32_t>(worker), first, count};
      }
    }
  });
}

namespace {

struct BleuEntry {
  uint64_t key;
  uint32_t h;  // count in the hypothesis
  uint32_t r;  // count in the current reference
  uint32_t m;  // maximum count over the references so far
};

// Per-thread working memory: no heap allocation per token once warmed up.
struct BleuWorkspace {
  std::string lowered, bytes, scratch;
  std::vector<uint32_t> ends;
  TokenInterner interner;
  NgramIndexer indexer;
  IdCounts maxref, tmp, hyp;
  NgramPacker packer;
  PackedNgramTable<BleuEntry> table;
};

// One reference's tokens: token j of [first, first + count) spans [ends[j], ends[j + 1]) of bytes.
struct RefTokens {
  const char* bytes;
  const uint32_t* ends;
  const uint64_t* hashes;
  uint32_t first, count;
};

void segment_stats(const std::string& hyp_line, const std::vector<RefTokens>& refs,
                   const BleuOptions& o, BleuWorkspace& w, double* out) {
  std::string_view s = hyp_line;
  if (o.lowercase) {
    py_lower(s, w.lowered);
    s = w.lowered;
  }
  w.bytes.clear();
  w.ends.assign(1, 0);
  line_tokens(o, py_rstrip(s), w.bytes, w.ends, w.scratch);
  const size_t nseq = refs.size() + 1;
  w.interner.clear();
  w.indexer.reset(nseq);
  {
    auto& sym = w.indexer.symbols(0);
    for (size_t j = 0; j + 1 < w.ends.size(); ++j) {
      const std::string_view t(w.bytes.data() + w.ends[j], w.ends[j + 1] - w.ends[j]);
      sym.push_back(w.interner.id(t, token_hash(t)));
    }
  }
  for (size_t k = 1; k < nseq; ++k) {
    const RefTokens& r = refs[k - 1];
    auto& sym = w.indexer.symbols(k);
    for (uint32_t j = r.first; j < r.first + r.count; ++j) {
      sym.push_back(w.interner.id(std::string_view(r.bytes + r.ends[j], r.ends[j + 1] - r.ends[j]),
                                  r.hashes[j]));
    }
  }
  const auto hyp_len = static_cast<long long>(w.indexer.symbols(0).size());
  long long closest_diff = -1, closest_len = -1;  // ties go to the shorter reference
  for (size_t k = 1; k < nseq; ++k) {
    const auto len = static_cast<long long>(w.indexer.symbols(k).size());
    const long long diff = std::llabs(hyp_len - len);
    if (closest_diff == -1 || diff < closest_diff) {
      closest_diff = diff;
      closest_len = len;
    } else if (diff == closest_diff && len < closest_len) {
      closest_len = len;
    }
  }
  const int order = o.max_ngram_order;
  out[0] = static_cast<double>(hyp_len);
  out[1] = static_cast<double>(closest_len);
  if (w.packer.init(w.interner.size(), order)) {
    // Packed keys (NgramPacker): a reference n-gram absent from the hypothesis ends that
    // position's walk, as no longer n-gram from there can be in the hypothesis either.
    const auto& hs = w.indexer.symbols(0);
    const NgramPacker& pk = w.packer;
    w.table.prepare(hs.size() * static_cast<size_t>(order));
    pk.for_each(hs, [&](size_t, uint64_t full, int valid) {
      for (int n = 1; n <= valid; ++n) ++w.table.insert(pk.key(full, n)).h;
    });
    for (size_t k = 1; k < nseq; ++k) {
      if (k > 1) w.table.for_each_used([](BleuEntry& e) { e.r = 0; });
      pk.for_each(w.indexer.symbols(k), [&](size_t, uint64_t full, int valid) {
        for (int n = 1; n <= valid; ++n) {
          BleuEntry* e = w.table.find(pk.key(full, n));
          if (e == nullptr) break;
          e->m = std::max(e->m, ++e->r);
        }
      });
    }
    long long correct[16] = {};
    w.table.for_each_used([&](BleuEntry& e) { correct[e.key & 15] += std::min(e.h, e.m); });
    w.table.clear();
    for (int n = 1; n <= order; ++n) {
      const auto nn = static_cast<size_t>(n);
      out[2 + n - 1] = static_cast<double>(correct[n]);
      out[2 + order + n - 1] = static_cast<double>(hs.size() >= nn ? hs.size() - nn + 1 : 0);
    }
    return;
  }
  w.indexer.begin(w.interner.size());
  for (int n = 1; n <= order; ++n) {
    if (n > 1) w.indexer.next_order();
    const uint32_t bound = w.indexer.id_bound();
    w.maxref.ensure(bound);
    w.tmp.ensure(bound);
    w.hyp.ensure(bound);
    // Clipping count: the maximum count of the n-gram over the segment's references.
    for (size_t k = 1; k < nseq; ++k) {
      w.tmp.add(w.indexer.ids(k));
      for (uint32_t id : w.tmp.used()) w.maxref.set_max(id, w.tmp.get(id));
      w.tmp.clear();
    }
    const auto hyp_ids = w.indexer.ids(0);
    w.hyp.add(hyp_ids);
    long long correct = 0;
    for (uint32_t id : w.hyp.used()) correct += std::min(w.hyp.get(id), w.maxref.get(id));
    w.hyp.clear();
    w.maxref.clear();
    out[2 + n - 1] = static_cast<double>(correct);
    out[2 + order + n - 1] = static_cast<double>(hyp_ids.size());
  }
}

}  // namespace

CorpusStats Bleu::corpus_stats(const std::vector<std::string>& hyps, int threads) const {
  REALMT_CHECK(hyps.size() * nrefs_ == ref_tokens_.size(),
               "System and reference streams have different lengths.");
  CorpusStats stats;
  stats.num_stats = num_stats();
  stats.values.assign(hyps.size() * stats.num_stats, 0.0);
  parallel_for(hyps.size(), threads, [&](size_t begin, size_t end, int) {
    BleuWorkspace w;
    std::vector<RefTokens> refs(nrefs_);
    for (size_t i = begin; i < end; ++i) {
      for (size_t r = 0; r < nrefs_; ++r) {
        const TokenRange& t = ref_tokens_[i * nrefs_ + r];
        const TokenStore& st = ref_stores_[t.store];
        refs[r] = RefTokens{st.bytes.data(), st.ends.data(), st.hashes.data(), t.first, t.count};
      }
      segment_stats(hyps[i], refs, options_, w, stats.values.data() + i * stats.num_stats);
    }
  });
  return stats;
}

Score Bleu::score_from_sums(const std::vector<double>& sums) const {
  const BleuDetail d = detail_from_sums(sums);
  return {d.score, d.verbose()};
}

BleuDetail Bleu::detail_from_sums(const std::vector<double>& sums) const {
  const size_t n = static_cast<size_t>(options_.max_ngram_order);
  std::vector<double> correct(sums.begin() + 2, sums.begin() + 2 + static_cast<long>(n));
  std::vector<double> total(sums.begin() + 2 + static_cast<long>(n), sums.end());
  const BleuDetail d =
      compute_bleu(correct, total, static_cast<long long>(sums[0]), static_cast<long long>(sums[1]),
                   options_.smoothing, options_.smooth_value, options_.effective_order);
  return d;
}

// compute_bleu on a float32 statistics vector under NumPy >= 2: the precisions are float32
// (100. * count / total), their logs and the final score are Python floats.
PyNum Bleu::bootstrap_score(const std::vector<float>& sums) const {
  const size_t order = static_cast<size_t>(options_.max_ngram_order);
  const auto sys_len = static_cast<long long>(sums[0]);
  const auto ref_len = static_cast<long long>(sums[1]);
  double bp = 1.0;
  if (sys_len < ref_len)
    bp = sys_len > 0 ? std::exp(1.0 - static_cast<double>(ref_len) / sys_len) : 0.0;
  std::vector<PyNum> correct(order), total(order), prec(order, PyNum::py(0.0));
  bool any = false;
  for (size_t i = 0; i < order; ++i) {
    correct[i] = PyNum::np32(sums[2 + i]);
    total[i] = PyNum::np32(sums[2 + order + i]);
    any |= sums[2 + i] != 0.0f;
  }
  if (!any) return PyNum::py(0.0);
  const std::optional<double> sv =
      options_.smooth_value ? options_.smooth_value : smooth_default(options_.smoothing);
  double mteval = 1.0;
  size_t eff = order;
  for (size_t n = 1; n <= order; ++n) {
    if (options_.smoothing == Smoothing::kAddK && n > 1) {
      correct[n - 1] = correct[n - 1] + *sv;
      total[n - 1] = total[n - 1] + *sv;
    }
    if (total[n - 1].v == 0) break;
    if (options_.effective_order) eff = n;
    if (correct[n - 1].v == 0) {
      if (options_.smoothing == Smoothing::kExp) {
        mteval *= 2;
        prec[n - 1] = 100.0 / (mteval * total[n - 1]);
      } else if (options_.smoothing == Smoothing::kFloor) {
        prec[n - 1] = (100.0 * *sv) / total[n - 1];
      }
    } else {
      prec[n - 1] = (100.0 * correct[n - 1]) / total[n - 1];
    }
  }
  double sum = 0.0;
  for (size_t n = 0; n < eff; ++n) sum += my_log(prec[n].v);
  return PyNum::py(bp * std::exp(sum / static_cast<double>(eff)));
}

std::string default_bleu_tokenizer(const std::string& target_language,
                                   const std::string& give_one) {
  REALMT_CHECK(target_language != "ja" && target_language != "ko",
               "the {}-mecab tokenizer (chosen for target '{}') is not supported by realmt; {}",
               target_language, target_language, give_one);
  return target_language == "zh" ? "zh" : "13a";
}

Signature Bleu::signature() const {
  std::string smooth = enum_name(options_.smoothing);
  if (auto def = smooth_default(options_.smoothing)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[%.2f]", options_.smooth_value.value_or(*def));
    smooth += buf;
  }
  Signature sig;
  sig.fields = {
      {"nrefs", "#", nrefs_value(nrefs_)},
      {"case", "c", options_.lowercase ? "lc" : "mixed"},
      {"eff", "e", options_.effective_order ? "yes" : "no"},
      {"tok", "tok", options_.moses ? options_.moses->name() : tokenizer_name(options_.tokenizer)},
      {"smooth", "s", smooth},
      {"version", "v", "2.6.0"}};
  return sig;
}

}  // namespace realmt::metrics
