#include "case_util.h"
#include "graph/permute.h"
#include "ops/permute.h"

namespace realmt::test {
namespace {

// y[i] = x[j] with j[perm[a]] = i[a], element by element.
Tensor naive_permute(const Tensor& in, const std::vector<int>& perm) {
  Host x(in);
  const int r = x.shape.rank();
  std::vector<int> p(r);
  for (int a = 0; a < r; ++a) p[a] = perm[a] < 0 ? perm[a] + r : perm[a];
  std::vector<int64_t> dims(r);
  for (int a = 0; a < r; ++a) dims[a] = x.shape[p[a]];
  Host y{Shape(dims)};
  for (int64_t f = 0; f < y.shape.numel(); ++f) {
    const std::vector<int64_t> i = unravel(f, y.shape);
    std::vector<int64_t> j(r);
    for (int a = 0; a < r; ++a) j[p[a]] = i[a];
    y.v[f] = x.v[broadcast_index(x.shape, j)];
  }
  return y.tensor();
}

std::string perm_name(const std::vector<int>& perm) {
  std::string s;
  for (int a : perm) {
    if (a < 0) s += 'm';
    s += std::to_string(std::abs(a));
  }
  return s;
}

OpCase permute_case(const std::string& tag, Shape shape, std::vector<int> perm,
                    DType dtype = DType::kF32) {
  OpCase c;
  c.name = "permute/" + tag + "_" + perm_name(perm);
  InputSpec x;
  x.shape = shape;
  c.inputs = {x};
  c.dtype = dtype;
  c.run = [perm](const Tensors& in) { return Tensors{ops::permute(in[0], perm)}; };
  c.reference = [perm](const Tensors& in) { return Tensors{naive_permute(in[0], perm)}; };
  c.graph = [perm](const std::vector<graph::Var>& v) { return graph::permute(v[0], perm); };
  c.rtol = 0;
  c.atol = 1e-300;  // a copy: exact
  return c;
}

bool register_all() {
  register_case([] { return permute_case("rank1", {7}, {0}); });
  register_case([] { return permute_case("rank0", Shape{}, {}); });
  register_case([] { return permute_case("2d_tiles", {37, 45}, {1, 0}); });
  register_case([] { return permute_case("2d_large", {300, 257}, {1, 0}); });
  register_case([] { return permute_case("head_split", {2, 5, 3, 4}, {0, 2, 1, 3}); });
  register_case([] { return permute_case("head_merge", {2, 3, 5, 4}, {0, 2, 1, 3}); });
  register_case([] { return permute_case("head_split_big", {4, 33, 8, 64}, {0, 2, 1, 3}); });
  register_case([] { return permute_case("rank4", {2, 3, 4, 5}, {3, 1, 0, 2}); });
  register_case([] { return permute_case("keys_t", {2, 3, 5, 4}, {0, 1, 3, 2}); });
  register_case([] { return permute_case("negative", {3, 4, 5}, {-1, 0, 1}); });
  register_case([] { return permute_case("unit_axes", {1, 4, 1, 3}, {3, 2, 1, 0}); });
  register_case([] { return permute_case("rank6", {2, 1, 3, 2, 4, 3}, {5, 0, 3, 1, 4, 2}); });
  register_case([] { return permute_case("f16", {6, 35}, {1, 0}, DType::kF16); });
  register_case([] { return permute_case("bf16", {3, 4, 5}, {2, 0, 1}, DType::kBF16); });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

REALMT_OP_CASE(transpose_case) {
  OpCase c = permute_case("transpose", {2, 6, 5}, {0, 2, 1});
  c.name = "transpose/m1_m2";
  c.run = [](const Tensors& in) { return Tensors{ops::transpose(in[0], -1, -2)}; };
  c.graph = [](const std::vector<graph::Var>& v) { return graph::transpose(v[0], -1, -2); };
  return c;
}

// reshape between two permutes: the view's backward must hand the gradient back in x's shape.
REALMT_OP_CASE(reshape_case) {
  OpCase c = permute_case("reshape", {2, 3, 4}, {1, 0, 2});
  c.name = "reshape/split_last";
  const std::vector<int> p1{1, 0, 2}, p2{0, 2, 1, 3};
  c.run = [=](const Tensors& in) {
    return Tensors{ops::permute(ops::permute(in[0], p1).reshape({3, 2, 2, 2}), p2)};
  };
  c.reference = [=](const Tensors& in) {
    return Tensors{naive_permute(naive_permute(in[0], p1).reshape({3, 2, 2, 2}), p2)};
  };
  c.graph = [=](const std::vector<graph::Var>& v) {
    return graph::permute(graph::reshape(graph::permute(v[0], p1), {3, -1, 2, 2}), p2);
  };
  return c;
}

}  // namespace
}  // namespace realmt::test
