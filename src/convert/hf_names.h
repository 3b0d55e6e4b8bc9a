// Hugging Face's naming table (MarianMTModel): for each parameter of realmt's layout
// (models/layout.h), the tensors of a Hugging Face checkpoint that make it, read by the importer
// (hf_import.h). PyTorch's Linear keeps W [out, in] (y = x W^T + b), realmt W [in, out]; realmt
// joins the self-attention's Q|K|V and the cross-attention's K|V along the output columns. The
// tables (embeddings, lm_head, final_logits_bias) are the importer's: their tying depends on the
// checkpoint (hf_import.cc).
#pragma once

#include <string>
#include <vector>

#include "models/layout.h"

namespace realmt::convert {

// kParameter: `tensors`, each transposed when `transpose` (weights), joined along the output
// columns (weights) or concatenated (biases, norms); kTable: the importer's; kNone: the
// MarianMTModel has no such parameter (`reason`).
struct HfMapping {
  enum class Kind { kParameter, kTable, kNone } kind = Kind::kParameter;
  std::vector<std::string> tensors;
  bool transpose = false;
  std::string reason;
};
HfMapping hf_mapping(const models::LayoutEntry& entry);

}  // namespace realmt::convert
