#include "backend/cpu/int8_gemm.h"

#include <omp.h>

#include "core/error.h"
#include "core/parallel.h"
#include "oneapi/dnnl/dnnl.h"

namespace realmt::cpu {

namespace {

// oneDNN's ceiling for a realmt level: its ISAs are only partly ordered (avx2_vnni is not below
// avx512_core), so the avx2 level allows avx2_vnni where the CPU has AVX-VNNI.
dnnl_cpu_isa_t dnnl_ceiling(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kBaseline:
      return dnnl_cpu_isa_sse41;  // oneDNN's lowest JIT level (SSE2 CPUs: reference code)
    case CpuIsa::kAvx2: return cpu_features().avx_vnni ? dnnl_cpu_isa_avx2_vnni : dnnl_cpu_isa_avx2;
    case CpuIsa::kAvx512: return dnnl_cpu_isa_all;
  }
  return dnnl_cpu_isa_all;
}

// The ISA oneDNN dispatches to, after capping it at the process's level once. The cap only takes
// before oneDNN's first use (it can be set once); the effective ISA is read back either way, so
// the weight limit always matches the kernel oneDNN runs.
dnnl_cpu_isa_t dnnl_isa() {
  static const dnnl_cpu_isa_t isa = [] {
    dnnl_set_max_cpu_isa(dnnl_ceiling(cpu_isa_configured()));
    return dnnl_get_effective_cpu_isa();
  }();
  return isa;
}

bool includes(dnnl_cpu_isa_t isa, dnnl_cpu_isa_t part) { return (isa & part) == part; }

bool dnnl_has_vnni() {
  const dnnl_cpu_isa_t isa = dnnl_isa();
  return includes(isa, dnnl_cpu_isa_avx512_core_vnni) || includes(isa, dnnl_cpu_isa_avx2_vnni);
}

}  // namespace

void gemm_u8s8s32(int64_t m, int64_t n, int64_t k, const uint8_t* a, int64_t lda, const int8_t* b,
                  int64_t ldb, int32_t* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  dnnl_isa();  // the cap first
  // oneDNN threads with OpenMP's per-thread setting: make it realmt's cpu-threads on this thread
  // (server workers and other callers' threads start with the default, all cores).
  if (omp_get_max_threads() != num_threads()) omp_set_num_threads(num_threads());
  // Row-major C = A[m, k] B^T with B stored [n, k]; no offsets (the activations' zero points are
  // applied by dequantize_products).
  const int32_t no_offset = 0;
  const dnnl_status_t st = dnnl_gemm_u8s8s32('N', 'T', 'F', m, n, k, 1.0f, a, lda, 0, b, ldb, 0,
                                             0.0f, c, ldc, &no_offset);
  REALMT_CHECK(st == dnnl_success, "oneDNN int8 GEMM {}x{}x{} failed (status {})", m, n, k,
               static_cast<int>(st));
}

int int8_weight_limit() { return dnnl_has_vnni() ? 127 : 63; }

const char* int8_cpu_features() {
  const dnnl_cpu_isa_t isa = dnnl_isa();
  if (includes(isa, dnnl_cpu_isa_avx512_core_amx)) return "avx512_core_amx";
  if (includes(isa, dnnl_cpu_isa_avx512_core_bf16)) return "avx512_core_bf16";
  if (includes(isa, dnnl_cpu_isa_avx512_core_vnni)) return "avx512_core_vnni";
  if (includes(isa, dnnl_cpu_isa_avx512_core)) return "avx512_core (no vnni)";
  if (includes(isa, dnnl_cpu_isa_avx2_vnni)) return "avx2_vnni";
  if (includes(isa, dnnl_cpu_isa_avx2)) return "avx2 (no vnni)";
  if (includes(isa, dnnl_cpu_isa_sse41)) return "sse41 (no vnni)";
  return "reference (no vnni)";
}

}  // namespace realmt::cpu
