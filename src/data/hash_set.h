// A set of 64-bit hashes in one flat open-addressing table (8 bytes a slot, load <= 1/2): exact
// duplicate detection over tens of millions of pairs in a few hundred MB. Two different texts
// share a 64-bit hash with probability ~n^2/2^65 (3.5e-5 for 36M pairs); such a pair would be
// counted as a duplicate.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace realmt::data {

// 64-bit hash of text (FNV-1a followed by a SplitMix64 finalizer); the same on every platform.
inline uint64_t hash_text(std::string_view text, uint64_t h = 0xcbf29ce484222325ULL) {
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ULL;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
  return h ^ (h >> 31);
}

class HashSet {
 public:
  // Inserts h; true when it was not there before.
  bool insert(uint64_t h) {
    if (h == 0) h = 1;  // 0 marks an empty slot
    if (2 * (size_ + 1) > slots_.size()) grow();
    if (!place(slots_, h)) return false;
    ++size_;
    return true;
  }
  bool contains(uint64_t h) const {
    if (h == 0) h = 1;
    if (slots_.empty()) return false;
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      if (slots_[i] == h) return true;
      if (slots_[i] == 0) return false;
    }
  }
  size_t size() const { return size_; }

 private:
  static bool place(std::vector<uint64_t>& slots, uint64_t h) {
    const size_t mask = slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      if (slots[i] == h) return false;
      if (slots[i] == 0) {
        slots[i] = h;
        return true;
      }
    }
  }
  void grow() {
    std::vector<uint64_t> bigger(slots_.empty() ? 1024 : slots_.size() * 2, 0);
    for (uint64_t h : slots_) {
      if (h) place(bigger, h);
    }
    slots_.swap(bigger);
  }
  std::vector<uint64_t> slots_;
  size_t size_ = 0;
};

}  // namespace realmt::data
