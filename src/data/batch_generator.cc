#include "data/batch_generator.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/error.h"
#include "data/rng.h"

namespace realmt::data {

namespace {
constexpr const char* kStateTag = "realmt-batch-state-v1";
// Lines encoded per thread per step while a pool fills; small enough that the lines encoded past
// a pool's end (and thrown away) cost little, large enough to amortize starting the threads.
constexpr size_t kLinesPerThread = 512;
}  // namespace

BatchGenerator::BatchGenerator(BatchGeneratorOptions options) : options_(std::move(options)) {
  const auto& o = options_;
  REALMT_CHECK(o.mini_batch > 0 || o.mini_batch_words > 0,
               "batching needs mini-batch > 0 or mini-batch-words > 0");
  REALMT_CHECK(o.mini_batch >= 0 && o.mini_batch_words >= 0 && o.max_length >= 0,
               "mini-batch, mini-batch-words and max-length must not be negative");
  REALMT_CHECK(o.maxi_batch > 0, "maxi-batch must be at least 1, got {}", o.maxi_batch);
  REALMT_CHECK(o.threads > 0, "threads must be at least 1, got {}", o.threads);
  REALMT_CHECK(o.prefetch >= 0, "prefetch must not be negative, got {}", o.prefetch);
  REALMT_CHECK(o.vocab || !o.vocab_path.empty(),
               "the data loader needs a vocabulary (.spm); train one with "
               "realmt-data vocab");
  const std::string& tgt_vocab = o.tgt_vocab_path.empty() ? o.vocab_path : o.tgt_vocab_path;
  vocab_ = o.vocab ? o.vocab : std::make_shared<Vocab>(Vocab::pair(o.vocab_path, tgt_vocab));
  corpus_ = std::make_unique<CorpusIndex>(o.src_path, o.tgt_path, o.temp_dir);
  REALMT_CHECK(!corpus_->usable().empty(),
               "{}: no usable sentence pair (all {} lines have an "
               "empty side)",
               corpus_->name(), corpus_->lines());
}

BatchGenerator::~BatchGenerator() { stop(); }

void BatchGenerator::prepare_order(int64_t epoch) {
  if (order_epoch_ == epoch) return;
  order_ = corpus_->usable();
  if (options_.shuffle) {
    Rng rng(derive_seed(options_.seed, 2 * uint64_t(epoch)));
    shuffle(order_, rng);
  }
  order_epoch_ = epoch;
}

void BatchGenerator::encode_lines(const uint32_t* lines, size_t n, std::vector<Sample>& out) {
  out.resize(n);
  std::string src, tgt;
  for (size_t i = 0; i < n; ++i) {
    corpus_->read(lines[i], src, tgt);
    out[i].line = lines[i];
    vocab_->encode(src, out[i].src);
    vocab_->encode_target(tgt, out[i].tgt);
  }
}

std::vector<Sample> BatchGenerator::encode_pool(int64_t epoch, int64_t start, int64_t& end,
                                                LengthCounts& counts) {
  const auto& o = options_;
  const int64_t n = int64_t(order_.size());
  const int64_t max_lines = o.mini_batch > 0 ? o.maxi_batch * o.mini_batch : n;
  const int64_t max_tokens = o.mini_batch_words > 0 ? o.maxi_batch * o.mini_batch_words : 0;
  const int32_t eos = vocab_->ids().eos;
  // Lines encoded past the previous pool's end are kept for this one (same epoch, same start).
  if (carry_epoch_ != epoch || carry_start_ != start) carry_.clear();
  std::vector<Sample> pool;
  int64_t pos = start, tokens = 0;
  std::vector<std::vector<Sample>> parts(size_t(o.threads));
  bool full = false;
  while (pos < n && !full) {
    if (carry_.empty()) {
      const int64_t step = std::min(n - pos, int64_t(kLinesPerThread) * o.threads);
      const int64_t per = (step + o.threads - 1) / o.threads;
      std::vector<std::thread> workers;
      std::vector<std::exception_ptr> errors(parts.size());
      for (int t = 0; t < o.threads; ++t) {
        const int64_t a = std::min(step, t * per), b = std::min(step, (t + 1) * per);
        auto job = [&, t, a, b] {
          try {
            encode_lines(order_.data() + pos + a, size_t(b - a), parts[size_t(t)]);
          } catch (...) {
            errors[size_t(t)] = std::current_exception();
          }
        };
        if (t + 1 == o.threads)
          job();
        else
          workers.emplace_back(job);
      }
      for (auto& w : workers) w.join();
      for (auto& e : errors)
        if (e) std::rethrow_exception(e);
      for (auto& part : parts) {
        for (Sample& s : part) carry_.push_back(std::move(s));
        part.clear();
      }
    }
    // Walk the encoded lines in order, so where the pool closes does not depend on threads.
    Sample s = std::move(carry_.front());
    carry_.pop_front();
    ++pos;
    const bool too_long = o.max_length > 0 && (int64_t(s.src.size()) > o.max_length ||
                                               int64_t(s.tgt.size()) > o.max_length);
    if (too_long && !o.max_length_crop) {
      ++counts.too_long;
    } else {
      if (too_long) {
        ++counts.cropped;
        if (int64_t(s.src.size()) > o.max_length) s.src.resize(size_t(o.max_length));
        if (int64_t(s.tgt.size()) > o.max_length) s.tgt.resize(size_t(o.max_length));
      }
      s.src.push_back(eos);
      s.tgt.push_back(eos);
      tokens += s.cost();
      pool.push_back(std::move(s));
    }
    full = pos - start >= max_lines || (max_tokens > 0 && tokens >= max_tokens);
  }
  carry_epoch_ = epoch;
  carry_start_ = pos;
  end = pos;
  return pool;
}

std::vector<BatchGenerator::Item> BatchGenerator::make_pool_items(Position& at) {
  prepare_order(at.epoch);
  std::vector<Item> items;
  const int64_t n = int64_t(order_.size());
  // From the start of an epoch, this loop runs until a pool yields a batch: reaching the end
  // with none means that no pair of the corpus can ever make a batch (training would loop over
  // empty epochs forever).
  const bool from_epoch_start = at.pool_start == 0 && at.skip == 0;
  LengthCounts counts;  // of every pool made here; they go with the first item
  while (items.empty()) {
    if (at.pool_start >= n) {
      REALMT_CHECK(
          !from_epoch_start,
          "{}: no sentence pair fits max-length {} ({} of {} usable pairs have a side longer than "
          "{} "
          "subwords); raise max-length, set max-length-crop, or check the corpus (one huge line?)",
          corpus_->name(), options_.max_length, counts.too_long, n, options_.max_length);
      items.push_back({std::nullopt, Position{at.epoch + 1, 0, 0}, counts});
      at = items.back().after;
      return items;
    }
    int64_t end = 0;
    std::vector<Sample> pool = encode_pool(at.epoch, at.pool_start, end, counts);
    Rng rng(derive_seed(options_.seed, 2 * uint64_t(at.epoch) + 1, uint64_t(at.pool_start)));
    BatchLimits limits{options_.mini_batch, options_.mini_batch_words, vocab_->ids().pad};
    std::vector<Batch> batches = cut_batches(
        pool, limits, at.epoch, options_.shuffle || options_.shuffle_batches ? &rng : nullptr);
    for (size_t k = size_t(at.skip); k < batches.size(); ++k) {
      Position after = k + 1 == batches.size() ? Position{at.epoch, end, 0}
                                               : Position{at.epoch, at.pool_start, int64_t(k) + 1};
      items.push_back({std::move(batches[k]), after, {}});
    }
    at = Position{at.epoch, end, 0};  // a pool with no batch left (all skipped) moves on
  }
  items.front().counts = counts;
  return items;
}

void BatchGenerator::producer_loop() {
  try {
    for (;;) {
      std::vector<Item> items = make_pool_items(produce_at_);
      for (auto& item : items) {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return stopping_ || int(queue_.size()) < options_.prefetch; });
        if (stopping_) return;
        queue_.push_back(std::move(item));
        cv_.notify_all();
      }
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
    cv_.notify_all();
  }
}

