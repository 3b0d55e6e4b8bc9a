#include "core/profile.h"

#include <chrono>
#include <cstring>
#include <mutex>
#include <vector>

namespace realmt {

namespace detail {
std::atomic<bool> g_profile_on{false};
}

namespace {

constexpr int kCount = static_cast<int>(ProfileCategory::kCount);

std::mutex g_mutex;
ProfileTotals g_totals;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Frame {
  ProfileCategory category;
  const char* name;
  double start;  // when this frame last (re)started running exclusively
};
thread_local std::vector<Frame> t_stack;

void charge(const Frame& f, double seconds, bool call) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_totals.seconds[static_cast<int>(f.category)] += seconds;
  if (call) ++g_totals.calls[static_cast<int>(f.category)];
  g_totals.by_name[f.name ? f.name : profile_category_name(f.category)] += seconds;
}

}  // namespace

const char* profile_category_name(ProfileCategory c) {
  switch (c) {
    case ProfileCategory::kGemm: return "gemm";
    case ProfileCategory::kAttention: return "attention";
    case ProfileCategory::kLayerNorm: return "layer norm";
    case ProfileCategory::kElementwise: return "elementwise";
    case ProfileCategory::kCrossEntropy: return "cross-entropy";
    case ProfileCategory::kOptimizer: return "optimizer";
    case ProfileCategory::kCopy: return "copies";
    case ProfileCategory::kAllocation: return "allocation";
    case ProfileCategory::kCount: break;
  }
  return "?";
}

ProfileCategory profile_category_of(const char* name) {
  struct Prefix {
    const char* prefix;
    ProfileCategory category;
  };
  // First match wins; names are the kernel slots' (REALMT_KERNEL_SLOT).
  static const Prefix table[] = {
      {"matmul", ProfileCategory::kGemm},
      {"linear", ProfileCategory::kGemm},
      {"gemm", ProfileCategory::kGemm},
      {"attention", ProfileCategory::kAttention},
      {"quantized_matmul", ProfileCategory::kGemm},
      {"softmax", ProfileCategory::kAttention},
      {"log_softmax", ProfileCategory::kAttention},
      {"layer_norm", ProfileCategory::kLayerNorm},
      {"residual_norm", ProfileCategory::kLayerNorm},
      {"cross_entropy", ProfileCategory::kCrossEntropy},
      {"adam", ProfileCategory::kOptimizer},
      {"ema", ProfileCategory::kOptimizer},
      {"sum_squares", ProfileCategory::kOptimizer},
      {"concat", ProfileCategory::kCopy},
      {"permute", ProfileCategory::kCopy},
      {"slice", ProfileCategory::kCopy},
      {"index_select", ProfileCategory::kCopy},
      {"embedding", ProfileCategory::kCopy},
      {"cast", ProfileCategory::kCopy},
      {"copy", ProfileCategory::kCopy},
      {"kv_cache", ProfileCategory::kCopy},
  };
  for (const Prefix& p : table)
    if (std::strncmp(name, p.prefix, std::strlen(p.prefix)) == 0) return p.category;
  return ProfileCategory::kElementwise;
}

double ProfileTotals::total() const {
  double t = 0;
  for (double s : seconds) t += s;
  return t;
}

void profile_enable(bool on) { detail::g_profile_on.store(on); }
bool profile_enabled() { return detail::g_profile_on.load(); }

void profile_reset() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_totals = ProfileTotals{};
}

ProfileTotals profile_snapshot() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_totals;
}

namespace detail {

void profile_enter(ProfileCategory c, const char* name) {
  const double t = now();
  if (!t_stack.empty()) charge(t_stack.back(), t - t_stack.back().start, false);
  t_stack.push_back({c, name, t});
}

void profile_exit() {
  if (t_stack.empty()) return;  // enabled while a scope was open: nothing to close
  const double t = now();
  const Frame f = t_stack.back();
  t_stack.pop_back();
  charge(f, t - f.start, true);
  if (!t_stack.empty()) t_stack.back().start = t;
}

}  // namespace detail

}  // namespace realmt
