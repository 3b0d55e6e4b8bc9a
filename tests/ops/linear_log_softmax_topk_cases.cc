// Cases of the output layer fused with the search's selection (ops/linear_log_softmax_topk.h):
// several vocabulary chunks, a token bias with forbidden (-inf) tokens, k up to V, the "also"
// column, an output bias; and int8 (ops/quantize.h), against a reference that quantizes the same
// way in double, alone and with the exact f32 rescoring of the best 2k candidates.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "backend/cpu/int8_gemm.h"
#include "case_util.h"
#include "ops/linear_log_softmax_topk.h"
#include "ops/quantize.h"

namespace realmt::test {
namespace {

// A token bias: -inf for tokens 0 and 2 and every 5th, small values elsewhere.
Tensor token_bias(int64_t v) {
  std::vector<float> b(v);
  for (int64_t j = 0; j < v; ++j)
    b[j] = (j == 0 || j == 2 || j % 5 == 4) ? -INFINITY : 0.01f * static_cast<float>(j % 3);
  return Tensor::from_vector(b, {v});
}

// Rounds as cpu::round_to_int (halves away from zero).
double round_away(double x) { return x >= 0 ? std::floor(x + 0.5) : std::ceil(x - 0.5); }

// Per-row symmetric quantization of weights [rows, cols] to +-limit, in double: values, 1 / scale
// and the rows' sums of values.
void quantize_weights(std::vector<double>& m, int64_t rows, int64_t cols, double limit,
                      std::vector<double>& inv, std::vector<double>& sums) {
  inv.assign(rows, 1.0);
  sums.assign(rows, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    double mx = 0;
    for (int64_t c = 0; c < cols; ++c)
      mx = std::max(mx, std::abs(static_cast<double>(static_cast<float>(m[r * cols + c]))));
    // The kernels compute the scale in f32.
    const float scale = mx > 0 ? static_cast<float>(limit) / static_cast<float>(mx) : 1.0f;
    inv[r] = 1.0 / static_cast<double>(scale);
    for (int64_t c = 0; c < cols; ++c) {
      m[r * cols + c] =
          std::clamp(round_away(static_cast<double>(static_cast<float>(m[r * cols + c]) * scale)),
                     -limit, limit);
      sums[r] += m[r * cols + c];
    }
  }
}

// Per-row asymmetric quantization of activations [rows, cols] to u8 over [min(x, 0), max(x, 0)]
// (cpu::quantize_activations, its f32 steps reproduced): q, and x ~= zero + step q.
void quantize_activations(std::vector<double>& m, int64_t rows, int64_t cols,
                          std::vector<double>& step, std::vector<double>& zero) {
  step.assign(rows, 1.0);
  zero.assign(rows, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    float mn = 0.0f, mx = 0.0f;
    for (int64_t c = 0; c < cols; ++c) {
      mn = std::min(mn, static_cast<float>(m[r * cols + c]));
      mx = std::max(mx, static_cast<float>(m[r * cols + c]));
    }
    const float s = mx > mn ? 255.0f / (mx - mn) : 1.0f;
    step[r] = static_cast<double>(1.0f / s);
    zero[r] = static_cast<double>(mn);
    for (int64_t c = 0; c < cols; ++c)
      m[r * cols + c] = std::min(
          round_away(static_cast<double>((static_cast<float>(m[r * cols + c]) - mn) * s)), 255.0);
  }
}

// logits [N, V] = h w^T in double; with int8, both sides quantized as the kernels do
// (backend/cpu/int8_gemm.h): y = inv_w (step c + zero sum_w).
std::vector<double> reference_logits(const Host& h, const Host& w, bool int8) {
  const int64_t n = h.shape[0], d = h.shape[1], v = w.shape[0];
  std::vector<double> hv = h.v, wv = w.v, step, zero, inv_w, sums;
  if (int8) {
    quantize_activations(hv, n, d, step, zero);
    quantize_weights(wv, v, d, cpu::int8_weight_limit(), inv_w, sums);
  }
  std::vector<double> z(n * v, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < v; ++j) {
      double acc = 0;
      for (int64_t e = 0; e < d; ++e) acc += hv[i * d + e] * wv[j * d + e];
      z[i * v + j] = int8 ? inv_w[j] * (step[i] * acc + zero[i] * sums[j]) : acc;
    }
  return z;
}

// How the output table is given: f32, int8, or int8 with the f32 table for exact rescoring.
enum class Table { kF32, kInt8, kInt8Rescored };

Tensors naive(const Tensors& in, int64_t k, int64_t also, Table table) {
  const Host h(in[0]), w(in[1]), b(in[2]);
  const int64_t n = h.shape[0], v = w.shape[0];
  std::vector<double> z = reference_logits(h, w, table != Table::kF32);
  std::vector<double> exact = reference_logits(h, w, false);
  if (in.size() > 3) {  // the output bias: part of every logit
    const Host ob(in[3]);
    for (int64_t i = 0; i < n * v; ++i) {
      z[i] += ob.v[i % v];
      exact[i] += ob.v[i % v];
    }
  }
  Host values{Shape{n, k}}, indices{Shape{n, k}}, lse{Shape{n}}, also_out{Shape{n}};
  for (int64_t i = 0; i < n; ++i) {
    double* zi = z.data() + i * v;
    std::vector<int64_t> order(v);
    std::iota(order.begin(), order.end(), 0);
    // Rescored: the best 2k by int8 key (logit + bias) get exact logits, in lse too, except keys of
    // -inf (forbidden tokens); the also token's value is its exact logit.
    std::vector<int64_t> exact_ones;
    double also_logit = also >= 0 ? zi[also] : 0.0;
    if (table == Table::kInt8Rescored) {
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t a, int64_t c) { return zi[a] + b.v[a] > zi[c] + b.v[c]; });
      exact_ones.assign(order.begin(), order.begin() + std::min(v, 2 * k));
      for (int64_t j : exact_ones)
        if (std::isfinite(b.v[j])) zi[j] = exact[i * v + j];
      if (also >= 0) also_logit = exact[i * v + also];
    }
    const double mx = *std::max_element(zi, zi + v);
    double s = 0;
    for (int64_t j = 0; j < v; ++j) s += std::exp(zi[j] - mx);
    lse.v[i] = mx + std::log(s);
    std::vector<double> score(v);
    for (int64_t j = 0; j < v; ++j) score[j] = zi[j] - lse.v[i] + b.v[j];
    if (table == Table::kInt8Rescored)
      order = exact_ones;
    else
      std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t c) {
      return score[a] > score[c] || (score[a] == score[c] && a < c);
    });
    for (int64_t j = 0; j < k; ++j) {
      values.v[i * k + j] = score[order[j]];
      indices.v[i * k + j] = static_cast<double>(order[j]);
    }
    if (also >= 0) also_out.v[i] = also_logit - lse.v[i];
  }
  Tensors out{values.tensor(), indices.tensor(), lse.tensor()};
  if (also >= 0) out.push_back(also_out.tensor());
  return out;
}

