// The one map between Marian's transformer parameters and realmt's, read by the importer
// (marian_import.h) and the writer (marian_export.h). Marian keeps every projection separate
// (W [in, out], b [1, out]); realmt joins the self-attention's Q|K|V and the cross-attention's
// K|V along the output columns. The tables and the output layer are not listed here: their
// rows depend on the vocabulary (each side handles its <pad> entry).
#pragma once

#include <string>
#include <vector>

#include "models/model_config.h"

namespace realmt::convert {

struct MarianParameter {
  std::string realmt;               // realmt's parameter
  std::vector<std::string> marian;  // Marian's parameters whose columns (or elements) make it, in order
  bool vector = false;              // Marian [1, N] -> realmt [N] (biases, layer norms); else a matrix
};

// Every layer parameter of a transformer of `c`'s depths, encoder then decoder (Pre-LN: Marian's
// preprocess norms, named with _pre; the final norms are not listed).
std::vector<MarianParameter> marian_layer_parameters(const models::ModelConfig& c);

}  // namespace realmt::convert
