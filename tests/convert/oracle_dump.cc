// convert_oracle_dump: the numbers the Python oracle (oracle.py) compares with PyTorch. Loads a
// realmt checkpoint, encodes a padded batch of source ids and runs the decoder teacher-forced on
// a padded batch of decoder inputs; writes the encoder output [B, S, D] ("encoder") and the
// decoder's log-probabilities [B, T, V] ("log_probs") as safetensors.
//   convert_oracle_dump MODEL SOURCE_IDS DECODER_INPUT_IDS OUT.safetensors
// The id files hold one sentence a line (space-separated ids, the source's eos included; rows
// are padded with the model's pad id here).
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/error.h"
#include "models/safetensors.h"
#include "ops/softmax.h"
#include "search/model_loader.h"

namespace {

using namespace realmt;

Tensor padded(const std::string& path, int32_t pad) {
  std::ifstream in(path);
  REALMT_CHECK(in.good(), "cannot read {}", path);
  std::vector<std::vector<int32_t>> rows;
  size_t width = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    rows.emplace_back();
    for (int32_t id; s >> id;) rows.back().push_back(id);
    width = std::max(width, rows.back().size());
  }
  std::vector<int32_t> flat(rows.size() * width, pad);
  for (size_t r = 0; r < rows.size(); ++r)
    std::copy(rows[r].begin(), rows[r].end(), flat.begin() + static_cast<int64_t>(r * width));
  return Tensor::from_vector(flat,
                             {static_cast<int64_t>(rows.size()), static_cast<int64_t>(width)});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: convert_oracle_dump MODEL SOURCE_IDS DECODER_INPUT_IDS OUT.safetensors\n";
    return 2;
  }
  try {
    const auto model = search::load_model(argv[1], Device::cpu());
    graph::NoGradGuard no_grad;
    const int32_t pad = model->config().pad_id;
    const models::Encoded enc = model->encode(padded(argv[2], pad), models::ForwardContext{});
    const Tensor logits =
        model->logits(model->decode(enc, padded(argv[3], pad), models::ForwardContext{})).value();
    models::save_safetensors(
        argv[4], {{"encoder", enc.out.value()}, {"log_probs", ops::log_softmax(logits)}});
  } catch (const std::exception& e) {
    std::cerr << "convert_oracle_dump: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
