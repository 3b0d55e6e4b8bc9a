#include "metrics/ngram_index.h"

#include <bit>
#include <cstring>

namespace realmt::metrics {

namespace {
inline uint64_t mix64(uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
inline uint64_t hash_bytes(std::string_view s) {  // FNV-1a over 8-byte words, then mixed
  uint64_t h = 0xcbf29ce484222325ULL ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  h = (h ^ tail) * 0x100000001b3ULL;
  return mix64(h);
}
}  // namespace

uint64_t token_hash_long(std::string_view token) { return hash_bytes(token); }

void DenseIdMap::clear() {
  size_ = 0;
  if (++generation_ == 0) {  // wrapped: really clear the stamps
    for (auto& slot : slots_) slot.stamp = 0;
    generation_ = 1;
  }
}

// Fibonacci hashing: the top bits of key * 2^64/phi index the table.
static inline uint64_t slot_of(uint64_t key, int shift) {
  return (key * 0x9E3779B97F4A7C15ULL) >> shift;
}

void DenseIdMap::grow() {
  const size_t cap = slots_.empty() ? 1024 : slots_.size() * 2;
  std::vector<Slot> old = std::move(slots_);
  const uint32_t gen = generation_;
  slots_.assign(cap, Slot{0, 0, 0});
  mask_ = cap - 1;
  shift_ = 64 - std::countr_zero(cap);
  generation_ = 1;
  for (const Slot& s : old) {
    if (s.stamp != gen) continue;
    uint64_t h = slot_of(s.key, shift_);
    while (slots_[h].stamp == generation_) h = (h + 1) & mask_;
    slots_[h] = Slot{s.key, s.val, generation_};
  }
}

uint32_t DenseIdMap::id(uint64_t key) {
  if ((static_cast<uint64_t>(size_) + 1) * 2 > slots_.size()) grow();
  uint64_t h = slot_of(key, shift_);
  for (;;) {
    Slot& s = slots_[h];
    if (s.stamp != generation_) {
      s = Slot{key, size_, generation_};
      return size_++;
    }
    if (s.key == key) return s.val;
    h = (h + 1) & mask_;
  }
}

void TokenInterner::clear() {
  for (size_t i = 0; i < tokens_.size(); ++i) {
    uint64_t h = hashes_[i] & mask_;
    while (slots_[h] != 0) {
      slots_[h] = 0;
      h = (h + 1) & mask_;
    }
  }
  tokens_.clear();
  hashes_.clear();
}

void TokenInterner::grow() {
  const size_t cap = slots_.empty() ? 256 : slots_.size() * 2;
  slots_.assign(cap, 0);
  mask_ = cap - 1;
  for (size_t i = 0; i < tokens_.size(); ++i) {
    uint64_t h = hashes_[i] & mask_;
    while (slots_[h] != 0) h = (h + 1) & mask_;
    slots_[h] = static_cast<uint32_t>(i + 1);
  }
}

uint32_t TokenInterner::id(std::string_view token, uint64_t hash) {
  hash ^= hash >> 32;  // the slot index takes the low bits
  if ((tokens_.size() + 1) * 2 > slots_.size()) grow();
  uint64_t h = hash & mask_;
  while (slots_[h] != 0) {
    const uint32_t i = slots_[h] - 1;
    if (hashes_[i] == hash && tokens_[i] == token) return i;
    h = (h + 1) & mask_;
  }
  const auto id = static_cast<uint32_t>(tokens_.size());
  tokens_.push_back(token);
  hashes_.push_back(hash);
  slots_[h] = id + 1;
  return id;
}

void NgramIndexer::reset(size_t num_seqs) {
  num_seqs_ = num_seqs;
  if (seqs_.size() < num_seqs) {
    seqs_.resize(num_seqs);
    ids_.resize(num_seqs);
  }
  for (size_t k = 0; k < num_seqs; ++k) seqs_[k].clear();
  order_ = 0;
}

void NgramIndexer::begin(uint32_t num_symbols) {
  for (size_t k = 0; k < num_seqs_; ++k) ids_[k] = seqs_[k];
  order_ = 1;
  bound_ = num_symbols;
}

void NgramIndexer::next_order() {
  map_.clear();
  for (size_t k = 0; k < num_seqs_; ++k) {
    std::vector<uint32_t>& ids = ids_[k];
    const std::vector<uint32_t>& sym = seqs_[k];
    if (ids.empty()) continue;
    // n-gram at i of order n+1 = (n-gram at i of order n, symbol at i+n)
    const size_t count = ids.size() - 1;
    for (size_t i = 0; i < count; ++i) {
      ids[i] =
          map_.id((static_cast<uint64_t>(ids[i]) << 32) | sym[i + static_cast<size_t>(order_)]);
    }
    ids.resize(count);
  }
  ++order_;
  bound_ = map_.size();
}

std::span<const uint32_t> NgramIndexer::ids(size_t k) const { return ids_[k]; }

}  // namespace realmt::metrics