void BatchGenerator::start() {
  if (thread_.joinable() || options_.prefetch == 0) return;
  stopping_ = false;
  thread_ = std::thread([this] { producer_loop(); });
}

void BatchGenerator::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  queue_.clear();
  error_ = nullptr;
}

std::optional<Batch> BatchGenerator::next() {
  Item item;
  if (options_.prefetch == 0) {
    if (queue_.empty()) {
      for (auto& it : make_pool_items(produce_at_)) queue_.push_back(std::move(it));
    }
    item = std::move(queue_.front());
    queue_.pop_front();
  } else {
    start();
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !queue_.empty() || error_; });
    if (queue_.empty()) std::rethrow_exception(error_);
    item = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
  }
  position_ = item.after;
  too_long_ += item.counts.too_long;
  cropped_ += item.counts.cropped;
  if (item.batch) {
    ++batches_;
    pairs_ += item.batch->size;
  }
  return std::move(item.batch);
}

std::string BatchGenerator::fingerprint() const {
  const auto& o = options_;
  return format(
      "lines={} usable={} seed={} shuffle={} mini-batch={} mini-batch-words={} "
      "maxi-batch={} max-length={} max-length-crop={}",
      corpus_->lines(), corpus_->usable().size(), o.seed,
      o.shuffle           ? 1
      : o.shuffle_batches ? 2
                          : 0,
      o.mini_batch, o.mini_batch_words, o.maxi_batch, o.max_length, int(o.max_length_crop));
}

