#include "search/model_loader.h"

#include <filesystem>

#include "core/allocator.h"
#include "models/checkpoint.h"
#include "models/checkpoint_record.h"
#include "models/safetensors.h"

namespace realmt::search {

std::unique_ptr<models::Transformer> load_model(const std::string& path, Device device,
                                                Quantize quantize) {
  auto model = std::make_unique<models::Transformer>(models::read_model_config(path));
  models::LoadOptions options;
  if (quantize == Quantize::kInt8) {
    // Each weight is quantized as it is read: one f32 weight in memory at a time, never the model.
    model->allocate_int8(device);
    options.released = [&model](int index, const Tensor& w) { model->quantize_weight(index, w); };
  } else {
    model->allocate(device, DType::kF32, graph::Gradients::kNo);
  }
  models::load_parameters(path, model->params(), options);
  if (quantize == Quantize::kInt8) model->quantize();  // the embedding table's int8 copy
  // Loading temporaries (host copies, conversions) go back to the system, not to the cache.
  allocator_for(device).release_cached();
  return model;
}

Device parse_decode_device(const std::vector<std::string>& devices) {
  REALMT_CHECK(devices.size() <= 1, "devices: decoding runs on one device a process, got {}",
               devices.size());
  if (devices.empty() || devices[0].empty() || devices[0] == "cpu") return Device::cpu();
  return parse_device(devices[0]);
}

}  // namespace realmt::search
