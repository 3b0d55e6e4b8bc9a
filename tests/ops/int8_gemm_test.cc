// The portable int8 GEMM (backend/cpu/int8_gemm_portable.cc, the int8 GEMM of a build without
// oneDNN) against a plain triple loop and against the build's gemm_u8s8s32 (oneDNN's where built
// with it), on shapes that take either of its two parallel splits, with strides wider than k.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "backend/cpu/int8_gemm.h"

namespace realmt {
namespace {

struct Shape {
  int64_t m, n, k;
};

void check_shape(const Shape& s) {
  const int64_t lda = s.k + 3, ldb = s.k + 5, ldc = s.n + 2;
  const int limit = cpu::int8_weight_limit();
  std::mt19937 rng(static_cast<uint32_t>(s.m * 131 + s.n * 7 + s.k));
  std::uniform_int_distribution<int> u8(0, 255), s8(-limit, limit);
  std::vector<uint8_t> a(s.m * lda);
  std::vector<int8_t> b(s.n * ldb);
  for (auto& v : a) v = static_cast<uint8_t>(u8(rng));
  for (auto& v : b) v = static_cast<int8_t>(s8(rng));
  std::vector<int32_t> portable(s.m * ldc, -7), built(s.m * ldc, -7);
  cpu::portable_gemm_u8s8s32(s.m, s.n, s.k, a.data(), lda, b.data(), ldb, portable.data(), ldc);
  cpu::gemm_u8s8s32(s.m, s.n, s.k, a.data(), lda, b.data(), ldb, built.data(), ldc);
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      int32_t want = 0;
      for (int64_t p = 0; p < s.k; ++p) want += int32_t(a[i * lda + p]) * int32_t(b[j * ldb + p]);
      ASSERT_EQ(portable[i * ldc + j], want)
          << s.m << "x" << s.n << "x" << s.k << " at " << i << "," << j;
      ASSERT_EQ(built[i * ldc + j], want) << cpu::int8_cpu_features() << " at " << i << "," << j;
    }
    for (int64_t j = s.n; j < ldc; ++j)
      ASSERT_EQ(portable[i * ldc + j], -7) << "wrote past row " << i;
  }
}

TEST(Int8Gemm, PortableEqualsPlainLoopAndBuiltGemm) {
  for (const Shape& s : {Shape{1, 1, 1}, Shape{3, 700, 64}, Shape{300, 40, 96}, Shape{64, 64, 513}})
    check_shape(s);
}

}  // namespace
}  // namespace realmt
