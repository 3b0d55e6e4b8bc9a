// Fused-kernel benchmark (CPU, f32): softmax with mask, layer norm forward/backward, label-smoothed
// cross-entropy forward/backward. Prints GB/s (bytes each kernel must read and write once) and the
// ratio to the copy bandwidth measured in the same run (a large memcpy-like ops pass).
//   realmt-bench-kernels [--threads N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "bench_util.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "ops/cross_entropy.h"
#include "ops/layer_norm.h"
#include "ops/softmax.h"

namespace {
using namespace realmt;

Tensor random(const Shape& s, uint64_t seed, double scale = 1.0) {
  Generator g(seed);
  std::vector<float> v(s.numel());
  for (auto& x : v) x = static_cast<float>((2 * g.uniform() - 1) * scale);
  return Tensor::from_vector(v, s);
}
}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--threads N]\n", argv[0]);
      return 2;
    }
  }
  set_num_threads(threads);
  // Reference bandwidth: copy 256 MB (read + write) with the same threads.
  const int64_t n = 32 << 20;
  Tensor src = random({n}, 1), dst = Tensor::empty({n});
  const double copy_s = bench::median_seconds([&] {
    const float* s = src.data<float>();
    float* d = dst.data<float>();
    parallel_for(n, 1, [&](int64_t lo, int64_t hi) { std::memcpy(d + lo, s + lo, (hi - lo) * 4); });
  });
  const double copy_gbs = 2.0 * n * 4 / copy_s / 1e9;
  std::printf("# fused kernels, f32, %d threads; copy bandwidth in this run: %.1f GB/s\n", threads,
              copy_gbs);
  std::printf("%-48s %10s %10s %8s\n", "kernel (shape)", "ms", "GB/s", "ratio");
  auto report = [&](const char* what, double bytes, const std::function<void()>& fn) {
    const double s = bench::median_seconds(fn);
    std::printf("%-48s %10.3f %10.1f %8.2f\n", what, s * 1e3, bytes / s / 1e9,
                bytes / s / 1e9 / copy_gbs);
  };
  {  // attention scores [B, H, T, S] with a padding mask [B, 1, 1, S]
    const Tensor x = random({32, 8, 64, 64}, 2, 4.0);
    const Tensor mask = Tensor::zeros({32, 1, 1, 64});
    const Tensor y = ops::softmax(x, mask);
    const double bytes = 2.0 * x.nbytes();
    report("softmax+mask fwd [32,8,64,64]", bytes, [&] { ops::softmax(x, mask); });
    report("softmax bwd [32,8,64,64]", 3.0 * x.nbytes(), [&] { ops::softmax_backward(y, y); });
  }
  {  // output distribution rows [N, V]
    const Tensor x = random({512, 32000}, 3, 4.0);
    report("log_softmax fwd [512,32000]", 2.0 * x.nbytes(), [&] { ops::log_softmax(x); });
  }
  {
    const Tensor x = random({8192, 512}, 4), g = random({512}, 5), b = random({512}, 6);
    const auto r = ops::layer_norm(x, g, b, 1e-5);
    report("layer_norm fwd [8192,512]", 2.0 * x.nbytes(), [&] { ops::layer_norm(x, g, b, 1e-5); });
    report("layer_norm bwd [8192,512]", 3.0 * x.nbytes(),
           [&] { ops::layer_norm_backward(x, x, g, r.mean, r.rstd); });
  }
  {
    const Tensor logits = random({2048, 32000}, 7, 4.0);
    Generator gen(8);
    std::vector<int32_t> t(2048);
    for (auto& v : t) v = static_cast<int32_t>(gen.next_u32() % 32000);
    const Tensor targets = Tensor::from_vector(t, {2048});
    ops::CrossEntropyOptions o;
    o.label_smoothing = 0.1;
    const auto r = ops::cross_entropy(logits, targets, o);
    const Tensor dloss = Tensor::full({2048}, 1.0);
    report("cross_entropy (ls 0.1) fwd [2048,32000]", 1.0 * logits.nbytes(),
           [&] { ops::cross_entropy(logits, targets, o); });
    report("cross_entropy bwd [2048,32000]", 2.0 * logits.nbytes(),
           [&] { ops::cross_entropy_backward(dloss, logits, targets, r.lse, o); });
  }
  return 0;
}
