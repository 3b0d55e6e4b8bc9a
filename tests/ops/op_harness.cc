#include "op_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/cpu_isa.h"
#include "core/runtime.h"
#include "graph/elementwise.h"
#include "graph/reduce.h"
#include "ops/cast.h"

namespace realmt::test {

namespace {
std::vector<std::function<OpCase()>>& makers() {
  static std::vector<std::function<OpCase()>> m;
  return m;
}
}  // namespace

bool register_case(std::function<OpCase()> maker) {
  makers().push_back(std::move(maker));
  return true;
}

std::vector<OpCase> all_cases() {
  std::vector<OpCase> out;
  for (auto& m : makers()) out.push_back(m());
  std::sort(out.begin(), out.end(),
            [](const OpCase& a, const OpCase& b) { return a.name < b.name; });
  return out;
}

Tensor f64_tensor(const Shape& shape, const std::vector<double>& values) {
  return Tensor::from_vector(values, shape);
}

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v(t.numel());
  Tensor h = t.to(Device::cpu());
  visit_dtype(h.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = h.data<T>();
    for (int64_t i = 0; i < h.numel(); ++i) v[i] = scalar_cast<double>(p[i]);
  });
  return v;
}

Tensors make_inputs(const OpCase& c, DType float_dtype, uint64_t seed) {
  Generator gen(seed);
  Tensors out;
  for (const InputSpec& s : c.inputs) {
    if (s.make) {
      Tensor t = s.make(gen, float_dtype);
      out.push_back(t);
      continue;
    }
    if (s.integer) {
      std::vector<int32_t> v(s.shape.numel());
      for (auto& x : v) x = static_cast<int32_t>(s.lo + std::floor(gen.uniform() * (s.hi - s.lo)));
      out.push_back(Tensor::from_vector(v, s.shape));
      continue;
    }
    std::vector<double> v(s.shape.numel());
    for (auto& x : v) x = s.lo + (s.hi - s.lo) * gen.uniform();
    Tensor t64 = Tensor::from_vector(v, s.shape);
    Tensor t = Tensor::empty(s.shape, float_dtype);
    visit_dtype(float_dtype, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = scalar_cast<T>(v[i]);
    });
    out.push_back(t);
  }
  return out;
}

std::string compare(const Tensor& got, const Tensor& want, double rtol, double atol) {
  if (got.shape() != want.shape())
    return "shape " + got.shape().str() + " != expected " + want.shape().str();
  const std::vector<double> g = to_doubles(got), w = to_doubles(want);
  double worst = 0;
  int64_t at = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    const bool both_inf = std::isinf(g[i]) && std::isinf(w[i]) && (g[i] > 0) == (w[i] > 0);
    const bool both_nan = std::isnan(g[i]) && std::isnan(w[i]);
    if (both_inf || both_nan) continue;
    const double err = std::abs(g[i] - w[i]) / (atol + rtol * std::abs(w[i]));
    if (!(err <= 1.0) && !(err <= worst)) {
      worst = std::isnan(err) ? INFINITY : err;
      at = static_cast<int64_t>(i);
    }
  }
  if (at < 0) return "";
  std::ostringstream os;
  os.precision(10);
  os << "element " << at << ": got " << g[at] << ", expected " << w[at] << " (rtol " << rtol
     << ", atol " << atol << ")";
  return os.str();
}

