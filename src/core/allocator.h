// Allocators. Every device has a caching allocator: freed blocks are kept in size-class pools
// and reused, so the steady state of training or decoding makes no system allocations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <mutex>
#include <string>

#include "core/device.h"

namespace realmt {

struct AllocatorStats {
  size_t allocated_bytes = 0;       // in use by tensors now (rounded block sizes)
  size_t peak_allocated_bytes = 0;  // high-water mark of allocated_bytes
  size_t cached_bytes = 0;          // freed blocks held for reuse
  size_t reserved_bytes = 0;        // obtained from the system (allocated + cached)
  uint64_t num_allocs = 0;          // allocate() calls
  uint64_t num_cache_hits = 0;      // allocate() served from the pool
  uint64_t num_system_allocs = 0;   // blocks obtained from the system
  std::string str() const;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(size_t bytes) = 0;
  virtual void deallocate(void* ptr, size_t bytes) = 0;
  virtual AllocatorStats stats() const = 0;
  virtual void reset_peak() = 0;
  // Returns cached blocks to the system.
  virtual void release_cached() = 0;
};

// A caching allocator over raw system calls (posix_memalign/free, cudaMalloc/cudaFree).
// Sizes are rounded to 256 bytes below 1 MiB and to 1/8 of a power of two above. A request is
// served by the smallest cached block of at least its rounded size and at most twice it (best
// fit), so batches of varying shapes reuse each other's blocks instead of growing the cache
// with one pool per shape; a block keeps its size for its whole life.
class CachingAllocator : public Allocator {
 public:
  using RawAlloc = void* (*)(size_t bytes, int device_index);
  using RawFree = void (*)(void* ptr, int device_index);
  CachingAllocator(RawAlloc raw_alloc, RawFree raw_free, int device_index, const char* name);
  ~CachingAllocator() override;

  void* allocate(size_t bytes) override;
  void deallocate(void* ptr, size_t bytes) override;
  AllocatorStats stats() const override;
  void reset_peak() override;
  void release_cached() override;

  static size_t round_size(size_t bytes);

 private:
  void release_locked();
  RawAlloc raw_alloc_;
  RawFree raw_free_;
  int device_index_;
  const char* name_;
  mutable std::mutex mutex_;
  std::multimap<size_t, void*> free_blocks_;       // block size -> cached block
  std::unordered_map<void*, size_t> block_sizes_;  // every block handed out -> its size
  AllocatorStats stats_;
};

// The allocator of a device (the CPU's always exists; CUDA's once the backend is loaded).
Allocator& allocator_for(Device device);

// Gives the CPU allocator's cached blocks back, and glibc malloc's free pages with them
// (malloc_trim), so that the process's resident memory drops to what tensors hold now. For the
// end of a unit of work whose shapes the next one does not repeat (a decoded batch): the cache
// otherwise keeps the largest blocks of every shape seen, and grows with the input.
void release_host_memory();

}  // namespace realmt
