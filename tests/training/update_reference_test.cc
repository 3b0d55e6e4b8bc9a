// The update rule that training runs (training/update_rule.h: per-token normalisation, clipping
// by global norm, Adam or RAdam with the learning-rate schedule, exponential smoothing) against
// a reference written here from the papers' and Marian's formulas, step by step in f64. Nothing
// of the reference comes from the code under test; a few hand-checkable values pin the
// reference itself (Adam's first step moves every weight by lr, RAdam's first steps are SGD
// with momentum, the first average weight is 9/10).
//
// Formulas:
//   gradient      g = G / (tokens x loss scale)            (G: the summed, scaled gradient)
//   clipping      g <- g x c / ||g|| when ||g|| > c          (Pascanu et al. 2013, global norm)
//   Adam          m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  m^ = m / (1 - b1^t);
//                 v^ = v / (1 - b2^t);  p <- p - lr m^ / (sqrt(v^) + eps)   (Kingma & Ba, Alg. 1)
//   RAdam         rho_inf = 2 / (1 - b2) - 1;  rho_t = rho_inf - 2 t b2^t / (1 - b2^t);
//                 rectified (rho_t >= 5): r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf /
//                 ((rho_inf - 4)(rho_inf - 2) rho_t)),  p <- p - lr r_t m^ / (sqrt(v^) + eps);
//                 otherwise p <- p - lr m^   (Liu et al. 2020, Alg. 2, with Adam's eps). The paper
//                 writes rho_t > 4; the authors' code, which the ADMIN recipe ran, rectifies from
//                 rho_t >= 5, and so does realmt: at b2 = 0.98 they differ at t = 5 (rho = 4.92).
//   schedule      lr_t = lr x min(1, t / W)                       (Marian lr-warmup)
//                      x min(1, sqrt(D / t))                      (Marian lr-decay-inv-sqrt)
//                      x max(0, 1 - (t - W) / (N - W)) for t > W  (fairseq polynomial_decay,
//                                                                  power 1, end 0: RealFormer)
//   smoothing     e <- (1 - w) e + w p,  w = max(alpha, 1 - (t' + 1) / (t' + 10)), t' = updates
//                 done before this one (Marian's ExponentialSmoothing::updateAvgParams)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "ops/optimizer.h"
#include "training/update_rule.h"

namespace realmt::training {
namespace {

// ---- the reference
struct RefSchedule {
  double peak;
  int64_t warmup = 0, inv_sqrt = 0, linear_to = 0;
  double at(int64_t t) const {
    double lr = peak;
    if (warmup > 0) lr *= std::min(1.0, double(t) / double(warmup));
    if (inv_sqrt > 0) lr *= std::min(1.0, std::sqrt(double(inv_sqrt) / double(t)));
    if (linear_to > 0 && t > warmup)
      lr *= std::max(0.0, 1.0 - double(t - warmup) / double(linear_to - warmup));
    return lr;
  }
};

struct RefOptimizer {
  bool radam = false;
  double b1 = 0.9, b2 = 0.98, eps = 1e-8;
  double clip = 0, alpha = 0;
  RefSchedule schedule{1e-3};
  std::vector<double> p, m, v, e;
  int64_t t = 0;
  bool clipped = false, rectified = false;  // what the last step did
  double norm = 0, lr = 0;

  void step(std::vector<double> g_summed, double tokens, double loss_scale) {
    ++t;
    std::vector<double> g = g_summed;
    for (double& x : g) x /= tokens * loss_scale;
    norm = 0;
    for (double x : g) norm += x * x;
    norm = std::sqrt(norm);
    clipped = clip > 0 && norm > clip;
    if (clipped)
      for (double& x : g) x *= clip / norm;
    lr = schedule.at(t);
    const double bc1 = 1 - std::pow(b1, double(t)), bc2 = 1 - std::pow(b2, double(t));
    double r = 1;
    rectified = true;
    if (radam) {
      const double rho_inf = 2 / (1 - b2) - 1;
      const double rho = rho_inf - 2 * double(t) * std::pow(b2, double(t)) / bc2;
      rectified = rho >= 5;
      if (rectified)
        r = std::sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho));
    }
    for (size_t i = 0; i < p.size(); ++i) {
      m[i] = b1 * m[i] + (1 - b1) * g[i];
      v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
      const double m_hat = m[i] / bc1, v_hat = v[i] / bc2;
      p[i] -= rectified ? lr * r * m_hat / (std::sqrt(v_hat) + eps) : lr * m_hat;
    }
    if (!e.empty()) {
      const double w = std::max(alpha, 1 - double(t - 1 + 1) / double(t - 1 + 10));
      for (size_t i = 0; i < p.size(); ++i) e[i] = (1 - w) * e[i] + w * p[i];
    }
  }
};

