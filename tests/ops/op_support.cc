// The support table of the op harness, as ggml's test-backend-ops "support" mode: for every
// case, which backends have a kernel for every kernel slot the op looks up. The slots are found
// by running the case on the CPU under a KernelTrace (core/dispatch.h), so the table needs no
// GPU: in a CUDA build on a machine without one it still says which ops the build can run there.
//   op_tests --gtest_filter='OpSupport.*'     prints the table
// Checked: the CPU (the reference) supports every case, with a copy of each kernel compiled for
// every CPU level the build has (core/cpu_isa.h); with a GPU visible, so does CUDA (as
// OpTest.CudaMatchesCpu, which runs them). Without a GPU the CUDA column is information: a CUDA
// build on such a machine prints what it lacks but does not fail here.
// Kernels look up by device type only; a dtype a kernel rejects shows as an error when it runs.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/cpu_isa.h"
#include "core/dispatch.h"
#include "core/runtime.h"
#include "ops/elementwise.h"
#include "ops/unary.h"
#include "op_harness.h"

namespace realmt::test {
namespace {

TEST(OpSupport, TableOfKernelsPerBackend) {
#ifdef REALMT_WITH_CUDA
  const bool cuda_built = true;
#else
  const bool cuda_built = false;
#endif
  const int gpus = device_count(DeviceType::kCuda);
  std::printf("op support (kernels registered per backend; CUDA %s, %d device(s) visible)\n",
              cuda_built ? "built" : "not built", gpus);
  std::printf("%-40s %-5s %-5s  %s\n", "case", "CPU", "CUDA",
              "kernel slots looked up (missing on CUDA marked *)");
  int cases = 0, cpu_ok = 0, cuda_ok = 0;
  for (const OpCase& c : all_cases()) {
    const Tensors in = make_inputs(c, c.dtype, 1234);
    KernelTrace trace;
    c.run(in);
    bool cpu = true, cuda = true;
    std::string slots;
    for (const KernelUse& u : trace.uses()) {
      const bool on_cpu = u.has[static_cast<int>(DeviceType::kCpu)];
      const bool on_cuda = u.has[static_cast<int>(DeviceType::kCuda)];
      cpu = cpu && on_cpu;
      cuda = cuda && on_cuda;
      slots += (slots.empty() ? "" : " ") + u.name + (on_cuda ? "" : "*");
      EXPECT_TRUE(on_cpu) << c.name << ": " << u.name
                          << " has no CPU kernel (the CPU is the reference)";
      for (int level = 0; level <= static_cast<int>(cpu_isa_built()); ++level)
        EXPECT_TRUE(u.cpu_levels[level])
            << c.name << ": " << u.name << " has no CPU kernel compiled for "
            << cpu_isa_name(static_cast<CpuIsa>(level))
            << " (only *_cpu.cc files are compiled per level)";
    }
    if (trace.uses().empty()) slots = "(none: a view or a copy between devices)";
    std::printf("%-40s %-5s %-5s  %s\n", c.name.c_str(), cpu ? "yes" : "NO", cuda ? "yes" : "NO",
                slots.c_str());
    ++cases;
    cpu_ok += cpu;
    cuda_ok += cuda;
    if (gpus > 0) {
      EXPECT_TRUE(cuda) << c.name << ": a GPU is visible but this build has no CUDA kernel for "
                        << slots;
    }
  }
  std::printf("supported: CPU %d of %d cases, CUDA %d of %d%s\n", cpu_ok, cases, cuda_ok, cases,
              cuda_built ? "" : " (no CUDA backend in this build)");
  EXPECT_GT(cases, 50);
}

// The trace sees the slots a computation looks up, once each, with their backends, and nests.
TEST(OpSupport, KernelTraceRecordsLookups) {
  const Tensor a = Tensor::from_vector(std::vector<float>{1.f, -2.f}, {2});
  EXPECT_EQ(KernelTrace::active(), nullptr);
  {
    KernelTrace outer;
    ops::add(a, a);
    {
      KernelTrace inner;
      EXPECT_EQ(KernelTrace::active(), &inner);
      ops::relu(ops::mul(a, a));
      ops::mul(a, a);
      ASSERT_EQ(inner.uses().size(), 2u);
      EXPECT_EQ(inner.uses()[0].name, "mul_kernel");
      EXPECT_EQ(inner.uses()[1].name, "relu_kernel");
      EXPECT_TRUE(inner.uses()[0].has[static_cast<int>(DeviceType::kCpu)]);
    }
    EXPECT_EQ(KernelTrace::active(), &outer);
    ops::add(a, a);
    ASSERT_EQ(outer.uses().size(), 1u);
    EXPECT_EQ(outer.uses()[0].name, "add_kernel");
  }
  EXPECT_EQ(KernelTrace::active(), nullptr);
}

}  // namespace
}  // namespace realmt::test
