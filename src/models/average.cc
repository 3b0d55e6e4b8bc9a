#include "models/average.h"

#include <filesystem>
#include <map>

#include "models/checkpoint.h"
#include "models/checkpoint_record.h"
#include "models/model_config.h"
#include "models/safetensors.h"
#include "ops/cast.h"
#include "ops/elementwise.h"

namespace realmt::models {
namespace {

// One file under two names ("m.safetensors", "./m.safetensors", a symlink, a hard link)?
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;  // both exist and are one file
  return std::filesystem::weakly_canonical(std::filesystem::absolute(a), ec) ==
         std::filesystem::weakly_canonical(std::filesystem::absolute(b), ec);
}

// The config with what does not change the architecture cleared.
std::string architecture(ModelConfig c) {
  c.dropout = c.dropout_attention = c.dropout_ffn = 0.0;
  return c.to_yaml();
}

}  // namespace

AverageReport average_checkpoints(const std::vector<std::string>& inputs,
                                  const std::string& output) {
  REALMT_CHECK(!inputs.empty(), "realmt-average: give the checkpoints to average");
  for (const std::string& in : inputs)
    REALMT_CHECK(!same_file(in, output),
                 "output {} is also an input ({}); write the average to a new file", output, in);
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
    const SafetensorsFile f = load_safetensors(path);
    verify_checkpoint(f);  // format, checksums, no NaN or Inf
    const auto vocab = f.metadata.find(kVocabKey);
    const std::string fingerprint = vocab == f.metadata.end() ? "" : vocab->second;
    if (i == 0) {
      metadata = f.metadata;
      names = f.names;
      for (const std::string& n : names) {
        const SafetensorsEntry& e = f.entry(n);
        REALMT_CHECK(is_floating(e.dtype),
                     "{}: tensor {} holds {}; only floating tensors can be averaged", path, n,
                     e.dtype);
        dtypes.push_back(e.dtype);
        sums.push_back(Tensor::zeros(e.shape, DType::kF64));
      }
    }
    const auto first_vocab = metadata.find(kVocabKey);
    REALMT_CHECK(
        i == 0 || fingerprint.empty() || first_vocab == metadata.end() ||
            fingerprint == first_vocab->second,
        "{} was trained with another vocabulary than {} (their '{}' metadata differ); only "
        "checkpoints of one model can be averaged",
        path, inputs[0], kVocabKey);
    REALMT_CHECK(f.size() == names.size(), "{} holds {} tensors, {} holds {}", path, f.size(),
                 inputs[0], names.size());
    for (size_t t = 0; t < names.size(); ++t) {
      REALMT_CHECK(f.contains(names[t]), "{} lacks tensor {} (present in {})", path, names[t],
                   inputs[0]);
      const SafetensorsEntry& e = f.entry(names[t]);
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
  const ModelMetadata first = read_model_metadata(metadata, inputs[0]);
  ModelMetadata out_meta;
  out_meta.config = first.config;
  out_meta.vocab = first.vocab;
  out_meta.averaged = static_cast<int64_t>(inputs.size());
  save_checkpoint(output, tensors, model_metadata_text(out_meta));
  return report;
}

}  // namespace realmt::models
