// The CPU's instruction-set level, and how CPU kernels are chosen by it at run time.
//
// Levels: kBaseline (x86-64 as every such CPU has it: SSE2; elsewhere what the compiler targets),
// kAvx2 (AVX2 + FMA), kAvx512 (AVX-512 F, BW, VL, DQ, with AVX2 + FMA).
// Every CPU kernel file (`*_cpu.cc`) is compiled once per level on x86-64 (src/CMakeLists.txt):
// the plain compile is the baseline copy, and generated files define REALMT_CPU_ISA_LEVEL and
// include the source again for the higher levels. In each file the kernels sit between
//
//   namespace realmt::ops {            // the file's namespace, after every #include
//   REALMT_CPU_KERNELS_BEGIN           // target avx2 / avx512 from here, and an inline namespace
//   namespace { ...kernels... }        //   per level, so no two copies share a symbol
//   REALMT_CPU_KERNELS_END
//   REALMT_REGISTER_KERNEL(...);       // registers this copy for its level (core/dispatch.h)
//
// The region only raises the target of the functions defined in it: headers stay outside it, so
// the out-of-line copies of inline and template functions the linker merges across files are
// baseline code, while small ones (fast_exp) are inlined and compiled for the level.
// KernelSlot::get then runs the highest copy at or below cpu_isa(). With -DREALMT_NATIVE=ON the
// whole build also has -march=native, so every copy may use the build machine's instructions.
//
// cpu_isa() is the CPU's best level, capped by the environment variable REALMT_CPU_ISA
// (baseline | avx2 | avx512), read once; asking for more than the CPU (or the build) has is an
// Error naming the variable.
#pragma once

#include <atomic>
#include <string>

namespace realmt {

enum class CpuIsa : int { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };
inline constexpr int kNumCpuIsas = 3;

const char* cpu_isa_name(CpuIsa isa);  // "baseline", "avx2", "avx512"

// What the CPU reports (CPUID, with the operating system's support for the registers).
struct CpuFeatures {
  bool avx2 = false, fma = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
  bool avx512_vnni = false, avx_vnni = false,
       avx512_bf16 = false;  // reported; int8 and bf16 kernels
  CpuIsa best() const;       // the highest level whose features are all present
  std::string str() const;   // the features present, e.g. "avx2 fma avx512f ..." ("none")
};

const CpuFeatures& cpu_features();  // this CPU's, detected once
// The highest level this build has kernel copies for: kAvx512 on x86-64 with GCC or Clang,
// kBaseline elsewhere.
CpuIsa cpu_isa_built();

// The level for REALMT_CPU_ISA's value `env` (null or empty: no cap) on a CPU with `features`
// and a build with copies up to `built`. Throws Error naming REALMT_CPU_ISA for a name that is
// no level, or a level above what the CPU or the build has.
CpuIsa resolve_cpu_isa(const char* env, const CpuFeatures& features, CpuIsa built);

// The level of this process: this CPU's best, capped by REALMT_CPU_ISA (throws as above).
CpuIsa cpu_isa_configured();

namespace detail {
extern std::atomic<int> g_cpu_isa;  // -1 until first use; then the level kernels run at
int init_cpu_isa();
}  // namespace detail

// The level CPU kernels run at now: cpu_isa_configured(), or a CpuIsaScope's level.
inline CpuIsa cpu_isa() {
  const int level = detail::g_cpu_isa.load(std::memory_order_relaxed);
  return static_cast<CpuIsa>(level >= 0 ? level : detail::init_cpu_isa());
}

// One line for --version and the benchmarks, e.g.
// "avx2 (CPU: avx2 fma; REALMT_CPU_ISA not set; portable build)". Throws as cpu_isa_configured.
std::string cpu_isa_summary();

// For tests: CPU kernels run at `isa` while this lives (process-wide: the Philox dropout stream
// checks the level inside parallel regions too). A level above what this CPU or build has is
// an Error; REALMT_CPU_ISA does not bound it.
class CpuIsaScope {
 public:
  explicit CpuIsaScope(CpuIsa isa);
  ~CpuIsaScope();
  CpuIsaScope(const CpuIsaScope&) = delete;
  CpuIsaScope& operator=(const CpuIsaScope&) = delete;

 private:
  int previous_;
};

}  // namespace realmt

// ---- kernel regions --------------------------------------------------------------------------
// REALMT_CPU_ISA_LEVEL is defined by the per-level copies CMake generates; the plain compile of
// a file is level 0. REALMT_CPU_ISA_NS names the level's inline namespace, also for a header
// whose functions are defined in a kernel region of another file (backend/cpu/int8_gemm.h):
// each copy of a caller then links the copy of its own level.
#ifndef REALMT_CPU_ISA_LEVEL
#define REALMT_CPU_ISA_LEVEL 0
#endif

// Not laid out by clang-format, which would split the _Pragma strings (_Pragma takes one literal).
// clang-format off
#if REALMT_CPU_ISA_LEVEL == 0
#define REALMT_CPU_ISA_NS isa_baseline
#define REALMT_CPU_KERNELS_BEGIN inline namespace isa_baseline {
#define REALMT_CPU_KERNELS_END }
#elif REALMT_CPU_ISA_LEVEL == 1 && defined(__clang__)
#define REALMT_CPU_ISA_NS isa_avx2
#define REALMT_CPU_KERNELS_BEGIN \
  _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)") inline namespace isa_avx2 {
#define REALMT_CPU_KERNELS_END } _Pragma("clang attribute pop")
#elif REALMT_CPU_ISA_LEVEL == 1 && defined(__GNUC__)
#define REALMT_CPU_ISA_NS isa_avx2
#define REALMT_CPU_KERNELS_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")") \
  inline namespace isa_avx2 {
#define REALMT_CPU_KERNELS_END } _Pragma("GCC pop_options")
#elif REALMT_CPU_ISA_LEVEL == 2 && defined(__clang__)
#define REALMT_CPU_ISA_NS isa_avx512
// (_Pragma takes one string literal: no concatenation.)
#define REALMT_CPU_KERNELS_BEGIN \
  _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,avx512f,avx512bw,avx512vl,avx512dq\"))), apply_to = function)") \
  inline namespace isa_avx512 {
#define REALMT_CPU_KERNELS_END } _Pragma("clang attribute pop")
#elif REALMT_CPU_ISA_LEVEL == 2 && defined(__GNUC__)
#define REALMT_CPU_ISA_NS isa_avx512
#define REALMT_CPU_KERNELS_BEGIN \
  _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma,avx512f,avx512bw,avx512vl,avx512dq\")") \
  inline namespace isa_avx512 {
#define REALMT_CPU_KERNELS_END } _Pragma("GCC pop_options")
#else
#error "REALMT_CPU_ISA_LEVEL above 0 needs GCC or Clang on x86-64 (src/CMakeLists.txt builds no such copy elsewhere)"
#endif
// clang-format on
