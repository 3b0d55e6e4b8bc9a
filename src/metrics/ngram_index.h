// Exact n-gram identities without building n-gram strings: symbols (tokens or code points) get
// dense ids, and the n-gram starting at i gets the dense id of the pair
// (id of the (n-1)-gram at i, symbol at i+n-1). Equal ids <=> equal n-grams, by construction,
// so counts equal those of Python's Counter over tuples or substrings. No per-token heap
// allocation: all tables are reused across segments.
#pragma once

#include <cstdint>
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

// The 64-bit hash TokenInterner uses (callers may compute it ahead of time).
uint64_t token_hash(std::string_view token);

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

}  // namespace realmt::metrics
