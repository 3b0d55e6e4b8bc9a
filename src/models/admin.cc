#include "models/admin.h"

#include <cmath>
#include <cstdio>


namespace realmt::models {

double population_variance(const Tensor& t) {
  const Tensor h = t.to(Device::cpu());
  double mean = 0, m2 = 0;
  int64_t n = 0;
  visit_dtype(h.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = h.data<T>();
    // Welford's update: stable for the large means of un-normalised residual streams.
    for (int64_t i = 0; i < h.numel(); ++i) {
      const double x = scalar_cast<double>(p[i]);
      ++n;
      const double d = x - mean;
      mean += d / n;
      m2 += d * (x - mean);
    }
  });
  return n ? m2 / n : 0.0;
}

double admin_closed_form_omega(int sublayers) {
  const double n = sublayers;
  return std::sqrt((n + 1) / std::log(n + 1) - 1);
}

void AdminProfiler::set_omega(int stack, const std::string& name, const Tensor& omega) {
  omega.copy_from(Tensor::full(omega.shape(), r_[stack], omega.dtype(), omega.device()));
  rows_.push_back({name, r_[stack], 0.0, 0.0});
}

void AdminProfiler::record(int stack, const Tensor& scaled_input, const Tensor& branch) {
  REALMT_ASSERT(!rows_.empty(), "record without set_omega");
  Row& row = rows_.back();
  row.var_input = population_variance(scaled_input);
  row.var_branch = population_variance(branch);
  r_[stack] = std::sqrt(row.var_input + row.var_branch);
}

std::string AdminProfiler::table() const {
  std::string out =
      "sub-layer                                   omega    Var(x*omega)    Var(f(x))\n";
  char line[256];
  for (const Row& r : rows_) {
    std::snprintf(line, sizeof line, "%-40s %9.4f %15.6g %12.6g\n", r.omega.c_str(), r.value,
                  r.var_input, r.var_branch);
    out += line;
  }
  return out;
}

}  // namespace realmt::models