OpCase make(const std::string& name, int64_t n, int64_t d, int64_t v, int64_t k, int64_t also,
            int64_t chunk, Table table = Table::kF32, bool zero_rows = false,
            bool output_bias = false) {
  OpCase c;
  c.name = "linear_log_softmax_topk/" + name;
  InputSpec bias;
  bias.differentiable = false;
  bias.make = [v](Generator&, DType) { return token_bias(v); };
  c.inputs = {constant(Shape{n, d}, -1, 1), constant(Shape{v, d}, -1, 1), bias};
  if (output_bias) c.inputs.push_back(constant(Shape{v}, -2, 2));
  if (zero_rows)  // rows 0 and 2 of h are zero: every logit 0, so the selection is all ties
    c.inputs[0].make = [n, d](Generator& g, DType) {
      std::vector<float> h(n * d);
      for (int64_t i = 0; i < n * d; ++i)
        h[i] = (i / d == 0 || i / d == 2) ? 0.0f : static_cast<float>(2 * g.uniform() - 1);
      return Tensor::from_vector(h, {n, d});
    };
  ops::LinearTopkOptions o;
  o.k = k;
  o.also_token = also;
  o.chunk = chunk;
  c.run = [o, table](const Tensors& in) {
    ops::OutputWeight w;
    if (table != Table::kInt8) w.weight = in[1];
    if (table != Table::kF32) w.quantized = ops::quantize_rows(in[1], ops::WeightLayout::kRowsOut);
    if (in.size() > 3) w.bias = in[3];
    const ops::LinearTopkResult r = ops::linear_log_softmax_topk(in[0], w, in[2], o);
    Tensors out{r.values, r.indices, r.lse};
    if (o.also_token >= 0) out.push_back(r.also);
    return out;
  };
  c.reference = [k, also, table](const Tensors& in) { return naive(in, k, also, table); };
  c.rtol = 1e-5;
  c.atol = 1e-5;
  return c;
}

REALMT_OP_CASE(llst_chunks) { return make("three_chunks", 6, 8, 37, 4, 3, 13); }
REALMT_OP_CASE(llst_one_chunk) { return make("one_chunk_k1", 3, 5, 20, 1, -1, 0); }
REALMT_OP_CASE(llst_k_all) {
  return make("k_is_v", 4, 6, 12, 12, 1, 5);
}  // forbidden tokens last, -inf
REALMT_OP_CASE(llst_ties) {
  return make("ties_lower_token_first", 4, 6, 30, 9, 5, 7, Table::kF32, true);
}
REALMT_OP_CASE(llst_int8) { return make("int8_chunks", 5, 32, 41, 6, 3, 16, Table::kInt8); }
// The best 2k int8 candidates (and the also token) rescored with the f32 table.
REALMT_OP_CASE(llst_int8_rescored) {
  return make("int8_rescored", 5, 32, 41, 6, 3, 16, Table::kInt8Rescored);
}
// 2k > V: every token rescored, so the result is the f32 one whatever the int8 error.
REALMT_OP_CASE(llst_int8_all_rescored) {
  return make("int8_all_rescored", 4, 16, 9, 5, 2, 4, Table::kInt8Rescored);
}

