#include "core/allocator.h"

#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <new>
#include <sstream>

#include "core/error.h"
#include "core/profile.h"
#include "core/runtime.h"

namespace realmt {

std::string AllocatorStats::str() const {
  std::ostringstream os;
  os << "allocated " << allocated_bytes << " B, peak " << peak_allocated_bytes << " B, cached "
     << cached_bytes << " B, reserved " << reserved_bytes << " B, " << num_allocs << " allocs ("
     << num_cache_hits << " from cache, " << num_system_allocs << " from the system)";
  return os.str();
}

CachingAllocator::CachingAllocator(RawAlloc raw_alloc, RawFree raw_free, int device_index,
                                   const char* name)
    : raw_alloc_(raw_alloc), raw_free_(raw_free), device_index_(device_index), name_(name) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_locked();
}

size_t CachingAllocator::round_size(size_t bytes) {
  if (bytes == 0) bytes = 1;
  constexpr size_t kSmall = size_t(1) << 20;
  if (bytes <= kSmall) return (bytes + 255) & ~size_t(255);
  // Above 1 MiB: round up to a multiple of 1/8 of the enclosing power of two.
  size_t p = kSmall;
  while (p < bytes) p <<= 1;
  const size_t step = p / 8;
  return (bytes + step - 1) / step * step;
}

void* CachingAllocator::allocate(size_t bytes) {
  const ProfileScope profile(ProfileCategory::kAllocation);
  size_t size = round_size(bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.num_allocs;
  void* ptr = nullptr;
  auto it = free_blocks_.lower_bound(size);
  if (it != free_blocks_.end() && it->first <= 2 * size) {
    size = it->first;
    ptr = it->second;
    free_blocks_.erase(it);
    stats_.cached_bytes -= size;
    ++stats_.num_cache_hits;
  } else {
    ptr = raw_alloc_(size, device_index_);
    if (!ptr) {  // out of memory: give the cache back and try once more
      release_locked();
      ptr = raw_alloc_(size, device_index_);
    }
    REALMT_CHECK(ptr != nullptr, "{} allocator: out of memory allocating {} bytes ({})", name_,
                 size, stats_.str());
    ++stats_.num_system_allocs;
    stats_.reserved_bytes += size;
  }
  block_sizes_[ptr] = size;
  stats_.allocated_bytes += size;
  if (stats_.allocated_bytes > stats_.peak_allocated_bytes)
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  return ptr;
}

void CachingAllocator::deallocate(void* ptr, size_t) {
  if (!ptr) return;
  const ProfileScope profile(ProfileCategory::kAllocation);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = block_sizes_.find(ptr);
  REALMT_ASSERT(it != block_sizes_.end(), "{} allocator: freeing a block it did not hand out",
                name_);
  const size_t size = it->second;
  block_sizes_.erase(it);
  stats_.allocated_bytes -= size;
  stats_.cached_bytes += size;
  free_blocks_.emplace(size, ptr);
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
}

void CachingAllocator::release_cached() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_locked();
}

void CachingAllocator::release_locked() {
  for (auto& [size, ptr] : free_blocks_) {
    raw_free_(ptr, device_index_);
    stats_.reserved_bytes -= size;
  }
  free_blocks_.clear();
  stats_.cached_bytes = 0;
}

Allocator& allocator_for(Device device) { return runtime_for(device.type).allocator(device.index); }

void release_host_memory() {
  allocator_for(Device::cpu()).release_cached();
#if defined(__GLIBC__)
  // Freed blocks of glibc's heaps (every thread's arena) stay resident until trimmed.
  malloc_trim(0);
#endif
}

}  // namespace realmt
