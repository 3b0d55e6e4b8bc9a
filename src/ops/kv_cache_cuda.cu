// CUDA cache copies: one flat grid-stride loop over the copied words, with the widest word
// (16, 8, 4, 2 or 1 bytes) that divides every pointer, offset, stride and row length, so
// rows of Dh f32 values move as 16-byte vectors when they can. The block copies of the beams'
// reordering (gather_rows_) upload their list of blocks (24 bytes each, an asynchronous copy on
// the stream) and run the same way, one thread per word of a block; every block of one call has
// the same length.
#include <cstdint>
#include <vector>

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

// Calls f(W{}) with the widest word (16, 8, 4, 2 or 1 bytes) dividing `bits`, the OR of every
// pointer, offset, stride and length the copy uses.
template <typename F>
void with_word(uint64_t bits, F&& f) {
  if (bits % 16 == 0)
    f(uint4{});
  else if (bits % 8 == 0)
    f(uint2{});
  else if (bits % 4 == 0)
    f(uint32_t{});
  else if (bits % 2 == 0)
    f(uint16_t{});
  else
    f(uint8_t{});
}

void copy_cuda(const Tensor& src, Tensor& dst, const KvCopy& c) {
  const int device = dst.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  const char* s = static_cast<const char*>(src.raw()) + c.src_offset;
  char* d = static_cast<char*>(dst.raw()) + c.dst_offset;
  uint64_t bits = reinterpret_cast<uintptr_t>(s) | reinterpret_cast<uintptr_t>(d);
  for (int64_t v : {c.bytes, c.src_n, c.src_h, c.src_t, c.dst_n, c.dst_h, c.dst_t})
    bits |= static_cast<uint64_t>(v);
  with_word(bits, [&](auto word) { launch<decltype(word)>(s, d, c, stream); });
}

template <typename W>
__global__ void copy_blocks(const char* src, char* dst, const ByteBlock* blocks, long long count,
                            long long words) {
  const long long total = count * words;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const ByteBlock b = blocks[i / words];
    const long long w = i % words;
    reinterpret_cast<W*>(dst + b.dst)[w] = reinterpret_cast<const W*>(src + b.src)[w];
  }
}

template <typename W>
void launch_blocks(const char* s, char* d, const ByteBlock* list, long long count, long long bytes,
                   cudaStream_t stream) {
  const long long words = bytes / static_cast<long long>(sizeof(W));
  copy_blocks<W>
      <<<cuda::grid_for(count * words), cuda::kBlockSize, 0, stream>>>(s, d, list, count, words);
  REALMT_CUDA_CHECK_LAUNCH();
}

void blocks_cuda(const Tensor& src, const Tensor& dst, const std::vector<ByteBlock>& blocks) {
  if (blocks.empty()) return;
  const int64_t bytes = blocks[0].bytes;
  const char* s = static_cast<const char*>(src.raw());
  char* d = static_cast<char*>(dst.raw());
  uint64_t bits = reinterpret_cast<uintptr_t>(s) | reinterpret_cast<uintptr_t>(d) |
                  static_cast<uint64_t>(bytes);
  for (const ByteBlock& b : blocks) {
    REALMT_ASSERT(b.bytes == bytes, "kv_cache blocks: lengths {} and {} in one call", bytes,
                  b.bytes);
    bits |= static_cast<uint64_t>(b.src) | static_cast<uint64_t>(b.dst);
  }
  if (bytes == 0) return;
  const int device = dst.device().index;
  const cudaStream_t stream = cuda::current_stream(device);
  cuda::set_device(device);
  // The list goes up on the stream without waiting for it: a copy from pageable host memory
  // returns once the driver has staged the bytes, so `blocks` may go, and the kernel after it
  // on the same stream reads the list complete.
  const size_t list_bytes = blocks.size() * sizeof(ByteBlock);
  const Tensor list_tensor =
      Tensor::empty({static_cast<int64_t>(list_bytes)}, DType::kU8, dst.device());
  REALMT_CUDA_CHECK(cudaMemcpyAsync(list_tensor.raw(), blocks.data(), list_bytes,
                                    cudaMemcpyHostToDevice, stream));
  const auto* list = static_cast<const ByteBlock*>(list_tensor.raw());
  const auto count = static_cast<long long>(blocks.size());
  with_word(bits,
            [&](auto word) { launch_blocks<decltype(word)>(s, d, list, count, bytes, stream); });
}

}  // namespace

REALMT_REGISTER_KERNEL(kv_cache_copy_kernel, kCuda, copy_cuda);
REALMT_REGISTER_KERNEL(kv_cache_blocks_kernel, kCuda, blocks_cuda);

}  // namespace realmt::ops