// ---- the code under test, on two parameters (7 values) in f64
struct Setup {
  graph::ParameterSet params;
  std::unique_ptr<Optimizer> optimizer;
  std::unique_ptr<Arena> ema;
  LrSchedule schedule;
  UpdateRule rule;

  explicit Setup(const RefOptimizer& ref) {
    params.add("a", Shape{3});
    params.add("b", Shape{2, 2});
    params.allocate(Device::cpu(), DType::kF64);
    set(params.values(), ref.p);
    optimizer = std::make_unique<Optimizer>(
        params,
        OptimizerOptions{.radam = ref.radam, .beta1 = ref.b1, .beta2 = ref.b2, .eps = ref.eps});
    if (!ref.e.empty()) {
      ema = std::make_unique<Arena>(params.shapes(), DType::kF64, Device::cpu());
      set(*ema, ref.e);
    }
    schedule = {ref.schedule.peak, ref.schedule.warmup, ref.schedule.inv_sqrt,
                ref.schedule.linear_to};
    rule = {ref.clip, ref.alpha};
  }
  static void set(const Arena& a, const std::vector<double>& x) {
    size_t k = 0;
    for (int i = 0; i < a.size(); ++i)
      for (int64_t j = 0; j < a[i].numel(); ++j) a[i].data<double>()[j] = x[k++];
  }
  static std::vector<double> get(const Arena& a) {
    std::vector<double> x;
    for (int i = 0; i < a.size(); ++i)
      for (int64_t j = 0; j < a[i].numel(); ++j) x.push_back(a[i].data<double>()[j]);
    return x;
  }
  UpdateResult step(const std::vector<double>& g_summed, int64_t tokens, double loss_scale,
                    int64_t update) {
    params.zero_grad();
    set(params.grads(), g_summed);
    const double squares = ops::sum_squares(params.grads().flat());
    return apply_update(params, *optimizer, schedule, ema.get(), rule, squares, tokens, loss_scale,
                        update);
  }
};

void expect_close(const std::vector<double>& got, const std::vector<double>& want, const char* what,
                  int64_t t) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-12 * std::abs(want[i]) + 1e-15)
        << what << "[" << i << "] after update " << t;
}

// The summed gradient of update t: loss scale x tokens x a per-token gradient whose norm is
// large on every third update (so clipping acts there) and small otherwise.
std::vector<double> summed_gradient(int64_t t, double tokens, double loss_scale) {
  std::vector<double> g(7);
  const double size = t % 3 == 0 ? 2.0 : 0.1;
  for (size_t i = 0; i < g.size(); ++i)
    g[i] = loss_scale * tokens * size * std::sin(1.3 * double(i) + 0.7 * double(t));
  return g;
}

RefOptimizer start(bool radam) {
  RefOptimizer r;
  r.radam = radam;
  r.p = {0.5, -0.25, 1.0, 0.125, -2.0, 0.75, 0.0};
  r.m.assign(7, 0.0);
  r.v.assign(7, 0.0);
  return r;
}

// Runs both for `steps` updates; returns how many were clipped and how many rectified.
std::pair<int, int> run_both(RefOptimizer& ref, int steps, double loss_scale) {
  Setup code(ref);
  int clipped = 0, rectified = 0;
  for (int64_t t = 1; t <= steps; ++t) {
    const int64_t tokens = 40 + 7 * t;
    const std::vector<double> g = summed_gradient(t, double(tokens), loss_scale);
    const UpdateResult u = code.step(g, tokens, loss_scale, t);
    ref.step(g, double(tokens), loss_scale);
    EXPECT_NEAR(u.grad_norm, ref.norm, 1e-13 * ref.norm) << "gradient norm of update " << t;
    EXPECT_NEAR(u.lr, ref.lr, 1e-15 * ref.lr) << "learning rate of update " << t;
    expect_close(Setup::get(code.params.values()), ref.p, "weights", t);
    expect_close(Setup::get(code.optimizer->first_moments()), ref.m, "first moments", t);
    expect_close(Setup::get(code.optimizer->second_moments()), ref.v, "second moments", t);
    if (code.ema) expect_close(Setup::get(*code.ema), ref.e, "smoothed weights", t);
    clipped += ref.clipped;
    rectified += ref.rectified;
  }
  return {clipped, rectified};
}

