#include "layers/embedding.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "graph/elementwise.h"
#include "graph/embedding.h"
#include "graph/masked_fill.h"
#include "graph/unary.h"
#include "layers/init.h"
#include "ops/cast.h"

namespace realmt::layers {

Embedding::Embedding(graph::ParameterSet& params, const std::string& prefix, int64_t vocab,
                     int64_t dim, const EmbeddingOptions& options)
    : params_(&params), vocab_(vocab), dim_(dim), options_(options) {
  check_options();
  // Normal(0, D^-1/2): with the sqrt(D) scale, unit variance (Normal(0, 1) without the scale).
  weight_ = params.add(prefix + ".weight", {vocab, dim},
                       normal(options.scale ? 1.0 / std::sqrt(double(dim)) : 1.0));
}

Embedding::Embedding(const graph::ParameterSet& params, int weight, const EmbeddingOptions& options)
    : params_(&params), weight_(weight), options_(options) {
  const Shape& s = params.shapes().at(weight);
  REALMT_ASSERT(s.rank() == 2);
  vocab_ = s[0];
  dim_ = s[1];
  check_options();
}

void Embedding::check_options() const {
  REALMT_CHECK(dim_ % 2 == 0, "sinusoidal positions need an even model dimension, got {}", dim_);
  REALMT_CHECK(options_.positions != Positions::kLearned || options_.position_table >= 0,
               "learned positions need a position table");
  REALMT_CHECK(options_.positions != Positions::kSinusoidalMarian || dim_ >= 4,
               "sinusoidal-marian positions need a model dimension of at least 4, got {}", dim_);
}

Tensor Embedding::learned_rows(int64_t first, int64_t count) const {
  const int64_t rows = (*params_)[options_.position_table].value().dim(0);
  std::vector<int32_t> r(count);
  for (int64_t i = 0; i < count; ++i) r[i] = static_cast<int32_t>(std::min(first + i, rows - 1));
  return Tensor::from_vector(r, {count});
}

Tensor Embedding::positions(int64_t first, int64_t count, DType dtype, Device device) const {
  if (options_.positions == Positions::kLearned) {
    const graph::Var& table = (*params_)[options_.position_table];
    return ops::cast(graph::embedding(table, learned_rows(first, count).to(table.device())).value(),
                     dtype)
        .to(device);
  }
  std::lock_guard<std::mutex> lock(*cache_mutex_);
  const int64_t need = first + count;
  if (!cache_.defined() || cache_.dim(0) < need || cache_.dtype() != dtype ||
      cache_.device() != device) {
    const int64_t rows = std::max<int64_t>(need, 256);
    Tensor h = Tensor::empty({rows, dim_}, DType::kF64);
    double* p = h.data<double>();
    const int64_t half = dim_ / 2;
    // Each layout computes its angles in the precision of its reference (realmt's and Hugging
    // Face's tables in double, Marian's in float), so that converted models see their positions.
    for (int64_t pos = 0; pos < rows; ++pos)
      for (int64_t i = 0; i < half; ++i) {
        double s = 0, c = 0;
        if (options_.positions == Positions::kSinusoidalMarian) {
          // Marian's addPositionalEmbeddings: float arithmetic, log(10000) / (D/2 - 1) per step.
          const float increment = std::log(10000.f) / (static_cast<float>(half) - 1.f);
          const float v = static_cast<float>(pos) * std::exp(static_cast<float>(i) * -increment);
          s = std::sin(v);
          c = std::cos(v);
        } else {
          const double angle = pos / std::pow(10000.0, 2.0 * i / dim_);
          s = std::sin(angle);
          c = std::cos(angle);
        }
        const bool interleaved = options_.positions == Positions::kSinusoidal;
        p[pos * dim_ + (interleaved ? 2 * i : i)] = s;
        p[pos * dim_ + (interleaved ? 2 * i + 1 : half + i)] = c;
      }
    cache_ = ops::cast(h, dtype).to(device);
  }
  return cache_.narrow0(first, first + count);
}

graph::Var Embedding::operator()(const Tensor& ids, int64_t first_position,
                                 const Tensor& zero_rows) const {
  REALMT_CHECK(ids.rank() == 2 && ids.dtype() == DType::kI32,
               "embedding expects i32 ids [B, T], got {}", ids);
  graph::Var e = graph::embedding(weight(), ids);
  if (options_.scale) e = graph::scale(e, std::sqrt(double(dim_)));
  if (zero_rows.defined()) e = graph::masked_fill(e, zero_rows, 0.0);
  if (options_.positions == Positions::kLearned) {
    const graph::Var& table = (*params_)[options_.position_table];
    return graph::add(
        e, graph::embedding(table, learned_rows(first_position, ids.dim(1)).to(device())));
  }
  const Tensor pos = positions(first_position, ids.dim(1), dtype(), device());
  return graph::add(e, graph::Var(pos));  // [B, T, D] + [T, D]
}

void Embedding::quantize(const Tensor& w) {
  REALMT_CHECK(!quantized_, "embedding table quantized twice");
  REALMT_CHECK(w.shape() == Shape({vocab_, dim_}),
               "embedding table [{}, {}]: a table of that shape to quantize, got {}", vocab_, dim_,
               w);
  quantized_ = std::make_shared<const ops::QuantizedWeight>(
      ops::quantize_rows(w, ops::WeightLayout::kRowsOut));
}

}  // namespace realmt::layers
