#include "layers/init.h"

#include <cmath>
#include <vector>

namespace realmt::layers {

namespace {
void upload(const Tensor& w, const std::vector<double>& v) {
  Tensor h = Tensor::empty(w.shape(), w.dtype());
  visit_dtype(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = h.data<T>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = scalar_cast<T>(v[i]);
  });
  w.copy_from(h);
}
}  // namespace

graph::Initializer xavier_uniform(int blocks) {
  return [blocks](const Tensor& w, Generator& gen) {
    REALMT_CHECK(w.rank() == 2 && blocks > 0 && w.dim(1) % blocks == 0,
                 "xavier init needs a matrix of {} blocks, got {}", blocks, w.shape());
    const int64_t rows = w.dim(0), cols = w.dim(1), width = cols / blocks;
    const double a = std::sqrt(6.0 / static_cast<double>(rows + width));
    // Block by block, each in row-major order: the draws of `blocks` separate matrices, so a
    // fused Q|K|V projection starts from the weights three separate ones would have.
    std::vector<double> v(w.numel());
    for (int b = 0; b < blocks; ++b)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < width; ++c)
          v[r * cols + b * width + c] = (2.0 * gen.uniform() - 1.0) * a;
    upload(w, v);
  };
}

graph::Initializer normal(double std) {
  return [std](const Tensor& w, Generator& gen) {
    std::vector<double> v(w.numel());
    for (auto& x : v) x = std * gen.normal();
    upload(w, v);
  };
}

graph::Initializer constant(double value) {
  return [value](const Tensor& w, Generator&) { upload(w, std::vector<double>(w.numel(), value)); };
}

}  // namespace realmt::layers