namespace {

class OpTest : public ::testing::TestWithParam<OpCase> {};
// The cases whose backward kernels the GPU check compares: differentiable, in f32 or f64 (the
// CPU's backward kernels take those). Only these are registered, so that on a GPU machine every
// registered case runs and a skip means something (tests/device_check.sh fails on any).
class OpGradTest : public ::testing::TestWithParam<OpCase> {};
std::vector<OpCase> gradient_cases() {
  std::vector<OpCase> out;
  for (OpCase& c : all_cases())
    if (c.graph && (c.dtype == DType::kF32 || c.dtype == DType::kF64)) out.push_back(std::move(c));
  return out;
}

// The CPU kernel levels this machine runs (core/cpu_isa.h), lowest first: baseline up to the
// level of this process (the CPU's best, or REALMT_CPU_ISA's cap).
std::vector<CpuIsa> cpu_levels() {
  std::vector<CpuIsa> out;
  for (int i = 0; i <= static_cast<int>(cpu_isa_configured()); ++i)
    out.push_back(static_cast<CpuIsa>(i));
  return out;
}

// The input gradients of the case's graph function on `device`, in the case's dtype, for
// loss = sum(y * w) with fixed random weights w.
Tensors input_gradients(const OpCase& c, const Tensors& in, Device device) {
  std::vector<graph::Var> vars;
  for (size_t i = 0; i < in.size(); ++i)
    vars.emplace_back(in[i].to(device), is_floating(in[i].dtype()) && c.inputs[i].differentiable);
  const graph::Var y = c.graph(vars);
  Generator g(99);
  std::vector<double> wv(y.value().numel());
  for (auto& x : wv) x = 2.0 * g.uniform() - 1.0;
  const Tensor w = ops::cast(Tensor::from_vector(wv, y.shape()), y.dtype()).to(device);
  graph::backward(graph::sum_all(graph::mul(y, graph::Var(w))));
  Tensors grads;
  for (const graph::Var& v : vars)
    if (v.requires_grad()) grads.push_back(v.grad());
  return grads;
}

}  // namespace

// gtest prints a case by its name, not its bytes.
void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

namespace {

// The CPU kernels at every level this CPU runs (baseline, avx2, avx512: core/cpu_isa.h).
TEST_P(OpTest, MatchesReference) {
  const OpCase& c = GetParam();
  const Tensors in = make_inputs(c, c.dtype, 1234);
  const Tensors want = c.reference(in);
  for (CpuIsa isa : cpu_levels()) {
    const CpuIsaScope level(isa);
    const Tensors got = c.run(in);
    ASSERT_EQ(got.size(), want.size()) << "output count";
    for (size_t i = 0; i < got.size(); ++i) {
      const std::string diff = compare(got[i], want[i], c.rtol, c.atol);
      EXPECT_EQ(diff, "") << c.name << " output " << i << ", CPU kernels " << cpu_isa_name(isa);
    }
  }
}

TEST_P(OpTest, GradientMatchesFiniteDifferences) {
  const OpCase& c = GetParam();
  if (!c.graph) GTEST_SKIP() << c.name << " is not differentiable";
  const Tensors in = make_inputs(c, DType::kF64, 1234);
  std::vector<graph::Var> vars;
  for (size_t i = 0; i < in.size(); ++i)
    vars.emplace_back(in[i], is_floating(in[i].dtype()) && c.inputs[i].differentiable);
  // loss = sum(y * w) with fixed random weights, so every output element matters.
  Tensor w;
  auto loss_of = [&](const std::vector<graph::Var>& v) {
    graph::Var y = c.graph(v);
    if (!w.defined()) {
      Generator g(99);
      std::vector<double> wv(y.value().numel());
      for (auto& x : wv) x = 2.0 * g.uniform() - 1.0;
      w = Tensor::from_vector(wv, y.shape());
    }
    return graph::sum_all(graph::mul(y, graph::Var(w)));
  };
  graph::Var loss = loss_of(vars);
  graph::backward(loss);
  int checked = 0;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!vars[i].requires_grad()) continue;
    ASSERT_TRUE(vars[i].grad().defined()) << c.name << ": no gradient reached input " << i;
    const std::vector<double> analytic = to_doubles(vars[i].grad());
    Tensor x = vars[i].value();
    double* px = x.data<double>();
    const int64_t n = x.numel();
    const int64_t step = std::max<int64_t>(1, n / c.grad_max_elements);
    for (int64_t e = 0; e < n; e += step) {
      const double orig = px[e];
      graph::NoGradGuard no_grad;
      px[e] = orig + c.grad_eps;
      const double up = loss_of(vars).value().item();
      px[e] = orig - c.grad_eps;
      const double down = loss_of(vars).value().item();
      px[e] = orig;
      const double numeric = (up - down) / (2 * c.grad_eps);
      // Rounding in the two loss values limits what the difference quotient can resolve.
      const double roundoff = 1e-15 * (std::abs(up) + std::abs(down)) / c.grad_eps;
      EXPECT_NEAR(analytic[e], numeric, c.grad_tol * (1.0 + std::abs(numeric)) + roundoff)
          << c.name << ": d loss / d input" << i << "[" << e << "]";
      ++checked;
    }
  }
  EXPECT_GT(checked, 0) << c.name << ": nothing was checked";
}

