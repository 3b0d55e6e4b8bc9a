// CPU feature detection and the REALMT_CPU_ISA cap (core/cpu_isa.h).
#include "core/cpu_isa.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "core/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

// Set by src/CMakeLists.txt: the highest level the kernel files are compiled for, and whether
// the build has -march=native.
#ifndef REALMT_CPU_ISA_BUILT
#define REALMT_CPU_ISA_BUILT 0
#endif
#ifndef REALMT_NATIVE_BUILD
#define REALMT_NATIVE_BUILD 0
#endif

namespace realmt {

namespace detail {
std::atomic<int> g_cpu_isa{-1};
}  // namespace detail

namespace {

constexpr const char* kEnvName = "REALMT_CPU_ISA";

CpuFeatures detect() {
  CpuFeatures f;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  // libgcc's and compiler-rt's tables also check that the OS saves the AVX / AVX-512 registers
  // (XGETBV), so a feature reported here is usable.
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.avx512f = __builtin_cpu_supports("avx512f");
  f.avx512bw = __builtin_cpu_supports("avx512bw");
  f.avx512vl = __builtin_cpu_supports("avx512vl");
  f.avx512dq = __builtin_cpu_supports("avx512dq");
  f.avx512_vnni = __builtin_cpu_supports("avx512vnni");
  // AVX-VNNI (CPUID leaf 7, sub-leaf 1, EAX bit 4) by CPUID: Clang before 15 has no "avxvnni"
  // name for __builtin_cpu_supports. It uses the AVX registers, whose OS support avx2 implies.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  f.avx_vnni =
      f.avx2 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) != 0 && (eax & (1u << 4)) != 0;
  f.avx512_bf16 = __builtin_cpu_supports("avx512bf16");
#endif
  return f;
}

// The features of `isa` this CPU lacks, e.g. "avx512f avx512bw" ("" when it has them all).
std::string missing(CpuIsa isa, const CpuFeatures& f) {
  std::string out;
  auto need = [&](bool have, const char* name) {
    if (have) return;
    if (!out.empty()) out += ' ';
    out += name;
  };
  if (isa >= CpuIsa::kAvx2) {
    need(f.avx2, "avx2");
    need(f.fma, "fma");
  }
  if (isa >= CpuIsa::kAvx512) {
    need(f.avx512f, "avx512f");
    need(f.avx512bw, "avx512bw");
    need(f.avx512vl, "avx512vl");
    need(f.avx512dq, "avx512dq");
  }
  return out;
}

// Why `isa` cannot run here ("" when it can).
std::string unavailable(CpuIsa isa, const CpuFeatures& f, CpuIsa built) {
  if (isa > built)
    return format("this build has no {} kernels (it has up to {}: not x86-64, or not GCC or Clang)",
                  cpu_isa_name(isa), cpu_isa_name(built));
  const std::string lacks = missing(isa, f);
  if (!lacks.empty())
    return format("this CPU lacks {} (it has {}; its highest level is {})", lacks, f.str(),
                  cpu_isa_name(f.best()));
  return "";
}

}  // namespace

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kBaseline: return "baseline";
    case CpuIsa::kAvx2: return "avx2";
    case CpuIsa::kAvx512: return "avx512";
  }
  return "?";
}

CpuIsa CpuFeatures::best() const {
  if (missing(CpuIsa::kAvx512, *this).empty()) return CpuIsa::kAvx512;
  if (missing(CpuIsa::kAvx2, *this).empty()) return CpuIsa::kAvx2;
  return CpuIsa::kBaseline;
}

std::string CpuFeatures::str() const {
  const std::pair<bool, const char*> all[] = {{avx2, "avx2"},
                                              {fma, "fma"},
                                              {avx512f, "avx512f"},
                                              {avx512bw, "avx512bw"},
                                              {avx512vl, "avx512vl"},
                                              {avx512dq, "avx512dq"},
                                              {avx512_vnni, "avx512vnni"},
                                              {avx_vnni, "avxvnni"},
                                              {avx512_bf16, "avx512bf16"}};
  std::string out;
  for (const auto& [have, name] : all) {
    if (!have) continue;
    if (!out.empty()) out += ' ';
    out += name;
  }
  return out.empty() ? "none of avx2, fma, avx512" : out;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = detect();
  return f;
}

CpuIsa cpu_isa_built() { return static_cast<CpuIsa>(REALMT_CPU_ISA_BUILT); }

CpuIsa resolve_cpu_isa(const char* env, const CpuFeatures& features, CpuIsa built) {
  const CpuIsa top = std::min(features.best(), built);
  if (env == nullptr || *env == '\0') return top;
  for (int i = 0; i < kNumCpuIsas; ++i) {
    const CpuIsa isa = static_cast<CpuIsa>(i);
    if (std::strcmp(env, cpu_isa_name(isa)) != 0) continue;
    const std::string why = unavailable(isa, features, built);
    REALMT_CHECK(
        why.empty(),
        "{}={} asks for more than this machine has: {}; set {} to one of baseline..{} or unset it",
        kEnvName, env, why, kEnvName, cpu_isa_name(top));
    return isa;
  }
  REALMT_FAIL(
      "{}='{}' is not a CPU kernel level: use baseline, avx2 or avx512 (or unset it for the CPU's "
      "best)",
      kEnvName, env);
}

CpuIsa cpu_isa_configured() {
  // Not cached on failure: every caller sees the error.
  static const CpuIsa isa = resolve_cpu_isa(std::getenv(kEnvName), cpu_features(), cpu_isa_built());
  return isa;
}

int detail::init_cpu_isa() {
  const int level = static_cast<int>(cpu_isa_configured());
  int expected = -1;
  // A CpuIsaScope may have set the level meanwhile: keep it.
  if (!g_cpu_isa.compare_exchange_strong(expected, level)) return expected;
  return level;
}

std::string cpu_isa_summary() {
  const char* env = std::getenv(kEnvName);
  const CpuIsa isa = cpu_isa_configured();
  return format("{} (CPU: {}; {}; {} build)", cpu_isa_name(isa), cpu_features().str(),
                env && *env ? format("{}={}", kEnvName, env) : format("{} not set", kEnvName),
                REALMT_NATIVE_BUILD ? "-march=native" : "portable");
}

CpuIsaScope::CpuIsaScope(CpuIsa isa) : previous_(static_cast<int>(cpu_isa())) {
  const std::string why = unavailable(isa, cpu_features(), cpu_isa_built());
  REALMT_CHECK(why.empty(), "CPU kernel level {} asked for: {}", cpu_isa_name(isa), why);
  detail::g_cpu_isa.store(static_cast<int>(isa));
}

CpuIsaScope::~CpuIsaScope() { detail::g_cpu_isa.store(previous_); }

}  // namespace realmt
