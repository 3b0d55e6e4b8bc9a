// oneDNN's int8 GEMM (backend/cpu/int8_gemm.h) runs at the process's CPU level: REALMT_CPU_ISA
// caps it too (ctest runs this binary again with REALMT_CPU_ISA=baseline,
// tests/ops/CMakeLists.txt), and the weight limit follows the ISA oneDNN then dispatches to (127
// with VNNI, 63 without).
#include <gtest/gtest.h>

#include <string>

#include "backend/cpu/int8_gemm.h"
#include "core/cpu_isa.h"

namespace realmt {
namespace {

TEST(Int8Isa, OneDnnFollowsTheProcessLevel) {
  const std::string isa = cpu::int8_cpu_features();
  if (isa.rfind("portable", 0) == 0) {  // a build without oneDNN: exact s32 sums, full 8-bit range
    EXPECT_EQ(cpu::int8_weight_limit(), 127);
    return;
  }
  // oneDNN's ISAs nest: avx512_core_bf16 and avx512_core_amx include avx512_core_vnni.
  const bool vnni =
      (isa.find("vnni") != std::string::npos && isa.find("no vnni") == std::string::npos) ||
      isa.rfind("avx512_core_bf16", 0) == 0 || isa.rfind("avx512_core_amx", 0) == 0;
  EXPECT_EQ(cpu::int8_weight_limit(), vnni ? 127 : 63) << isa;
  switch (cpu_isa_configured()) {
    case CpuIsa::kBaseline:
      EXPECT_TRUE(isa.rfind("sse41", 0) == 0 || isa.rfind("reference", 0) == 0) << isa;
      EXPECT_EQ(cpu::int8_weight_limit(), 63);
      break;
    case CpuIsa::kAvx2: EXPECT_EQ(isa.rfind("avx2", 0), 0u) << isa; break;
    case CpuIsa::kAvx512: EXPECT_EQ(isa.rfind("avx512", 0), 0u) << isa; break;
  }
}

}  // namespace
}  // namespace realmt
