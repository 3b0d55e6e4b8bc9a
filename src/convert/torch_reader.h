// PyTorch's torch.save files (pytorch_model.bin of older Hugging Face models): a zip archive with
// "<name>/data.pkl", a pickle (protocol 2) of the state dict, and the tensors' storages as
// "<name>/data/<key>". A small pickle machine runs the opcodes torch.save writes and rebuilds
// every tensor (torch._utils._rebuild_tensor_v2 over a persistent storage id: offset, sizes,
// strides) without Python. The legacy non-zip format (before PyTorch 1.6) is refused with a
// message.
#pragma once

#include <map>
#include <string>

#include "core/tensor.h"

namespace realmt::convert {

// The state dict's floating tensors as f32 host tensors (f16, bf16 and f64 converted), by name;
// integer and bool tensors (buffers) are left out, and listed in *skipped (name -> storage class,
// "LongStorage") when given. Errors name the file and the tensor or opcode.
std::map<std::string, Tensor> read_torch_state_dict(
    const std::string& path, std::map<std::string, std::string>* skipped = nullptr);

}  // namespace realmt::convert
