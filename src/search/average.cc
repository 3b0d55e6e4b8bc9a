#include "search/average.h"

#include <filesystem>
#include <map>

#include "models/checkpoint.h"
#include "models/model_config.h"
#include "models/safetensors.h"
#include "ops/cast.h"
#include "ops/elementwise.h"
#include "search/model_loader.h"

namespace realmt::search {
namespace {

// The config with what does not change the architecture cleared.
std::string architecture(models::ModelConfig c) {
  c.dropout = c.dropout_attention = c.dropout_ffn = 0.0;
  return c.to_yaml();
}

}  // namespace

AverageReport average_checkpoints(const std::vector<std::string>& inputs,
                                  const std::string& output) {
  REALMT_CHECK(!inputs.empty(), "realmt-average: give the checkpoints to average");
  for (const std::string& in : inputs)
    REALMT_CHECK(std::filesystem::absolute(in) != std::filesystem::absolute(output),
                 "output {} is also an input; write the average to a new file", output);
  const std::string arch = architecture(read_model_config(inputs[0]));
  std::map<std::string, std::string> metadata;
  std::vector<std::string> names;
  std::vector<DType> dtypes;
  std::vector<Tensor> sums;  // f64
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& path = inputs[i];
    REALMT_CHECK(architecture(read_model_config(path)) == arch,
                 "{} has another architecture than {} (compare their realmt.config metadata); only "
                 "checkpoints of "
                 "one model can be averaged",
                 path, inputs[0]);
    const models::SafetensorsFile f = models::load_safetensors(path);
    if (i == 0) {
      metadata = f.metadata;
      names = f.names;
      for (const std::string& n : names) {
        const models::SafetensorsEntry& e = f.entry(n);
        REALMT_CHECK(is_floating(e.dtype),
                     "{}: tensor {} holds {}; only floating tensors can be averaged", path, n,
                     e.dtype);
        dtypes.push_back(e.dtype);
        sums.push_back(Tensor::zeros(e.shape, DType::kF64));
      }
    }
    REALMT_CHECK(f.size() == names.size(), "{} holds {} tensors, {} holds {}", path, f.size(),
                 inputs[0], names.size());
    for (size_t t = 0; t < names.size(); ++t) {
      REALMT_CHECK(f.contains(names[t]), "{} lacks tensor {} (present in {})", path, names[t],
                   inputs[0]);
      const models::SafetensorsEntry& e = f.entry(names[t]);
      REALMT_CHECK(e.shape == sums[t].shape() && e.dtype == dtypes[t],
                   "{}: tensor {} is {} {}, in {} it is {} {}", path, names[t], e.dtype, e.shape,
                   inputs[0], dtypes[t], sums[t].shape());
      ops::add_(sums[t], ops::cast(f.get(names[t]), DType::kF64));
    }
  }
  AverageReport report{inputs.size(), names.size(), 0};
  std::vector<std::pair<std::string, Tensor>> tensors;
  const Tensor scale = Tensor::full({1}, 1.0 / static_cast<double>(inputs.size()), DType::kF64);
  for (size_t t = 0; t < names.size(); ++t) {
    report.elements += static_cast<size_t>(sums[t].numel());
    tensors.emplace_back(names[t], ops::cast(ops::mul(sums[t], scale), dtypes[t]));
  }
  std::map<std::string, std::string> out_meta{{models::kFormatKey, models::kFormatVersion},
                                              {models::kConfigKey, metadata.at(models::kConfigKey)},
                                              {"realmt.averaged", std::to_string(inputs.size())}};
  models::save_safetensors(output, tensors, out_meta);
  return report;
}

}  // namespace realmt::search
