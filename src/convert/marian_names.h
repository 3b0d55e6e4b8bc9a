// Marian's naming table: for each parameter of realmt's layout (models/layout.h), the Marian
// parameters that make it, read by the importer (marian_import.h) and the writer
// (marian_export.h). Marian keeps every projection separate (W [in, out], b [1, out]); realmt
// joins the self-attention's Q|K|V and the cross-attention's K|V along the output columns. The
// tables (embeddings, the output layer and its bias, Wpos) are the callers': their rows depend
// on the vocabulary (each side handles its <pad> entry).
#pragma once

#include <string>
#include <vector>

#include "models/layout.h"
#include "models/model_config.h"

namespace realmt::convert {

struct MarianParameter {
  std::string realmt;  // realmt's parameter
  std::vector<std::string>
      marian;           // Marian's parameters whose columns (or elements) make it, in order
  bool vector = false;  // Marian [1, N] -> realmt [N] (biases, layer norms); else a matrix
};

// Where one layout entry goes: kParameter (`parameter`), kTable (the caller's: rows of a
// vocabulary), or kNone (Marian has no such parameter; `reason` says why).
struct MarianMapping {
  enum class Kind { kParameter, kTable, kNone } kind = Kind::kParameter;
  MarianParameter parameter;
  std::string reason;
};
// `c` is the entry's config (Pre-LN: Marian's preprocess norms, named with _pre).
MarianMapping marian_mapping(const models::LayoutEntry& entry, const models::ModelConfig& c);

// The kParameter entries of `c`'s layout, in its order (layers, then Pre-LN's final norms). An
// entry Marian has no parameter for is an error naming it and the reason.
std::vector<MarianParameter> marian_layer_parameters(const models::ModelConfig& c);

}  // namespace realmt::convert
