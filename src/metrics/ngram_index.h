// Exact n-gram identities without building n-gram strings: symbols (tokens or code points) get
// dense ids, and the n-gram starting at i gets the dense id of the pair
// (id of the (n-1)-gram at i, symbol at i+n-1). Equal ids <=> equal n-grams, by construction,
// so counts equal those of Python's Counter over tuples or substrings. No per-token heap
// allocation: all tables are reused across segments.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace realmt::metrics {

// uint64 key -> dense id (0, 1, 2, ... in order of first appearance). clear() is O(1).
class DenseIdMap {
 public:
  uint32_t id(uint64_t key);
  void clear();
  uint32_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key;
    uint32_t val;
    uint32_t stamp;  // == generation_ when the slot is in use
  };
  void grow();
  std::vector<Slot> slots_;
  uint32_t generation_ = 1;
  int shift_ = 64;
  uint32_t size_ = 0;
  uint64_t mask_ = 0;
};

// The 64-bit hash TokenInterner uses (callers may compute it ahead of time): wyhash-style
// reads (overlapping 4-byte loads up to 16 bytes, 3 single bytes below 4) and a 128-bit
// multiply fold. Only its consistency matters: the interner compares the strings themselves.
uint64_t token_hash_long(std::string_view token);
inline uint64_t token_hash(std::string_view token) {
  const auto* p = reinterpret_cast<const unsigned char*>(token.data());
  const size_t n = token.size();
  if (n > 16) return token_hash_long(token);
  auto r4 = [](const unsigned char* q) {
    uint32_t v;
    std::memcpy(&v, q, 4);
    return static_cast<uint64_t>(v);
  };
  uint64_t a = 0, b = 0;
  if (n >= 4) {
    const size_t d = (n >> 3) << 2;
    a = (r4(p) << 32) | r4(p + d);
    b = (r4(p + n - 4) << 32) | r4(p + n - 4 - d);
  } else if (n > 0) {
    a = (static_cast<uint64_t>(p[0]) << 16) | (static_cast<uint64_t>(p[n >> 1]) << 8) | p[n - 1];
  }
  const unsigned __int128 m =
      static_cast<unsigned __int128>(a ^ 0xa0761d6478bd642fULL) * (b ^ 0xe7037ed1a0b428dbULL ^ n);
  return static_cast<uint64_t>(m) ^ static_cast<uint64_t>(m >> 64);
}

// string -> dense id. The views must stay valid until clear().
class TokenInterner {
 public:
  uint32_t id(std::string_view token) { return id(token, token_hash(token)); }
  // hash must be token_hash(token).
  uint32_t id(std::string_view token, uint64_t hash);
  void clear();
  uint32_t size() const { return static_cast<uint32_t>(tokens_.size()); }

 private:
  void grow();
  std::vector<std::string_view> tokens_;
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> slots_;  // index into tokens_ + 1; 0 = empty
  uint64_t mask_ = 0;
};

// N-gram ids of order n for several symbol sequences at once (hypothesis and references), so
// that equal n-grams in different sequences share an id.
class NgramIndexer {
 public:
  // Starts over with num_seqs sequences; fill them through symbols(k), then call begin().
  void reset(size_t num_seqs);
  std::vector<uint32_t>& symbols(size_t k) { return seqs_[k]; }
  // Order 1: the ids are the symbols; num_symbols bounds them.
  void begin(uint32_t num_symbols);
  // Moves to the next order; the ids of sequence k shrink by one.
  void next_order();
  int order() const { return order_; }
  std::span<const uint32_t> ids(size_t k) const;
  // Every id of the current order is below this.
  uint32_t id_bound() const { return bound_; }

 private:
  std::vector<std::vector<uint32_t>> seqs_;
  std::vector<std::vector<uint32_t>> ids_;
  size_t num_seqs_ = 0;
  int order_ = 0;
  uint32_t bound_ = 0;
  DenseIdMap map_;
};

