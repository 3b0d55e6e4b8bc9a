// A model on its way through realmt-convert: a realmt model config, its parameters under
// realmt's names (host f32 tensors), and the vocabulary's id tables when the model brings its own
// ids (Marian, Hugging Face). Importers (hf_import.h, marian_import.h, read_realmt) make one;
// writers (write_realmt here, ct2_export.h) take one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "models/model_config.h"

namespace realmt::convert {

struct ConvertedModel {
  models::ModelConfig config;
  std::vector<std::pair<std::string, Tensor>> tensors;  // realmt parameter names, f32 on the host
  // The pieces of every id: one table for both sides (target_table empty), or one a side. Empty
  // for a realmt-trained model read without its vocabulary.
  std::vector<std::string> source_table, target_table;
  std::string origin;  // what it came from, e.g. "hf:opus-mt-en-fr" (checkpoint metadata)

  // The tensor of parameter `name`; throws naming it when absent.
  const Tensor& tensor(const std::string& name) const;
  const std::vector<std::string>& target_pieces() const {
    return target_table.empty() ? source_table : target_table;
  }
};

// Checks that the tensors are exactly the parameters of a models::Transformer of the config,
// shapes included (errors list what is missing, extra or misshapen).
void check_parameters(const ConvertedModel& m);
// Writes a realmt checkpoint: the tensors in the model's parameter order, the config, the id
// tables (models::kVocabTableKey) and the origin ("realmt.converted-from").
void write_realmt(const ConvertedModel& m, const std::string& path);
// Reads a realmt checkpoint. Its id tables come from its metadata (a converted model), else from
// the SentencePiece model `spm` when given (a realmt-trained model: pieces in realmt's ids).
ConvertedModel read_realmt(const std::string& path, const std::string& spm = "");

// Helpers of the importers: a transposed copy of a 2-d tensor; tensors joined along columns
// ([R, C1] ... -> [R, sum C]); a 1-d view of a [1, N] or [N] tensor.
Tensor transposed(const Tensor& t);
Tensor join_columns(const std::vector<Tensor>& parts);
Tensor flat(const Tensor& t);

}  // namespace realmt::convert
