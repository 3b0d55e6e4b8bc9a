#include "core/rng.h"

#include "core/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace realmt {
namespace {

// Known-answer vectors of Philox-4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(philox4x32_10(0, 0, 0),
            (PhiloxBlock{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(philox4x32_10(~0ull, ~0ull, ~0ull),
            (PhiloxBlock{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  // counter {243f6a88, 85a308d3, 13198a2e, 03707344}, key {a4093822, 299f31d0}
  EXPECT_EQ(philox4x32_10(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull),
            (PhiloxBlock{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

TEST(Philox, StreamIsPureFunctionOfSeedAndIndex) {
  Generator a(7), b(7);
  const uint64_t oa = a.reserve(10), ob = b.reserve(10);
  ASSERT_EQ(oa, ob);
  for (uint64_t i = 0; i < 10; ++i) EXPECT_EQ(philox_u32(7, oa + i), philox_u32(7, ob + i));
  EXPECT_NE(philox_u32(7, 0), philox_u32(8, 0));
  EXPECT_EQ(a.offset(), 12u);  // rounded up to whole blocks of 4
}

TEST(Philox, UniformMomentsAndRange) {
  Generator g(42);
  double sum = 0, sum2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const float u = g.uniform();
    ASSERT_GE(u, 0.0f);
    ASSERT_LT(u, 1.0f);
    sum += u;
    sum2 += double(u) * u;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  // Standard error of the mean is sqrt(1/12/n) ~ 6.5e-4; allow 5 sigma.
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 0.002);
}

TEST(Generator, StateRoundTrips) {
  Generator g(5);
  g.reserve(123);
  Generator h;
  h.restore(g.state_string());
  EXPECT_EQ(h.seed(), 5u);
  EXPECT_EQ(h.offset(), g.offset());
  EXPECT_EQ(h.next_u32(), g.next_u32());
  EXPECT_THROW(h.restore("12"), Error);
  EXPECT_THROW(h.restore("x:1"), Error);
  EXPECT_THROW(h.restore("1:"), Error);
}

}  // namespace
}  // namespace realmt