// An output bias (Hugging Face's final_logits_bias): in the logits, lse and the also column.
REALMT_OP_CASE(llst_output_bias) {
  return make("output_bias", 6, 8, 37, 4, 3, 13, Table::kF32, false, true);
}
REALMT_OP_CASE(llst_int8_output_bias) {
  return make("int8_rescored_output_bias", 5, 32, 41, 6, 3, 16, Table::kInt8Rescored, false, true);
}

// quantized_matmul against the same double reference (no selection): inputs of both signs, and
// non-negative ones (a ReLU's output, quantized over [0, max]).
// x [m1, m2, kd], W [kd, nd].
OpCase quantized_matmul_case(const std::string& name, double lo, double hi, int64_t m1 = 2,
                             int64_t m2 = 3, int64_t kd = 24, int64_t nd = 10) {
  OpCase c;
  c.name = "quantized_matmul/" + name;
  c.inputs = {constant(Shape{m1, m2, kd}, lo, hi),
              constant(Shape{kd, nd}, -1, 1)};  // W [K, N] as layers::Linear
  c.run = [](const Tensors& in) {
    return Tensors{
        ops::quantized_matmul(in[0], ops::quantize_rows(in[1], ops::WeightLayout::kColumnsOut))};
  };
  c.reference = [=](const Tensors& in) {
    const Host x(in[0]), w(in[1]);
    Host h{Shape{m1 * m2, kd}}, wt{Shape{nd, kd}};
    h.v = x.v;
    for (int64_t kk = 0; kk < kd; ++kk)
      for (int64_t nn = 0; nn < nd; ++nn) wt.v[nn * kd + kk] = w.v[kk * nd + nn];
    Host y{Shape{m1, m2, nd}};
    y.v = reference_logits(h, wt, true);
    return Tensors{y.tensor()};
  };
  c.rtol = 1e-5;
  c.atol = 1e-5;
  return c;
}
REALMT_OP_CASE(quantized_matmul_rows) { return quantized_matmul_case("rows", -2, 2); }
REALMT_OP_CASE(quantized_matmul_relu) { return quantized_matmul_case("non_negative_rows", 0, 2); }
// Shapes past the CUDA GEMM's 64 x 64 tiles and 64-byte K steps, K not a multiple of 4 (its
// packed words), and K = 1.
REALMT_OP_CASE(quantized_matmul_tiles) {
  return quantized_matmul_case("tiles_and_k_tail", -2, 2, 2, 35, 131, 67);
}
REALMT_OP_CASE(quantized_matmul_k1) { return quantized_matmul_case("k_is_1", -2, 2, 1, 3, 1, 5); }
// An int8 vocabulary over several tiles, D not a multiple of 4, with rescoring and an output bias.
REALMT_OP_CASE(llst_int8_tiles) {
  return make("int8_rescored_tiles", 7, 35, 300, 4, 17, 64, Table::kInt8Rescored, false, true);
}

// quantize_rows itself in both layouts: values (exact integers), 1 / scale and the rows' sums
// against the double reference; K = 27 (no multiple of 4).
OpCase quantize_rows_case(const std::string& name, ops::WeightLayout layout) {
  constexpr int64_t n = 70, k = 27;
  const bool rows_out = layout == ops::WeightLayout::kRowsOut;
  OpCase c;
  c.name = "quantize_rows/" + name;
  c.inputs = {constant(rows_out ? Shape{n, k} : Shape{k, n}, -1.5, 1)};
  c.run = [layout](const Tensors& in) {
    const ops::QuantizedWeight q = ops::quantize_rows(in[0], layout);
    return Tensors{q.values, q.inv_scales, q.sums};
  };
  c.reference = [rows_out](const Tensors& in) {
    const Host w(in[0]);
    Host values{Shape{n, k}}, inv{Shape{n}}, sums{Shape{n}};
    for (int64_t r = 0; r < n; ++r)
      for (int64_t e = 0; e < k; ++e)
        values.v[r * k + e] = rows_out ? w.v[r * k + e] : w.v[e * n + r];
    quantize_weights(values.v, n, k, cpu::int8_weight_limit(), inv.v, sums.v);
    return Tensors{values.tensor(), inv.tensor(), sums.tensor()};
  };
  c.rtol = 1e-5;
  c.atol = 1e-5;  // a value one level off fails (|difference| 1)
  return c;
}
REALMT_OP_CASE(quantize_rows_rows_out) {
  return quantize_rows_case("rows_out", ops::WeightLayout::kRowsOut);
}
REALMT_OP_CASE(quantize_rows_columns_out) {
  return quantize_rows_case("columns_out", ops::WeightLayout::kColumnsOut);
}

}  // namespace
}  // namespace realmt::test
