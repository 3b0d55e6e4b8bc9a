// A per-step time profile of the CPU work by kind (GEMM, attention, layer norm, ...), for the
// benchmarks (realmt-bench-train prints it). Off by default; when off a scope costs one relaxed
// atomic load. Times are exclusive: a scope nested in another (an allocation inside a kernel
// call) is charged to itself and paused in its parent, so the categories add up to the time
// covered by scopes. Kernel calls are timed where they are dispatched (core/dispatch.h), by the
// category their slot name maps to (profile_category_of). Main-thread view: scopes opened inside
// parallel regions are not counted twice because kernels are dispatched from one thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace realmt {

enum class ProfileCategory : int {
  kGemm,
  kAttention,
  kLayerNorm,
  kElementwise,
  kCrossEntropy,
  kOptimizer,
  kCopy,        // gathers, permutes, concatenation, casts, embedding lookups
  kAllocation,  // the caching allocator (allocate and free)
  kCount
};

const char* profile_category_name(ProfileCategory c);
// The category of a kernel slot, from its name (e.g. "matmul_kernel" -> kGemm).
ProfileCategory profile_category_of(const char* slot_name);

struct ProfileTotals {
  std::array<double, static_cast<int>(ProfileCategory::kCount)> seconds{};
  std::array<uint64_t, static_cast<int>(ProfileCategory::kCount)> calls{};
  std::map<std::string, double> by_name;  // exclusive seconds per kernel slot (and "allocator")
  double total() const;
};

void profile_enable(bool on);
bool profile_enabled();
void profile_reset();
ProfileTotals profile_snapshot();

namespace detail {
extern std::atomic<bool> g_profile_on;
void profile_enter(ProfileCategory c, const char* name);
void profile_exit();
}  // namespace detail

class ProfileScope {
 public:
  explicit ProfileScope(ProfileCategory c, const char* name = nullptr)
      : active_(detail::g_profile_on.load(std::memory_order_relaxed)) {
    if (active_) detail::profile_enter(c, name);
  }
  ~ProfileScope() {
    if (active_) detail::profile_exit();
  }
  ProfileScope(const ProfileScope&) = delete;
  ProfileScope& operator=(const ProfileScope&) = delete;

 private:
  bool active_;
};

}  // namespace realmt
