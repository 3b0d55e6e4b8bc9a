#include "layers/embedding.h"

#include <cmath>

#include "graph/elementwise.h"
#include "graph/embedding.h"
#include "graph/unary.h"
#include "layers/init.h"
#include "ops/cast.h"

namespace realmt::layers {

Embedding::Embedding(graph::ParameterSet& params, const std::string& prefix, int64_t vocab, int64_t dim)
    : params_(&params), vocab_(vocab), dim_(dim) {
  REALMT_CHECK(dim % 2 == 0, "sinusoidal positions need an even model dimension, got {}", dim);
  weight_ = params.add(prefix + ".weight", {vocab, dim}, normal(1.0 / std::sqrt(double(dim))));
}

Tensor Embedding::positions(int64_t first, int64_t count, DType dtype, Device device) const {
  std::lock_guard<std::mutex> lock(*cache_mutex_);
  const int64_t need = first + count;
  if (!cache_.defined() || cache_.dim(0) < need || cache_.dtype() != dtype || cache_.device() != device) {
    const int64_t rows = std::max<int64_t>(need, 256);
    Tensor h = Tensor::empty({rows, dim_}, DType::kF64);
    double* p = h.data<double>();
    for (int64_t pos = 0; pos < rows; ++pos)
      for (int64_t i = 0; i < dim_ / 2; ++i) {
        const double angle = pos / std::pow(10000.0, 2.0 * i / dim_);
        p[pos * dim_ + 2 * i] = std::sin(angle);
        p[pos * dim_ + 2 * i + 1] = std::cos(angle);
      }
    cache_ = ops::cast(h, dtype).to(device);
  }
  return cache_.narrow0(first, first + count);
}

graph::Var Embedding::operator()(const Tensor& ids, int64_t first_position) const {
  REALMT_CHECK(ids.rank() == 2 && ids.dtype() == DType::kI32, "embedding expects i32 ids [B, T], got {}", ids);
  graph::Var e = graph::scale(graph::embedding(weight(), ids), std::sqrt(double(dim_)));
  const Tensor pos = positions(first_position, ids.dim(1), dtype(), device());
  return graph::add(e, graph::Var(pos));  // [B, T, D] + [T, D]
}

void Embedding::quantize(const Tensor& w) {
  REALMT_CHECK(!quantized_, "embedding table quantized twice");
  REALMT_CHECK(w.shape() == Shape({vocab_, dim_}), "embedding table [{}, {}]: a table of that shape to quantize, got {}",
               vocab_, dim_, w);
  quantized_ = std::make_shared<const ops::QuantizedWeight>(ops::quantize_rows(w, ops::WeightLayout::kRowsOut));
}

}  // namespace realmt::layers
