#include "ops/permute.h"

#include <numeric>

namespace realmt::ops {

namespace {

// Normalised perm; throws naming the perm and shape when it is not a permutation of the axes.
std::vector<int> normalize_perm(const Shape& x, const std::vector<int>& perm) {
  const int r = x.rank();
  auto text = [&] {
    std::string s = "{";
    for (size_t i = 0; i < perm.size(); ++i) s += (i ? ", " : "") + std::to_string(perm[i]);
    return s + "}";
  };
  REALMT_CHECK(static_cast<int>(perm.size()) == r,
               "permute: perm {} has {} entries for x {} of rank {}", text(), perm.size(), x, r);
  std::vector<int> p(r);
  std::vector<bool> seen(r, false);
  for (int i = 0; i < r; ++i) {
    REALMT_CHECK(perm[i] >= -r && perm[i] < r,
                 "permute: axis {} in perm {} is out of range for x {}", perm[i], text(), x);
    p[i] = perm[i] < 0 ? perm[i] + r : perm[i];
    REALMT_CHECK(!seen[p[i]], "permute: perm {} repeats axis {} (x {})", text(), p[i], x);
    seen[p[i]] = true;
  }
  return p;
}

}  // namespace

PermutePlan plan_permute(const Shape& x, const std::vector<int>& perm) {
  const std::vector<int> p = normalize_perm(x, perm);
  const int r = x.rank();
  std::vector<int64_t> stride(r);
  for (int64_t s = 1, i = r - 1; i >= 0; --i) {
    stride[i] = s;
    s *= x[static_cast<int>(i)];
  }
  PermutePlan plan;
  plan.rank = 0;
  plan.numel = x.numel();
  for (int i = 0; i < r; ++i) {
    const int64_t d = x[p[i]], s = stride[p[i]];
    if (d == 1) continue;  // extent-1 axes move nothing
    if (plan.rank > 0) {
      const int k = plan.rank - 1;
      // Output axes k and i are neighbours in x too: one axis of d_k * d elements, stride s.
      if (plan.x_strides[k] == s * d) {
        plan.dims[k] *= d;
        plan.x_strides[k] = s;
        continue;
      }
    }
    plan.dims[plan.rank] = d;
    plan.x_strides[plan.rank] = s;
    ++plan.rank;
  }
  if (plan.rank == 0) {  // every extent is 1 (or rank 0): a copy of one element
    plan.rank = 1;
    plan.dims[0] = 1;
    plan.x_strides[0] = 1;
  }
  for (int a = 0; a < plan.rank; ++a)
    if (plan.x_strides[a] == 1) plan.x_unit = a;
  return plan;
}

Tensor permute(const Tensor& x, const std::vector<int>& perm) {
  check_defined(x, "permute", "x");
  const PermutePlan plan = plan_permute(x.shape(), perm);
  std::vector<int64_t> dims(x.rank());
  for (int i = 0; i < x.rank(); ++i) dims[i] = x.dim(perm[i]);
  Tensor y = Tensor::empty(Shape(dims), x.dtype(), x.device());
  if (y.numel() > 0) permute_kernel.get(x.device())(x, plan, y);
  return y;
}

Tensor transpose(const Tensor& x, int a, int b) {
  check_defined(x, "transpose", "x");
  const int r = x.rank();
  REALMT_CHECK(a >= -r && a < r && b >= -r && b < r,
               "transpose: axes {} and {} out of range for x {}", a, b, x.shape());
  std::vector<int> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[a < 0 ? a + r : a], perm[b < 0 ? b + r : b]);
  return permute(x, perm);
}

}  // namespace realmt::ops
