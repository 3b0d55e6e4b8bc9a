// Cases of the bias helpers (ops/bias.h), graph::linear (bias written first, GEMM with
// beta = 1, gradients accumulated by the GEMMs) and the key/value cache copies (ops/kv_cache.h).
#include <gtest/gtest.h>

#include "case_util.h"
#include "graph/linear.h"
#include "ops/bias.h"
#include "ops/kv_cache.h"
#include "ops/slice.h"

namespace realmt::test {
namespace {

REALMT_OP_CASE(bias_fill_rows) {
  OpCase c;
  c.name = "bias/fill_rows";
  c.inputs = {constant(Shape{4, 3, 5}, -1, 1), constant(Shape{5}, -1, 1)};
  c.run = [](const Tensors& in) {
    Tensor y = in[0].clone();
    ops::fill_rows_(y, in[1]);
    return Tensors{y};
  };
  c.reference = [](const Tensors& in) {
    Host b(in[1]);
    Host y(in[0].shape());
    for (size_t e = 0; e < y.v.size(); ++e) y.v[e] = b.v[e % 5];
    return Tensors{y.tensor()};
  };
  return c;
}

REALMT_OP_CASE(bias_column_sums) {
  OpCase c;
  c.name = "bias/add_column_sums";
  c.inputs = {constant(Shape{37, 45}, -1, 1), constant(Shape{45}, -1, 1)};
  c.run = [](const Tensors& in) {
    Tensor out = in[1].clone();
    ops::add_column_sums_(in[0], out);
    return Tensors{out};
  };
  c.reference = [](const Tensors& in) {
    Host x(in[0]), out(in[1]);
    for (int64_t r = 0; r < 37; ++r)
      for (int64_t j = 0; j < 45; ++j) out.v[j] += x.v[r * 45 + j];
    return Tensors{out.tensor()};
  };
  return c;
}

OpCase linear_case(const std::string& name, bool bias) {
  OpCase c;
  c.name = "linear/" + name;
  c.inputs = {spec(Shape{2, 3, 4}, -1, 1), spec(Shape{4, 6}, -1, 1)};
  if (bias) c.inputs.push_back(spec(Shape{6}, -1, 1));
  auto forward = [bias](const std::vector<graph::Var>& v) {
    return graph::linear(v[0], v[1], bias ? v[2] : graph::Var());
  };
  c.run = [forward](const Tensors& in) {
    std::vector<graph::Var> v(in.begin(), in.end());
    return Tensors{forward(v).value()};
  };
  c.reference = [bias](const Tensors& in) {
    Host x(in[0]), w(in[1]);
    Host y(Shape{2, 3, 6});
    for (int64_t r = 0; r < 6; ++r)
      for (int64_t j = 0; j < 6; ++j) {
        double acc = bias ? Host(in[2]).v[j] : 0.0;
        for (int64_t k = 0; k < 4; ++k) acc += x.v[r * 4 + k] * w.v[k * 6 + j];
        y.v[r * 6 + j] = acc;
      }
    return Tensors{y.tensor()};
  };
  c.graph = forward;
  return c;
}

// gather_rows_ as the beams reorder: a [R, H, capacity, Dh] cache whose first `length`
// positions move (rows swap, repeat and widen: staged, direct and in-place moves in one call),
// and a [R, S, C] tensor whose rows move whole.
REALMT_OP_CASE(kv_cache_gather_rows) {
  OpCase c;
  c.name = "kv_cache/gather_rows";
  constexpr int64_t r = 5, h = 2, cap = 4, dh = 3, length = 3, s_len = 2, cols = 5;
  static const std::vector<int32_t> rows = {1, 0, 0, 3, 2};
  c.inputs = {constant(Shape{r, h, cap, dh}, -1, 1), constant(Shape{r, s_len, cols}, -1, 1)};
  c.run = [](const Tensors& in) {
    Tensor cache = in[0].clone(), source = in[1].clone(), scratch;
    ops::gather_rows_(cache, rows, length, scratch);
    ops::gather_rows_(source, rows, 0, scratch);
    return Tensors{ops::slice(cache, 2, 0, length), source};  // positions past `length` unspecified
  };
  c.reference = [](const Tensors& in) {
    Host cache(in[0]), source(in[1]), moved_cache(Shape{r, h, length, dh}),
        moved_source(Shape{r, s_len, cols});
    for (int64_t i = 0; i < r; ++i) {
      for (int64_t k = 0; k < h; ++k)
        for (int64_t t = 0; t < length; ++t)
          for (int64_t e = 0; e < dh; ++e)
            moved_cache.v[((i * h + k) * length + t) * dh + e] =
                cache.v[((rows[i] * h + k) * cap + t) * dh + e];
      for (int64_t j = 0; j < s_len * cols; ++j)
        moved_source.v[i * s_len * cols + j] = source.v[rows[i] * s_len * cols + j];
    }
    return Tensors{moved_cache.tensor(), moved_source.tensor()};
  };
  return c;
}

REALMT_OP_CASE(linear_bias) { return linear_case("bias", true); }
REALMT_OP_CASE(linear_no_bias) { return linear_case("no_bias", false); }

// kv_cache_write of rows [N, Tq, C] at column 2 and position 1 into a [N, H, 5, Dh] cache,
// then kv_cache_resize to capacity 7 keeping 3 rows.
REALMT_OP_CASE(kv_cache_write_resize) {
  OpCase c;
  c.name = "kv_cache/write_resize";
  constexpr int64_t n = 2, h = 2, dh = 3, tq = 2, cols = 9;
  c.inputs = {constant(Shape{n, h, 5, dh}, -1, 1), constant(Shape{n, tq, cols}, -1, 1)};
  c.run = [](const Tensors& in) {
    Tensor cache = in[0].clone();
    ops::kv_cache_write(cache, in[1], 2, 1);
    const Tensor grown = ops::kv_cache_resize(cache, 3, 7);
    EXPECT_EQ(grown.dim(2), 7);
    return Tensors{cache, ops::slice(grown, 2, 0, 3)};  // rows [3, 7) are unspecified
  };
  c.reference = [](const Tensors& in) {
    Host cache(in[0]), rows(in[1]);
    for (int64_t a = 0; a < n; ++a)
      for (int64_t k = 0; k < h; ++k)
        for (int64_t t = 0; t < tq; ++t)
          for (int64_t e = 0; e < dh; ++e)
            cache.v[((a * h + k) * 5 + 1 + t) * dh + e] =
                rows.v[(a * tq + t) * cols + 2 + k * dh + e];
    Host grown(Shape{n, h, 3, dh});
    for (int64_t a = 0; a < n; ++a)
      for (int64_t k = 0; k < h; ++k)
        for (int64_t t = 0; t < 3; ++t)
          for (int64_t e = 0; e < dh; ++e)
            grown.v[((a * h + k) * 3 + t) * dh + e] = cache.v[((a * h + k) * 5 + t) * dh + e];
    return Tensors{cache.tensor(), grown.tensor()};
  };
  return c;
}

}  // namespace
}  // namespace realmt::test
