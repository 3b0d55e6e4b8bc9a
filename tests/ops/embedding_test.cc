// Embedding checks outside the harness: id errors, untouched rows, thread-count independence.
#include "ops/embedding.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "core/parallel.h"
#include "core/rng.h"

namespace realmt {
namespace {

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Embedding, IdOutsideVocabularyNamesPositionAndValue) {
  const Tensor w = Tensor::zeros({10, 4});
  const Tensor ids = Tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 10}, Shape{2, 3});
  const std::string msg = error_of([&] { ops::embedding(w, ids); });
  EXPECT_NE(msg.find("id 10 at position [1, 2]"), std::string::npos) << msg;
  const Tensor neg = Tensor::from_vector<int32_t>({0, -1}, Shape{2});
  const std::string back = error_of([&] {
    ops::embedding_backward(Tensor::zeros({2, 4}), neg, 10);
  });
  EXPECT_NE(back.find("id -1 at position [1]"), std::string::npos) << back;
  EXPECT_NE(error_of([&] { ops::embedding(w, Tensor::zeros({3})); }), "");  // f32 ids
  // dy [3, 4] does not match ids [2, 3].
  EXPECT_NE(error_of([&] { ops::embedding_backward(Tensor::zeros({3, 4}), ids, 11); }), "");
}

TEST(Embedding, LookupCopiesAnyDtype) {
  const Tensor w = Tensor::from_vector<int32_t>({0, 1, 10, 11, 20, 21}, Shape{3, 2});
  const Tensor y = ops::embedding(w, Tensor::from_vector<int32_t>({2, 0, 2}, Shape{3}));
  EXPECT_EQ(y.to_vector<int32_t>(), (std::vector<int32_t>{20, 21, 0, 1, 20, 21}));
}

TEST(Embedding, BackwardSumsRepeatsAndLeavesUnusedRowsZero) {
  const Tensor dy = Tensor::from_vector<float>({1, 2, 10, 20, 100, 200}, Shape{3, 2});
  const Tensor ids = Tensor::from_vector<int32_t>({3, 0, 3}, Shape{3});
  const Tensor dw = ops::embedding_backward(dy, ids, 5);
  EXPECT_EQ(dw.to_vector<float>(), (std::vector<float>{10, 20, 0, 0, 0, 0, 101, 202, 0, 0}));
}

TEST(Embedding, BackwardIsTheSameOnAnyNumberOfThreads) {
  Generator g(11);
  const int64_t positions = 4000, d = 200, vocab = 17;  // many repeats per row
  std::vector<float> dy(positions * d);
  std::vector<int32_t> ids(positions);
  for (float& e : dy) e = 2.0f * g.uniform() - 1.0f;
  for (int32_t& e : ids) e = static_cast<int32_t>(g.next_u32() % vocab);
  const Tensor tdy = Tensor::from_vector(dy, Shape{positions, d});
  const Tensor tids = Tensor::from_vector(ids, Shape{positions});
  const int saved = num_threads();
  std::vector<std::vector<float>> runs;
  for (int threads : {1, 2, 5}) {
    set_num_threads(threads);
    runs.push_back(ops::embedding_backward(tdy, tids, vocab).to_vector<float>());
  }
  set_num_threads(saved);
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

}  // namespace
}  // namespace realmt