TEST_P(OpTest, CudaMatchesCpu) {
  const OpCase& c = GetParam();
  if (device_count(DeviceType::kCuda) == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensors in = make_inputs(c, c.dtype, 1234);
  Tensors in_gpu;
  for (const Tensor& t : in) in_gpu.push_back(t.to(Device::cuda(0)));
  const Tensors want = c.run(in);
  Tensors got;
  try {
    got = c.run(in_gpu);
  } catch (const Error& e) {
    // A GPU is visible, so a missing kernel is a failure, not a skip: a skip here once hid ops
    // that never ran on the GPU. (Without a GPU the test skips above.)
    if (std::string(e.what()).find("has no kernel for device cuda") != std::string::npos)
      FAIL() << c.name
             << ": a CUDA device is visible but this build has no CUDA kernel for the op: "
             << e.what();
    throw;
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].device(), Device::cuda(0)) << c.name << " output " << i << " left the GPU";
    EXPECT_EQ(compare(got[i], want[i], c.rtol, c.atol), "") << c.name << " output " << i;
  }
}

// The backward kernels: the input gradients of the graph function on the GPU against the CPU's,
// in the case's dtype, for loss = sum(y * w) with the same random weights on both. Gradients
// add more terms than the forward outputs, in other orders: ten times the case's tolerances.
TEST_P(OpGradTest, CudaGradientsMatchCpu) {
  const OpCase& c = GetParam();
  if (device_count(DeviceType::kCuda) == 0) GTEST_SKIP() << "no CUDA device visible";
  const Tensors in = make_inputs(c, c.dtype, 1234);
  const Tensors want = input_gradients(c, in, Device::cpu());
  Tensors got;
  try {
    got = input_gradients(c, in, Device::cuda(0));
  } catch (const Error& e) {
    // A GPU is visible: a missing backward kernel is a failure, as in CudaMatchesCpu.
    if (std::string(e.what()).find("has no kernel for device cuda") != std::string::npos)
      FAIL() << c.name
             << ": a CUDA device is visible but this build has no CUDA kernel for a backward op: "
             << e.what();
    throw;
  }
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_TRUE(want[i].defined() && got[i].defined()) << c.name << ": no gradient " << i;
    EXPECT_EQ(got[i].device(), Device::cuda(0)) << c.name << " gradient " << i << " left the GPU";
    EXPECT_EQ(compare(got[i], want[i], 10 * c.rtol, 10 * c.atol), "")
        << c.name << " gradient " << i;
  }
}

// The backward kernels at every lower CPU level against those of the highest (which the
// finite-difference check covers in f64), as the GPU's are checked: ten times the tolerances.
TEST_P(OpGradTest, CpuLevelGradientsMatch) {
  const OpCase& c = GetParam();
  const std::vector<CpuIsa> levels = cpu_levels();
  if (levels.size() < 2)
    GTEST_SKIP() << "this process runs one CPU kernel level (" << cpu_isa_name(levels[0]) << ")";
  const Tensors in = make_inputs(c, c.dtype, 1234);
  const Tensors want = input_gradients(c, in, Device::cpu());
  for (size_t l = 0; l + 1 < levels.size(); ++l) {
    const CpuIsaScope level(levels[l]);
    const Tensors got = input_gradients(c, in, Device::cpu());
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(compare(got[i], want[i], 10 * c.rtol, 10 * c.atol), "")
          << c.name << " gradient " << i << ", CPU kernels " << cpu_isa_name(levels[l])
          << " against " << cpu_isa_name(levels.back());
  }
}

std::string case_name(const ::testing::TestParamInfo<OpCase>& info) {
  std::string s = info.param.name;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Ops, OpTest, ::testing::ValuesIn(all_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Ops, OpGradTest, ::testing::ValuesIn(gradient_cases()), case_name);

}  // namespace
}  // namespace realmt::test
