// Writing a CTranslate2 model directory (model.bin: TransformerSpec revision 7, binary version 6;
// config.json; shared_vocabulary.json or source_/target_vocabulary.json) from a realmt model, so
// that CTranslate2 can serve realmt-trained baselines and both decoders run identical weights.
//
// What maps: Post-LN and Pre-LN stacks (pre_norm), relu / gelu / swish, the fused Q|K|V and K|V
// projections (CTranslate2 keeps W as [out, in]), tied or untied tables (written out), the output
// bias, explicit position tables (every layout; `max_positions` rows, CTranslate2 refuses longer
// sequences), the embedding scale and the layer norm epsilon. ADMIN's omegas are folded exactly:
// x_i = LN(x_{i-1} w_i + f(x_{i-1})) is LN(x' + f'(x')) with x' = x_{i-1} w_i made by the previous
// layer norm (gamma and beta times w_i; the first sub-layer's: the embeddings and positions times
// w_i) and f' reading x' through its input projection's rows divided by w_i. Residual attention
// (RealFormer) has no counterpart in CTranslate2's Transformer and is refused.
//
// Sources get eos appended by CTranslate2 (add_source_eos), as realmt does: its users pass the
// SentencePiece pieces alone. A Marian / Hugging Face model whose decoder starts from the zero
// embedding of a last <pad> entry is written as CTranslate2's own converter writes it: the <pad>
// entry removed and start_from_zero_embedding set.
#pragma once

#include <string>

#include "convert/converted_model.h"
#include "models/layout.h"

namespace realmt::convert {

struct Ct2Options {
  int64_t max_positions = 1024;  // rows of the position tables
};

// CTranslate2's naming table: where one parameter of realmt's layout (models/layout.h) goes.
// kTensor / kTransposed: written under `name` (linear weights transposed to [out, in]); kTable:
// a table, the position table or the output bias, which the writer places itself (it may drop
// their <pad> row and fold omegas into them); kFolded: ADMIN's omega, folded into its neighbours.
struct Ct2Mapping {
  enum class Kind { kTensor, kTransposed, kTable, kFolded } kind = Kind::kTensor;
  std::string name;
};
Ct2Mapping ct2_mapping(const models::LayoutEntry& entry);

// Writes the model into `dir` (created; model.bin written atomically). The model needs its id
// tables (ConvertedModel::source_table: read_realmt with the .spm for a realmt-trained model).
void write_ctranslate2(const ConvertedModel& m, const std::string& dir,
                       const Ct2Options& options = {});

}  // namespace realmt::convert
