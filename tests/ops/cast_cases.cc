#include <cmath>
#include <limits>

#include "case_util.h"
#include "graph/cast.h"
#include "ops/cast.h"

namespace realmt::test {
namespace {

// Round-to-nearest-even of v to a binary format with `mant` fraction bits, smallest normal
// exponent emin and largest finite value max, computed in double from the definition.
double round_binary(double v, int mant, int emin, double max) {
  if (!std::isfinite(v) || v == 0) return v;
  const int e = std::max(static_cast<int>(std::floor(std::log2(std::fabs(v)))), emin);
  const double ulp = std::ldexp(1.0, e - mant);
  const double r = std::nearbyint(v / ulp) * ulp;  // the default rounding mode: to nearest even
  return std::fabs(r) > max ? std::copysign(INFINITY, v) : r;
}

double reference_cast(double v, DType to) {
  switch (to) {
    case DType::kF64: return v;
    case DType::kF32: return round_binary(v, 23, -126, std::numeric_limits<float>::max());
    case DType::kF16: return round_binary(v, 10, -14, 65504.0);
    case DType::kBF16: return round_binary(v, 7, -126, std::ldexp(255.0, 120));
    case DType::kI32:
      if (std::isnan(v)) return 0;
      return std::clamp(std::trunc(v), -2147483648.0, 2147483647.0);
    case DType::kU8: return std::isnan(v) ? 0 : std::clamp(std::trunc(v), 0.0, 255.0);
    case DType::kI8: return std::isnan(v) ? 0 : std::clamp(std::trunc(v), -128.0, 127.0);
  }
  return v;
}

// Edge values for floating sources (each then rounded into the source dtype).
std::vector<double> float_edges() {
  const double t11 = std::ldexp(1.0, -11), t8 = std::ldexp(1.0, -8);
  return {0.0,
          -0.0,
          1.0,
          -1.0,
          0.5,
          1 + t11,
          1 + 3 * t11,
          1 + t11 + std::ldexp(1.0, -40),
          1 + t8,
          1 + 3 * t8,
          1 + t8 + std::ldexp(1.0, -20),
          65504,
          65519,
          65520,
          -65520,
          65535.9,
          1e5,
          -1e5,
          std::ldexp(1.0, -24),
          std::ldexp(1.0, -25),
          3 * std::ldexp(1.0, -25),
          6e-8,
          1e-40,
          3e38,
          -3.3e38,
          1e300,
          255.9,
          256,
          -1.5,
          -0.7,
          2.5,
          3e9,
          -3e9,
          16842753,
          INFINITY,
          -INFINITY,
          NAN};
}
std::vector<double> int_edges() {
  return {0,         1,        -1,       127,        255,
          256,       -129,     300,      65504,      65519,
          65520,     16777217, 16842753, 2147483647, -2147483647.0 - 1,
          123456789, -98765};
}

// Edge values followed by uniform ones in [-300, 300], stored in dtype `from`.
Tensor cast_input(Generator& g, DType from) {
  std::vector<double> v = is_floating(from) ? float_edges() : int_edges();
  for (int i = 0; i < 200; ++i) v.push_back(600.0 * g.uniform() - 300.0);
  Tensor t = Tensor::empty(Shape{static_cast<int64_t>(v.size())}, from);
  visit_dtype(from, [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < v.size(); ++i) {
      if constexpr (std::is_same_v<T, uint8_t>)
        t.data<T>()[i] = static_cast<uint8_t>(int64_t(v[i]) & 255);
      else if constexpr (std::is_same_v<T, int32_t>)
        t.data<T>()[i] = static_cast<int32_t>(v[i]);
      else
        t.data<T>()[i] = scalar_cast<T>(v[i]);
    }
  });
  return t;
}

OpCase cast_case(DType from, DType to) {
  OpCase c;
  c.name = std::string("cast/") + dtype_name(from) + "_to_" + dtype_name(to);
  InputSpec x;
  x.differentiable = false;
  x.make = [from](Generator& g, DType) { return cast_input(g, from); };
  c.inputs = {x};
  c.run = [to](const Tensors& in) { return Tensors{ops::cast(in[0], to)}; };
  c.reference = [from, to](const Tensors& in) {
    Host x(in[0]);
    for (double& v : x.v) {
      if (from == DType::kI32 && to == DType::kU8)
        v = static_cast<double>(int64_t(v) & 255);  // modulo
      else
        v = reference_cast(v, to);
    }
    return Tensors{x.tensor()};
  };
  c.rtol = 0;
  c.atol = 1e-300;  // exact
  return c;
}

bool register_all() {
  for (DType from : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI32, DType::kU8})
    for (DType to : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI32, DType::kU8})
      register_case([from, to] { return cast_case(from, to); });
  return true;
}
[[maybe_unused]] const bool registered = register_all();

// The gradient of a floating cast: f64 -> f32 -> f64 is the identity up to f32 rounding.
REALMT_OP_CASE(cast_gradient_case) {
  OpCase c;
  c.name = "cast/grad_f64_f32_f64";
  InputSpec x;
  x.shape = Shape{3, 5};
  c.inputs = {x};
  c.dtype = DType::kF32;
  c.run = [](const Tensors& in) {
    return Tensors{ops::cast(ops::cast(in[0], DType::kF64), DType::kF32)};
  };
  c.reference = [](const Tensors& in) { return Tensors{Host(in[0]).tensor()}; };
  c.graph = [](const std::vector<graph::Var>& v) {
    return graph::cast(graph::cast(v[0], DType::kF32), DType::kF64);
  };
  c.rtol = 0;
  c.atol = 1e-300;
  c.grad_eps = 1e-3;  // large against the f32 rounding inside the difference quotient
  c.grad_tol = 1e-3;
  return c;
}

}  // namespace
}  // namespace realmt::test
