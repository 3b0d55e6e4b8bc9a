// NumPy default_rng(12345) test vectors, bit for bit.
#include <gtest/gtest.h>

#include "metrics/numpy_rng.h"
#include "metrics/significance.h"

namespace realmt::metrics {
namespace {

TEST(NumpyRng, SeedSequenceAndPcg64) {
  const auto u = NumpyRng::seed_sequence_state(12345);
  EXPECT_EQ(u, (std::vector<uint64_t>{0xb5ae6482a03d837cULL, 0xbbe2996ffa1f7a2fULL,
                                      0x64e39a9f37158f94ULL, 0x3ebb0f96a013fd73ULL}));
  NumpyRng rng(12345);
  EXPECT_EQ(rng.next64(), 0x3a32b18db2ffc19dULL);
  EXPECT_EQ(rng.next64(), 0x51171315c9e4c4deULL);
  EXPECT_EQ(rng.next64(), 0xcc2024823444efd9ULL);
}

TEST(NumpyRng, Choice) {
  EXPECT_EQ(NumpyRng(12345).choice(3, 2), (std::vector<uint32_t>{2, 0, 2, 0, 0, 2}));
  EXPECT_EQ(NumpyRng(12345).choice(10, 1), (std::vector<uint32_t>{6, 2, 7, 3, 2, 7, 6, 6, 9, 3}));
  EXPECT_EQ(NumpyRng(12345).choice(5, 3),
            (std::vector<uint32_t>{3, 1, 3, 1, 1, 3, 3, 3, 4, 1, 4, 1, 2, 2, 1}));
  NumpyRng r(12345);
  std::vector<uint32_t> first8;
  for (int i = 0; i < 8; ++i) first8.push_back(r.bounded(3004));
  EXPECT_EQ(first8, (std::vector<uint32_t>{2100, 682, 2369, 951, 613, 2395, 1930, 2031}));
  NumpyRng one(12345);
  EXPECT_EQ(one.bounded(1), 0u);  // draws nothing
  EXPECT_EQ(one.next64(), 0x3a32b18db2ffc19dULL);
}

TEST(NumpyRng, Bools) {
  const auto b = NumpyRng(12345).bools(1, 40);
  std::string bits;
  for (auto v : b) bits += v ? '1' : '0';
  // NumPy 2.4 output; a specification we worked from misprinted the last 6 bits as ...111000.
  EXPECT_EQ(bits, "1011100110000011111111110100110110110001");
}

TEST(Significance, NumpyPairwiseSum) {
  // 0.1 added 1000 times: pairwise summation differs from a sequential loop in the last bits.
  std::vector<double> v(1000, 0.1);
  double seq = 0;
  for (double x : v) seq += x;
  const double pw = numpy_pairwise_sum(v, false);
  EXPECT_EQ(pw, 100.00000000000001);  // np.full(1000, 0.1).sum()
  EXPECT_NE(pw, seq);
}

}  // namespace
}  // namespace realmt::metrics
