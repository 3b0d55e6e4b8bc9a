#include "ops/elementwise.h"

namespace realmt::ops {

BroadcastPlan plan_broadcast(const Shape& a, const Shape& b, const Shape& out) {
  const int r = out.rank();
  // Right-aligned strides of each operand over out's axes (0 where it broadcasts).
  std::array<int64_t, kMaxDims> sa{}, sb{};
  auto strides = [&](const Shape& s, std::array<int64_t, kMaxDims>& st) {
    int64_t stride = 1;
    for (int i = r - 1; i >= 0; --i) {
      const int j = s.rank() - r + i;
      const int64_t d = j >= 0 ? s[j] : 1;
      st[i] = (d == 1 && out[i] != 1) ? 0 : stride;
      stride *= d;
    }
  };
  strides(a, sa);
  strides(b, sb);
  // Collapse neighbouring axes that stay contiguous for both operands.
  BroadcastPlan p;
  p.numel = out.numel();
  for (int i = 0; i < r; ++i) {
    if (out[i] == 1) continue;  // size-1 axes carry no iteration
    if (p.rank > 0) {
      const int k = p.rank - 1;
      const bool a_ok = sa[i] * out[i] == p.stride_a[k] || (sa[i] == 0 && p.stride_a[k] == 0);
      const bool b_ok = sb[i] * out[i] == p.stride_b[k] || (sb[i] == 0 && p.stride_b[k] == 0);
      if (a_ok && b_ok) {
        p.dims[k] *= out[i];
        p.stride_a[k] = sa[i];
        p.stride_b[k] = sb[i];
        continue;
      }
    }
    p.dims[p.rank] = out[i];
    p.stride_a[p.rank] = sa[i];
    p.stride_b[p.rank] = sb[i];
    ++p.rank;
  }
  if (p.rank == 0) {  // a scalar result
    p.rank = 1;
    p.dims[0] = 1;
    p.stride_a[0] = p.stride_b[0] = 0;
  }
  return p;
}

namespace {

Tensor binary(const KernelSlot<BinaryKernel>& slot, const char* name, const Tensor& a,
              const Tensor& b) {
  check_defined(a, name, "a");
  check_defined(b, name, "b");
  check_same_device(a, b, name);
  REALMT_CHECK(a.dtype() == b.dtype(), "{}: dtypes differ ({} and {})", name, a.dtype(), b.dtype());
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor out = Tensor::empty(shape, a.dtype(), a.device());
  if (out.numel() > 0) slot.get(a.device())(a, b, out, plan_broadcast(a.shape(), b.shape(), shape));
  return out;
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return binary(add_kernel, "add", a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(sub_kernel, "sub", a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(mul_kernel, "mul", a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(div_kernel, "div", a, b); }

void add_(Tensor& dst, const Tensor& src) {
  check_defined(dst, "add_", "dst");
  check_defined(src, "add_", "src");
  check_same_device(dst, src, "add_");
  REALMT_CHECK(dst.dtype() == src.dtype(), "add_: dtypes differ ({} and {})", dst.dtype(),
               src.dtype());
  REALMT_CHECK(broadcast_shapes(dst.shape(), src.shape()) == dst.shape(),
               "add_: {} does not broadcast to the destination {}", src.shape(), dst.shape());
  // Elementwise kernels read a[i] before writing out[i], so out may alias a.
  if (dst.numel() > 0)
    add_kernel.get(dst.device())(dst, src, dst,
                                 plan_broadcast(dst.shape(), src.shape(), dst.shape()));
}

}  // namespace realmt::ops