TEST(UpdateReference, AdamWithWarmupInverseSqrtClippingAndSmoothing) {
  RefOptimizer ref = start(false);
  ref.schedule = {.peak = 1e-2, .warmup = 4, .inv_sqrt = 4};
  ref.clip = 0.5;
  ref.alpha = 0.01;
  ref.e = ref.p;
  // The reference's first step, by hand: m^ = g and v^ = g^2, so every weight moves by
  // lr_1 = 1e-2 / 4 against the sign of its (clipped or not) gradient.
  {
    RefOptimizer one = ref;
    const std::vector<double> g = summed_gradient(1, 47, 8);
    one.step(g, 47, 8);
    // (eps = 1e-8 against |g| >= 0.016 shifts that by at most 2e-9.)
    for (size_t i = 0; i < 7; ++i)
      EXPECT_NEAR(one.p[i], ref.p[i] - 2.5e-3 * (g[i] > 0 ? 1 : -1), 3e-9);
    // The average takes 9/10 of the new weights first (Marian's warm-up).
    for (size_t i = 0; i < 7; ++i) EXPECT_NEAR(one.e[i], 0.1 * ref.p[i] + 0.9 * one.p[i], 1e-15);
  }
  const auto [clipped, rectified] = run_both(ref, 12, 8.0);
  EXPECT_EQ(clipped, 4) << "updates 3, 6, 9, 12 have per-token norm ~3.7 > 0.5";
  EXPECT_EQ(rectified, 12);
}

TEST(UpdateReference, RadamRectificationWithLinearDecay) {
  RefOptimizer ref = start(true);
  ref.schedule = {.peak = 1e-2, .warmup = 3, .linear_to = 12};
  ref.clip = 1.0;
  // The reference's first steps, by hand: rho_1 = 99 - 2 x 0.98 / 0.02 = 1 < 5, so the step is
  // momentum SGD on the bias-corrected first moment: p - lr_1 g, with lr_1 = 1e-2 / 3.
  {
    RefOptimizer one = ref;
    const std::vector<double> g = summed_gradient(1, 47, 1);
    one.step(g, 47, 1);
    EXPECT_FALSE(one.rectified);
    for (size_t i = 0; i < 7; ++i) EXPECT_NEAR(one.p[i], ref.p[i] - 1e-2 / 3 * g[i] / 47, 1e-15);
  }
  // t = 1..5 un-rectified (rho_5 = 4.92), 6..12 rectified; the schedule reaches 0 at t = 12.
  const auto [clipped, rectified] = run_both(ref, 12, 1.0);
  EXPECT_EQ(rectified, 7);
  EXPECT_GT(clipped, 0);
  EXPECT_EQ(ref.lr, 0.0);
}

TEST(UpdateReference, ScheduleMatchesMarianAndFairseqFormulas) {
  const std::vector<RefSchedule> cases = {
      {3e-4, 0, 0, 0},          {3e-4, 16000, 0, 0}, {3e-4, 0, 8000, 0},  {3e-4, 16000, 16000, 0},
      {1.2e-3, 8000, 0, 47000}, {1e-3, 0, 0, 100},   {2e-3, 100, 100, 0},
  };
  for (const RefSchedule& r : cases) {
    const LrSchedule s{
        .peak = r.peak, .warmup = r.warmup, .inv_sqrt_from = r.inv_sqrt, .linear_to = r.linear_to};
    for (int64_t t : {1, 2, 50, 99, 100, 101, 7999, 8000, 8001, 16000, 16001, 30000, 46999, 47000,
                      47001, 100000})
      EXPECT_NEAR(s.at(t), r.at(t), 1e-15 * r.peak)
          << "t=" << t << " warmup " << r.warmup << " inv-sqrt " << r.inv_sqrt << " linear "
          << r.linear_to;
  }
  // Hand values: half-way through the warm-up; inverse sqrt at 4 x D; linear half-way down.
  EXPECT_NEAR((LrSchedule{.peak = 1e-3, .warmup = 100}.at(50)), 5e-4, 1e-18);
  EXPECT_NEAR((LrSchedule{.peak = 1e-3, .inv_sqrt_from = 100}.at(400)), 5e-4, 1e-18);
  EXPECT_NEAR((LrSchedule{.peak = 1e-3, .warmup = 100, .linear_to = 300}.at(200)), 5e-4, 1e-18);
}

TEST(UpdateReference, SmoothingWarmUpAsMarian) {
  // w(t') = max(alpha, 1 - (t' + 1) / (t' + 10)): 9/10, 9/11, ... until alpha takes over.
  for (int64_t t : {0, 1, 2, 10, 100, 1000, 89990, 89991, 1000000}) {
    const double marian = std::max(1e-4, 1.0 - double(t + 1) / double(t + 10));
    EXPECT_NEAR(ema_weight(1e-4, t), marian, 1e-15) << "t=" << t;
  }
  EXPECT_NEAR(ema_weight(1e-4, 0), 0.9, 1e-15);
  EXPECT_NEAR(ema_weight(1e-4, 1), 9.0 / 11.0, 1e-15);
  EXPECT_NEAR(ema_weight(1e-4, 1000000), 1e-4, 1e-15);
}

}  // namespace
}  // namespace realmt::training
