// CUDA cache copies: one flat grid-stride loop over the copied words, with the widest word
// (16, 8, 4, 2 or 1 bytes) that divides every pointer, offset, stride and row length, so
// rows of Dh f32 values move as 16-byte vectors when they can.
#include <cstdint>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "ops/kv_cache.h"

namespace realmt::ops {
namespace {

// Strides and offsets of KvCopy, in words of type W.
struct WordCopy {
  long long n, heads, rows_per_head, words;  // words per row
  long long src_n, src_h, src_t, dst_n, dst_h, dst_t;
};

template <typename W>
__global__ void copy_words(const W* src, W* dst, WordCopy c) {
  const long long total = c.n * c.heads * c.rows_per_head * c.words;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long w = i % c.words, row = i / c.words;
    const long long t = row % c.rows_per_head, nh = row / c.rows_per_head;
    const long long h = nh % c.heads, n = nh / c.heads;
    dst[n * c.dst_n + h * c.dst_h + t * c.dst_t + w] =
        src[n * c.src_n + h * c.src_h + t * c.src_t + w];
  }
}

template <typename W>
void launch(const char* s, char* d, const KvCopy& c, cudaStream_t stream) {
  constexpr long long k = sizeof(W);
  const WordCopy w{c.n,         c.heads,     c.rows_per_head, c.bytes / k, c.src_n / k,
                   c.src_h / k, c.src_t / k, c.dst_n / k,     c.dst_h / k, c.dst_t / k};
  copy_words<W>
      <<<cuda::grid_for(c.n * c.heads * c.rows_per_head * w.words), cuda::kBlockSize, 0, stream>>>(
          reinterpret_cast<const W*>(s), reinterpret_cast<W*>(d), w);
  REALMT_CUDA_CHECK_LAUNCH();
}

void copy_cuda(const Tensor& src, Tensor& dst, const KvCopy& c) {
  const int device = dst.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const char* s = static_cast<const char*>(src.raw()) + c.src_offset;
  char* d = static_cast<char*>(dst.raw()) + c.dst_offset;
  // The largest power of two (up to 16) dividing all of them.
  uint64_t bits = reinterpret_cast<uintptr_t>(s) | reinterpret_cast<uintptr_t>(d);
  for (int64_t v : {c.bytes, c.src_n, c.src_h, c.src_t, c.dst_n, c.dst_h, c.dst_t})
    bits |= static_cast<uint64_t>(v);
  if (bits % 16 == 0)
    launch<uint4>(s, d, c, stream);
  else if (bits % 8 == 0)
    launch<uint2>(s, d, c, stream);
  else if (bits % 4 == 0)
    launch<uint32_t>(s, d, c, stream);
  else if (bits % 2 == 0)
    launch<uint16_t>(s, d, c, stream);
  else
    launch<uint8_t>(s, d, c, stream);
}

}  // namespace

REALMT_REGISTER_KERNEL(kv_cache_copy_kernel, kCuda, copy_cuda);

}  // namespace realmt::ops