// Multiset of ids in an array indexed by id; clear() resets only the slots that were used.
class IdCounts {
 public:
  void ensure(uint32_t bound) {
    if (counts_.size() < bound) counts_.resize(bound, 0);
  }
  void add(std::span<const uint32_t> ids) {
    for (uint32_t id : ids) {
      if (counts_[id]++ == 0) used_.push_back(id);
    }
  }
  uint32_t get(uint32_t id) const { return counts_[id]; }
  void set_max(uint32_t id, uint32_t v) {
    if (counts_[id] == 0 && v > 0) used_.push_back(id);
    if (v > counts_[id]) counts_[id] = v;
  }
  const std::vector<uint32_t>& used() const { return used_; }
  void clear() {
    for (uint32_t id : used_) counts_[id] = 0;
    used_.clear();
  }

 private:
  std::vector<uint32_t> counts_;
  std::vector<uint32_t> used_;
};

// Counts of packed n-gram keys: open addressing, linear probing, key 0 = empty. Only the slots
// listed in used_ are ever non-zero outside a segment, so a segment's clear() is O(its n-grams).
// Entry: an aggregate whose first member is the uint64_t key, the rest counters (zeroed).
template <typename Entry>
class PackedNgramTable {
 public:
  // Room for up to max_keys distinct keys.
  void prepare(size_t max_keys) {
    const size_t cap = std::max<size_t>(64, std::bit_ceil(2 * max_keys + 1));
    if (slots_.size() < cap) slots_.assign(cap, Entry{});
    mask_ = cap - 1;
    shift_ = 64 - std::countr_zero(cap);
  }
  Entry& insert(uint64_t key) {
    uint64_t i = slot(key);
    for (;;) {
      Entry& e = slots_[i];
      if (e.key == key) return e;
      if (e.key == 0) {
        e.key = key;
        used_.push_back(static_cast<uint32_t>(i));
        return e;
      }
      i = (i + 1) & mask_;
    }
  }
  Entry* find(uint64_t key) {
    uint64_t i = slot(key);
    for (;;) {
      Entry& e = slots_[i];
      if (e.key == key) return &e;
      if (e.key == 0) return nullptr;
      i = (i + 1) & mask_;
    }
  }
  // Fibonacci hashing: the top bits of key * 2^64/phi.
  uint64_t slot(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ULL) >> shift_; }
  template <typename Fn>
  void for_each_used(Fn&& fn) {
    for (uint32_t i : used_) fn(slots_[i]);
  }
  void clear() {
    for (uint32_t i : used_) slots_[i] = Entry{};
    used_.clear();
  }

 private:
  std::vector<Entry> slots_;
  std::vector<uint32_t> used_;
  uint64_t mask_ = 0;
  int shift_ = 64;
};

// Exact packed n-gram keys for orders 1..order of symbol sequences with ids below id_bound:
// symbol id + 1 (>= 1) takes `bits` bits, the n-gram at position i of order n is the first n
// slots of the top-aligned key of position i (symbols i..i+n-1; slots past the end are 0), with
// n in the low 4 bits. Equal keys <=> equal n-grams (of the same order).
class NgramPacker {
 public:
  // False when the keys do not fit in 60 bits (the caller then uses NgramIndexer).
  bool init(uint32_t id_bound, int order) {
    order_ = order;
    bits_ = std::max(1, static_cast<int>(std::bit_width(id_bound)));
    if (order > 15 || bits_ * order > 60) return false;
    low_ = 64 - bits_ * order;
    for (int n = 1; n <= order; ++n) masks_[n] = ~uint64_t{0} << (64 - bits_ * n);
    return true;
  }
  uint64_t key(uint64_t full, int n) const { return (full & masks_[n]) | static_cast<uint64_t>(n); }
  // fn(i, full_key, valid): valid = the number of orders present at position i.
  template <typename Fn>
  void for_each(const std::vector<uint32_t>& sym, Fn&& fn) const {
    const size_t len = sym.size();
    const auto order = static_cast<size_t>(order_);
    uint64_t full = 0;
    for (size_t k = 0; k < std::min(len, order); ++k) {
      full |= static_cast<uint64_t>(sym[k] + 1) << (64 - bits_ * static_cast<int>(k + 1));
    }
    for (size_t i = 0; i < len; ++i) {
      if (i > 0) {
        full <<= bits_;
        if (i + order - 1 < len) full |= static_cast<uint64_t>(sym[i + order - 1] + 1) << low_;
      }
      fn(i, full, static_cast<int>(std::min(order, len - i)));
    }
  }

 private:
  int order_ = 0, bits_ = 0, low_ = 0;
  uint64_t masks_[16] = {};
};

}  // namespace realmt::metrics
