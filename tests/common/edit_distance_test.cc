#include "common/edit_distance.h"

#include <gtest/gtest.h>

namespace realmt {
namespace {

TEST(EditDistance, KnownDistances) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "abcd"), 4u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("enc-depth", "enc-depth"), 0u);
  EXPECT_EQ(edit_distance("enc-dpeth", "enc-depth"), 1u);  // adjacent swap costs 1
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);               // OSA, not full Damerau (which gives 2)
  EXPECT_EQ(edit_distance("learn-rate", "learning-rate"), 3u);
}

TEST(EditDistance, Symmetric) {
  const char* words[] = {"", "a", "dim-emb", "dim-vocabs", "beam-size", "after", "afetr"};
  for (const char* a : words)
    for (const char* b : words)
      EXPECT_EQ(edit_distance(a, b), edit_distance(b, a)) << a << " " << b;
}

TEST(EditDistance, ClosestName) {
  const std::vector<std::string> valid = {"enc-depth", "dec-depth", "dim-emb", "beam-size",
                                          "after"};
  EXPECT_EQ(closest_name("enc-dpeth", valid), "enc-depth");
  EXPECT_EQ(closest_name("dec-deep", valid), "dec-depth");
  EXPECT_EQ(closest_name("beamsize", valid), "beam-size");
  EXPECT_EQ(closest_name("afterr", valid), "after");
  EXPECT_EQ(closest_name("x", {}), "");
  // Ties go to the earlier name.
  EXPECT_EQ(closest_name("ab", {"aa", "bb"}), "aa");
  EXPECT_EQ(closest_name("ab", {"bb", "aa"}), "bb");
}

}  // namespace
}  // namespace realmt
