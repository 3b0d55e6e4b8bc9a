// Helpers of the tests that read the Hugging Face fixtures (fixtures/hf): a fixture's folder and
// expected outputs, the fixture converted and loaded as realmt-translate loads it, and the log-
// probabilities of a forced decoding.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convert/converted_model.h"
#include "convert/hf_import.h"
#include "data/vocab.h"
#include "graph/var.h"
#include "ops/softmax.h"
#include "search/model_loader.h"
#include "search/vocab_checks.h"
#include "../common/temp_dir.h"

namespace realmt::convert::fixtures {

using Json = nlohmann::json;

inline std::string fixture(const std::string& name) {
  return std::string(REALMT_HF_FIXTURES) + "/" + name;
}

inline Json expected_of(const std::string& name) {
  std::ifstream in(fixture(name) + "/expected.json");
  EXPECT_TRUE(in.good()) << fixture(name) << "/expected.json is missing";
  return Json::parse(in);
}

// The fixture converted and loaded as realmt-translate loads it, with its vocabulary.
struct Loaded {
  std::unique_ptr<models::Transformer> model;
  data::Vocab vocab;
};

inline Loaded load(const std::string& name, const testing::TempDir& tmp) {
  const std::string path = tmp.file(name + ".realmt");
  write_realmt(import_hf(fixture(name)), path);
  auto model = search::load_model(path, Device::cpu());
  data::Vocab vocab = search::load_vocab(
      {fixture(name) + "/source.spm", fixture(name) + "/target.spm"}, path, model->config());
  search::check_vocab_matches(vocab, *model, path);
  return {std::move(model), std::move(vocab)};
}

// log p(y_t | y_<t, x) of every token of `out` (its eos appended), forced decoding.
inline std::vector<double> forced_log_probs(const models::Transformer& model,
                                            std::vector<int32_t> src, std::vector<int32_t> out) {
  const models::ModelConfig& c = model.config();
  src.push_back(c.eos_id);
  out.push_back(c.eos_id);
  std::vector<int32_t> in{c.decoder_start_id};
  in.insert(in.end(), out.begin(), out.end() - 1);
  graph::NoGradGuard no_grad;
  const int64_t s = static_cast<int64_t>(src.size()), t = static_cast<int64_t>(in.size());
  const models::Encoded enc =
      model.encode(Tensor::from_vector(src, {1, s}), models::ForwardContext{});
  const Tensor lp = ops::log_softmax(
      model.logits(model.decode(enc, Tensor::from_vector(in, {1, t}), models::ForwardContext{}))
          .value());
  const std::vector<float> v = lp.to_vector<float>();
  const int64_t vocab = lp.shape()[2];
  std::vector<double> got;
  for (int64_t i = 0; i < t; ++i)
    got.push_back(v[static_cast<size_t>(i * vocab + out[static_cast<size_t>(i)])]);
  return got;
}

}  // namespace realmt::convert::fixtures
