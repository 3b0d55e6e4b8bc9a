// CPU kernel levels (core/cpu_isa.h): the REALMT_CPU_ISA cap on made-up CPUs, refusals that name
// the variable, the test scope, and KernelSlot's choice of the copy for a level.
#include "core/cpu_isa.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/dispatch.h"
#include "core/error.h"

namespace realmt {
namespace {

CpuFeatures avx2_cpu() {
  CpuFeatures f;
  f.avx2 = f.fma = true;
  return f;
}

CpuFeatures avx512_cpu() {
  CpuFeatures f = avx2_cpu();
  f.avx512f = f.avx512bw = f.avx512vl = f.avx512dq = true;
  return f;
}

// The message of the Error that fn throws ("" if none).
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(CpuIsa, BestLevelNeedsEveryFeature) {
  EXPECT_EQ(CpuFeatures{}.best(), CpuIsa::kBaseline);
  EXPECT_EQ(avx2_cpu().best(), CpuIsa::kAvx2);
  EXPECT_EQ(avx512_cpu().best(), CpuIsa::kAvx512);
  CpuFeatures no_fma = avx2_cpu();
  no_fma.fma = false;
  EXPECT_EQ(no_fma.best(), CpuIsa::kBaseline);
  CpuFeatures no_bw = avx512_cpu();  // e.g. Xeon Phi: AVX-512 F without BW
  no_bw.avx512bw = false;
  EXPECT_EQ(no_bw.best(), CpuIsa::kAvx2);
}

TEST(CpuIsa, UnsetVariableGivesTheCpusBestWithinTheBuild) {
  EXPECT_EQ(resolve_cpu_isa(nullptr, avx512_cpu(), CpuIsa::kAvx512), CpuIsa::kAvx512);
  EXPECT_EQ(resolve_cpu_isa("", avx2_cpu(), CpuIsa::kAvx512), CpuIsa::kAvx2);
  EXPECT_EQ(resolve_cpu_isa(nullptr, CpuFeatures{}, CpuIsa::kAvx512), CpuIsa::kBaseline);
  EXPECT_EQ(resolve_cpu_isa(nullptr, avx512_cpu(), CpuIsa::kBaseline),
            CpuIsa::kBaseline);  // non-x86 build
}

TEST(CpuIsa, VariableCapsTheLevel) {
  EXPECT_EQ(resolve_cpu_isa("baseline", avx512_cpu(), CpuIsa::kAvx512), CpuIsa::kBaseline);
  EXPECT_EQ(resolve_cpu_isa("avx2", avx512_cpu(), CpuIsa::kAvx512), CpuIsa::kAvx2);
  EXPECT_EQ(resolve_cpu_isa("avx512", avx512_cpu(), CpuIsa::kAvx512), CpuIsa::kAvx512);
  EXPECT_EQ(resolve_cpu_isa("avx2", avx2_cpu(), CpuIsa::kAvx512), CpuIsa::kAvx2);
}

TEST(CpuIsa, LevelAboveTheCpuIsRefusedNamingTheVariable) {
  const std::string m = error_of([] { resolve_cpu_isa("avx512", avx2_cpu(), CpuIsa::kAvx512); });
  EXPECT_NE(m.find("REALMT_CPU_ISA=avx512"), std::string::npos) << m;
  EXPECT_NE(m.find("lacks avx512f avx512bw avx512vl avx512dq"), std::string::npos) << m;
  EXPECT_NE(m.find("baseline..avx2"), std::string::npos) << m;
  const std::string m2 = error_of([] { resolve_cpu_isa("avx2", CpuFeatures{}, CpuIsa::kAvx512); });
  EXPECT_NE(m2.find("REALMT_CPU_ISA=avx2"), std::string::npos) << m2;
  EXPECT_NE(m2.find("lacks avx2 fma"), std::string::npos) << m2;
}

TEST(CpuIsa, LevelAboveTheBuildIsRefused) {
  const std::string m = error_of([] { resolve_cpu_isa("avx2", avx512_cpu(), CpuIsa::kBaseline); });
  EXPECT_NE(m.find("REALMT_CPU_ISA=avx2"), std::string::npos) << m;
  EXPECT_NE(m.find("this build has no avx2 kernels"), std::string::npos) << m;
}

TEST(CpuIsa, UnknownNameIsRefused) {
  for (const char* bad : {"avx", "AVX2", "sse2", "native"}) {
    const std::string m = error_of([bad] { resolve_cpu_isa(bad, avx512_cpu(), CpuIsa::kAvx512); });
    EXPECT_NE(m.find("REALMT_CPU_ISA='" + std::string(bad) + "' is not a CPU kernel level"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("baseline, avx2 or avx512"), std::string::npos) << m;
  }
}

TEST(CpuIsa, ScopeSetsAndRestoresTheLevel) {
  const CpuIsa before = cpu_isa();
  {
    const CpuIsaScope scope(CpuIsa::kBaseline);
    EXPECT_EQ(cpu_isa(), CpuIsa::kBaseline);
  }
  EXPECT_EQ(cpu_isa(), before);
  EXPECT_EQ(before, cpu_isa_configured());
}

TEST(CpuIsa, ScopeAboveTheCpuIsRefused) {
  const CpuIsa top = std::min(cpu_features().best(), cpu_isa_built());
  if (top == CpuIsa::kAvx512) GTEST_SKIP() << "this CPU and build run every level";
  const CpuIsa above = static_cast<CpuIsa>(static_cast<int>(top) + 1);
  const std::string m = error_of([above] { const CpuIsaScope scope(above); });
  EXPECT_NE(m.find(std::string("CPU kernel level ") + cpu_isa_name(above) + " asked for"),
            std::string::npos)
      << m;
  EXPECT_EQ(cpu_isa(), cpu_isa_configured()) << "a refused scope changed the level";
}

TEST(CpuIsa, SummaryNamesLevelCpuAndCap) {
  const std::string s = cpu_isa_summary();
  EXPECT_EQ(s.rfind(cpu_isa_name(cpu_isa_configured()), 0), 0u) << s;
  EXPECT_NE(s.find("REALMT_CPU_ISA"), std::string::npos) << s;
  EXPECT_NE(s.find(" build)"), std::string::npos) << s;
}

// KernelSlot: the copy of the level asked for, else the highest below it.
int level0() { return 0; }
int level1() { return 1; }
int level2() { return 2; }

TEST(CpuIsa, SlotPicksTheCopyOfTheLevel) {
  KernelSlot<int()> slot("test_kernel");
  slot.set(DeviceType::kCpu, level0, 0);
  slot.set(DeviceType::kCpu, level1, 1);
  EXPECT_TRUE(slot.has(DeviceType::kCpu));
  EXPECT_EQ(slot.cpu_kernel(CpuIsa::kBaseline)(), 0);
  EXPECT_EQ(slot.cpu_kernel(CpuIsa::kAvx2)(), 1);
  EXPECT_EQ(slot.cpu_kernel(CpuIsa::kAvx512)(), 1);  // no avx512 copy: the avx2 one
  slot.set(DeviceType::kCpu, level2, 2);
  EXPECT_EQ(slot.cpu_kernel(CpuIsa::kAvx512)(), 2);
  {
    const CpuIsaScope scope(CpuIsa::kBaseline);
    EXPECT_EQ(slot.get(Device::cpu())(), 0);
  }
  EXPECT_EQ(slot.get(Device::cpu())(), static_cast<int>(cpu_isa()));
}

}  // namespace
}  // namespace realmt
