// copy_to: y = a copy of x on `device` (cpu or cuda:N).
//   x [...] any dtype -> y [...] same dtype, on device. Always a new tensor, also when x is
//   already there, so y never aliases x.
// There is no kernel slot: the bytes move through the DeviceRuntime of the device involved
// (Tensor::copy_from; for CUDA, stream-ordered copies). A device this build or machine lacks
// is an error from the runtime.
#pragma once

#include "core/tensor.h"

namespace realmt::ops {

Tensor copy_to(const Tensor& x, Device device);

}  // namespace realmt::ops
