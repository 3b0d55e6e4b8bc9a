// Kernel dispatch without a central switch: an op declares one slot per kernel signature in
// its header, and each backend file registers its function into the slot from a static
// initializer. The op's .cc picks the kernel by the device of its operands.
//
//   // ops/softmax.h
//   REALMT_KERNEL_SLOT(softmax_kernel, void(const Tensor& x, const Tensor* mask, Tensor& y));
//   // ops/softmax_cpu.cc
//   REALMT_REGISTER_KERNEL(softmax_kernel, kCpu, softmax_cpu);
//   // ops/softmax.cc
//   softmax_kernel.get(x.device())(x, mask, y);
//
// CPU kernels are compiled once per instruction-set level (core/cpu_isa.h): each copy registers
// for its level, and get() picks the highest at or below cpu_isa(), the level of this CPU.
//
// KernelTrace records which slots a computation looks up, and which device types each has a
// kernel for: the op harness's support table (tests/ops/op_support.cc) is built from it.
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "core/cpu_isa.h"
#include "core/device.h"
#include "core/error.h"
#include "core/profile.h"

namespace realmt {

struct KernelUse {
  std::string name;                            // the slot, e.g. "softmax_kernel"
  std::array<bool, kNumDeviceTypes> has{};     // has a kernel for device type i
  std::array<bool, kNumCpuIsas> cpu_levels{};  // has a CPU kernel compiled for level i
};

// While one lives, every KernelSlot::get on the thread that made it is recorded (each slot once,
// in order of first use). Traces nest; the innermost records.
class KernelTrace {
 public:
  KernelTrace();
  ~KernelTrace();
  KernelTrace(const KernelTrace&) = delete;
  KernelTrace& operator=(const KernelTrace&) = delete;
  const std::vector<KernelUse>& uses() const { return uses_; }
  // The innermost trace of this thread, or nullptr (the common case: one thread-local load).
  static KernelTrace* active();
  void note(const char* name, const std::array<bool, kNumDeviceTypes>& has,
            const std::array<bool, kNumCpuIsas>& cpu_levels);

 private:
  KernelTrace* previous_;
  std::vector<KernelUse> uses_;
};

// A kernel picked for a device; calling it runs the kernel inside a profile scope of the slot's
// category (core/profile.h: one relaxed load when profiling is off).
template <typename Signature>
struct TimedKernel {
  Signature* fn;
  const char* name;
  template <typename... Args>
  decltype(auto) operator()(Args&&... args) const {
    if (!detail::g_profile_on.load(std::memory_order_relaxed))
      return fn(std::forward<Args>(args)...);
    const ProfileScope scope(profile_category_of(name), name);
    return fn(std::forward<Args>(args)...);
  }
};

template <typename Signature>
class KernelSlot {
 public:
  using Fn = Signature*;
  explicit constexpr KernelSlot(const char* name) : name_(name) {}

  // cpu_level: the instruction-set level a CPU kernel was compiled for (0 for other devices).
  void set(DeviceType type, Fn fn, int cpu_level = 0) {
    if (type == DeviceType::kCpu) cpu_fns_[cpu_level] = fn;
    if (cpu_level == 0) fns_[static_cast<int>(type)] = fn;
  }
  bool has(DeviceType type) const { return fns_[static_cast<int>(type)] != nullptr; }
  // The CPU kernel compiled for `isa`, or for the highest level below it that has one.
  Fn cpu_kernel(CpuIsa isa) const {
    for (int level = static_cast<int>(isa); level > 0; --level)
      if (cpu_fns_[level] != nullptr) return cpu_fns_[level];
    return cpu_fns_[0];
  }
  TimedKernel<Signature> get(Device device) const {
    if (KernelTrace* trace = KernelTrace::active()) {
      std::array<bool, kNumDeviceTypes> has{};
      std::array<bool, kNumCpuIsas> levels{};
      for (int i = 0; i < kNumDeviceTypes; ++i) has[i] = fns_[i] != nullptr;
      for (int i = 0; i < kNumCpuIsas; ++i) levels[i] = cpu_fns_[i] != nullptr;
      trace->note(name_, has, levels);
    }
    Fn fn = device.type == DeviceType::kCpu ? cpu_kernel(cpu_isa())
                                            : fns_[static_cast<int>(device.type)];
    REALMT_CHECK(fn != nullptr, "op '{}' has no kernel for device {} in this build", name_, device);
    return {fn, name_};
  }
  const char* name() const { return name_; }

 private:
  const char* name_;
  std::array<Fn, kNumDeviceTypes> fns_{};  // the CPU's: its baseline copy
  std::array<Fn, kNumCpuIsas> cpu_fns_{};  // per level
};

namespace detail {
template <typename Slot, typename Fn>
bool register_kernel(Slot& slot, DeviceType type, Fn fn, int cpu_level) {
  slot.set(type, fn, type == DeviceType::kCpu ? cpu_level : 0);
  return true;
}
}  // namespace detail

}  // namespace realmt

// One slot per kernel signature, defined once (inline variable) for the whole program.
#define REALMT_KERNEL_SLOT(name, signature) \
  inline ::realmt::KernelSlot<signature> name { #name }

#define REALMT_KERNEL_CONCAT_(a, b) a##b
#define REALMT_KERNEL_CONCAT(a, b) REALMT_KERNEL_CONCAT_(a, b)
// Registers fn for a device type (kCpu or kCuda) into slot, at static-initialisation time; a
// CPU kernel for the level its file is compiled for (REALMT_CPU_ISA_LEVEL, core/cpu_isa.h). Put
// it after REALMT_CPU_KERNELS_END: the static initialiser then runs baseline code on any CPU.
#define REALMT_REGISTER_KERNEL(slot, device_type, fn)                                     \
  [[maybe_unused]] static const bool REALMT_KERNEL_CONCAT(realmt_kernel_reg_, __LINE__) = \
      ::realmt::detail::register_kernel(slot, ::realmt::DeviceType::device_type, fn,      \
                                        REALMT_CPU_ISA_LEVEL)
