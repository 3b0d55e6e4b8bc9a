#include "convert/converted_model.h"

#include <map>

#include "core/error.h"
#include "data/vocab.h"
#include "models/checkpoint_record.h"
#include "models/safetensors.h"
#include "models/transformer.h"
#include "ops/cast.h"
#include "ops/concat.h"
#include "ops/permute.h"

namespace realmt::convert {

const Tensor& ConvertedModel::tensor(const std::string& name) const {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  REALMT_FAIL("converted model has no parameter '{}'", name);
}

void check_parameters(const ConvertedModel& m) {
  const models::Transformer model(m.config);
  const graph::ParameterSet& p = model.params();
  std::map<std::string, Shape> have;
  for (const auto& [name, t] : m.tensors) {
    REALMT_CHECK(have.emplace(name, t.shape()).second, "parameter '{}' given twice", name);
    REALMT_CHECK(t.dtype() == DType::kF32 && t.device().type == DeviceType::kCpu,
                 "parameter '{}': an f32 host tensor is needed, got {}", name, t);
  }
  std::string missing, wrong;
  for (int i = 0; i < p.size(); ++i) {
    const auto it = have.find(p.names()[i]);
    if (it == have.end()) {
      missing += " " + p.names()[i];
      continue;
    }
    if (it->second != p.shapes()[i])
      wrong +=
          format(" {} (model {}, given {})", p.names()[i], p.shapes()[i].str(), it->second.str());
    have.erase(it);
  }
  std::string extra;
  for (const auto& [name, shape] : have) extra += " " + name;
  REALMT_CHECK(missing.empty() && wrong.empty() && extra.empty(),
               "the converted parameters do not fit the model:{}{}{}{}{}{}",
               missing.empty() ? "" : " missing", missing, wrong.empty() ? "" : "; misshapen",
               wrong, extra.empty() ? "" : "; unexpected", extra);
}

void write_realmt(const ConvertedModel& m, const std::string& path) {
  check_parameters(m);
  const models::Transformer model(m.config);
  std::vector<std::pair<std::string, Tensor>> ordered;
  for (const std::string& name : model.params().names()) ordered.emplace_back(name, m.tensor(name));
  models::ModelMetadata meta;
  meta.config = m.config.to_yaml();
  if (!m.source_table.empty()) meta.vocab_table = m.source_table;
  if (!m.target_table.empty()) meta.vocab_table_target = m.target_table;
  if (!m.origin.empty()) meta.converted_from = m.origin;
  models::save_checkpoint(path, ordered, models::model_metadata_text(meta));
}

ConvertedModel read_realmt(const std::string& path, const std::string& spm) {
  const models::SafetensorsFile f = models::load_safetensors(path);
  models::verify_checkpoint(f);
  const models::ModelMetadata meta = models::read_model_metadata(f.metadata, path);
  ConvertedModel m;
  m.config = models::ModelConfig::from_yaml(meta.config, path + " (" + models::kConfigKey + ")");
  for (const std::string& name : f.names) {
    Tensor t = f.get(name);
    m.tensors.emplace_back(name, t.dtype() == DType::kF32 ? t : ops::cast(t, DType::kF32));
  }
  check_parameters(m);
  m.source_table = meta.vocab_table.value_or(models::VocabTable{});
  m.target_table = meta.vocab_table_target.value_or(models::VocabTable{});
  if (m.source_table.empty() && !spm.empty()) {
    const data::Vocab v(spm);
    REALMT_CHECK(v.size() == m.config.vocab_size, "vocabulary {} has {} pieces but model {} has {}",
                 spm, v.size(), path, m.config.vocab_size);
    for (int32_t id = 0; id < v.size(); ++id) m.source_table.push_back(v.piece(id));
  }
  m.origin = meta.converted_from.value_or("realmt:" + path);
  return m;
}

Tensor transposed(const Tensor& t) {
  REALMT_CHECK(t.rank() == 2, "a 2-d tensor is needed, got {}", t);
  return ops::transpose(t, 0, 1);
}

Tensor join_columns(const std::vector<Tensor>& parts) { return ops::concat(parts, 1); }

Tensor flat(const Tensor& t) { return t.reshape({t.numel()}); }

}  // namespace realmt::convert
