#include "backend/cuda/copy_rows.h"

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"

namespace realmt::cuda {

void copy_rows(int device, void* dst, size_t dst_pitch, const void* src, size_t src_pitch,
               size_t row_bytes, size_t rows) {
  if (row_bytes == 0 || rows == 0) return;
  const cudaStream_t stream = current_stream(device);
  set_device(device);
  if (rows == 1 || (dst_pitch == row_bytes && src_pitch == row_bytes)) {
    REALMT_CUDA_CHECK(
        cudaMemcpyAsync(dst, src, row_bytes * rows, cudaMemcpyDeviceToDevice, stream));
    return;
  }
  // cudaMemcpy2D takes pitches up to the device's memPitch (2^31 - 1 on current GPUs); rows
  // that long are few, so beyond it they are copied one call each.
  const size_t max_pitch = device_properties(device).memPitch;
  if (dst_pitch <= max_pitch && src_pitch <= max_pitch) {
    REALMT_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, row_bytes, rows,
                                        cudaMemcpyDeviceToDevice, stream));
    return;
  }
  for (size_t r = 0; r < rows; ++r)
    REALMT_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + r * dst_pitch,
                                      static_cast<const char*>(src) + r * src_pitch, row_bytes,
                                      cudaMemcpyDeviceToDevice, stream));
}

}  // namespace realmt::cuda
