// The decoder config beside each saved model, as Marian writes <model>.decoder.yml:
// realmt-translate -c model.safetensors.decoder.yml translates with the model, the vocabularies and
// the search settings validation used.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#include <yaml-cpp/yaml.h>
#pragma GCC diagnostic pop

#include <charconv>

#include "common/atomic_file.h"
#include "models/safetensors.h"
#include "training/trainer_impl.h"

namespace realmt::training {
namespace {

// The shortest text that reads back as the same number ("0.6", not "0.59999999999999998").
std::string number(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

}  // namespace

std::string decoder_config_yaml(const std::string& model_path, const TrainOptions& o) {
  // Marian's keys and values (EncoderDecoder::createDecoderConfig): the paths as given.
  const bool batched = o.valid_mini_batch > 1;
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "models" << YAML::Value << YAML::BeginSeq << model_path << YAML::EndSeq;
  e << YAML::Key << "vocabs" << YAML::Value << YAML::BeginSeq;
  for (const auto& v : o.vocabs) e << v;
  e << YAML::EndSeq;
  e << YAML::Key << "beam-size" << YAML::Value << o.valid_beam_size;
  e << YAML::Key << "normalize" << YAML::Value << number(o.valid_normalize);
  e << YAML::Key << "word-penalty" << YAML::Value << number(o.valid_word_penalty);
  e << YAML::Key << "mini-batch" << YAML::Value << o.valid_mini_batch;
  e << YAML::Key << "maxi-batch" << YAML::Value << (batched ? 100 : 1);
  e << YAML::Key << "maxi-batch-sort" << YAML::Value << (batched ? "src" : "none");
  e << YAML::Key << "relative-paths" << YAML::Value << false;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

void Trainer::Impl::write_decoder_config(const std::string& model_path) const {
  // Marian's config name (model.npz.decoder.yml) listing the file the model is in
  // (model.safetensors).
  write_file_atomic(model_path + ".decoder.yml",
                    decoder_config_yaml(models::checkpoint_file(model_path), o));
}

}  // namespace realmt::training