std::string BatchGenerator::state() const {
  return format("{} epoch={} pool-start={} skip={} {}", kStateTag, position_.epoch,
                position_.pool_start, position_.skip, fingerprint());
}

void BatchGenerator::restore(const std::string& state) {
  std::istringstream in(state);
  std::string tag, word;
  in >> tag;
  REALMT_CHECK(tag == kStateTag, "not a data loader state (expected '{} ...'): '{}'", kStateTag,
               state.substr(0, 80));
  std::map<std::string, std::string> kv;
  while (in >> word) {
    const size_t eq = word.find('=');
    REALMT_CHECK(eq != std::string::npos, "data loader state: '{}' is not key=value", word);
    kv[word.substr(0, eq)] = word.substr(eq + 1);
  }
  auto get = [&](const std::string& key) -> int64_t {
    REALMT_CHECK(kv.count(key), "data loader state lacks '{}': '{}'", key, state);
    try {
      return std::stoll(kv[key]);
    } catch (...) {
      REALMT_FAIL("data loader state: '{}={}' is not a number", key, kv[key]);
    }
  };
  Position p{get("epoch"), get("pool-start"), get("skip")};
  // The saved order only exists again with the same corpus and ordering options.
  std::istringstream mine(fingerprint());
  while (mine >> word) {
    const size_t eq = word.find('=');
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    REALMT_CHECK(kv.count(key) && kv[key] == value,
                 "data loader state was saved with {}={} but this run has {}={}; resume with the "
                 "same corpus and batching options",
                 key, kv.count(key) ? kv[key] : "(none)", key, value);
  }
  REALMT_CHECK(p.epoch >= 0 && p.pool_start >= 0 && p.skip >= 0 &&
                   p.pool_start <= int64_t(corpus_->usable().size()),
               "data loader state out of range: '{}'", state);
  stop();
  position_ = produce_at_ = p;
  carry_.clear();
  batches_ = pairs_ = 0;
  too_long_ = cropped_ = 0;
}

BatchGeneratorStats BatchGenerator::stats() const {
  BatchGeneratorStats s;
  s.corpus_lines = corpus_->lines();
  s.empty_pairs = corpus_->empty_pairs();
  s.too_long = too_long_;
  s.cropped = cropped_;
  s.batches = batches_;
  s.pairs = pairs_;
  return s;
}

}  // namespace realmt::data
