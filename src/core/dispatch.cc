#include "core/dispatch.h"

#include <algorithm>

namespace realmt {

namespace {
thread_local KernelTrace* g_trace = nullptr;
}  // namespace

KernelTrace::KernelTrace() : previous_(g_trace) { g_trace = this; }
KernelTrace::~KernelTrace() { g_trace = previous_; }
KernelTrace* KernelTrace::active() { return g_trace; }

void KernelTrace::note(const char* name, const std::array<bool, kNumDeviceTypes>& has,
                       const std::array<bool, kNumCpuIsas>& cpu_levels) {
  if (std::none_of(uses_.begin(), uses_.end(), [&](const KernelUse& u) { return u.name == name; }))
    uses_.push_back({name, has, cpu_levels});
}

}  // namespace realmt
