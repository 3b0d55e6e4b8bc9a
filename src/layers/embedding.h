// Token embeddings, scaled by sqrt(D) (optional), plus sinusoidal positions. Three layouts of the
// sinusoids of position p over the D dimensions (i = 0 .. D/2 - 1):
//   sinusoidal         (Vaswani et al. 2017, 3.5)  PE(p, 2i) = sin(p w_i), PE(p, 2i+1) = cos(p
//   w_i),
//                                                  w_i = 10000^(-2i/D)
//   sinusoidal-halves  (Hugging Face's Marian)     PE(p, i) = sin(p w_i), PE(p, D/2 + i) = cos(p
//   w_i),
//                                                  w_i = 10000^(-2i/D)
//   sinusoidal-marian  (Marian, tensor2tensor)     PE(p, i) = sin(p w_i), PE(p, D/2 + i) = cos(p
//   w_i),
//                                                  w_i = 10000^(-i/(D/2 - 1))
// (the last two differ: an OPUS-MT model converted by Hugging Face's script sees other positions
// than in Marian). One table [V, D] ("<prefix>.weight") may serve source, target and output
// projection (tied embeddings); it starts Normal(0, D^-1/2), which the sqrt(D) scale makes unit
// variance (Normal(0, 1) without the scale). A decoding model may add an int8 copy of the table
// (per row, ops/quantize.h) for the output projection; lookups keep reading the f32 table, which
// stays: a lookup costs nothing to keep exact, while a quantized input embedding is the largest
// single source of int8 error measured (bench/RESULTS.md, "int8 accuracy"). Learned positions
// (Marian's transformer-train-positions) add row p of a trained table [P, D] instead (one table,
// made by the model and shared by source and target as Marian's "Wpos"); a position past the
// table's last row reads that last row, as Marian does.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "common/enum_names.h"
#include "core/rng.h"
#include "graph/parameters.h"
#include "graph/var.h"
#include "ops/quantize.h"

namespace realmt::layers {

enum class Positions { kSinusoidal, kSinusoidalHalves, kSinusoidalMarian, kLearned };
constexpr auto enum_names(Positions) {
  return std::to_array<EnumName<Positions>>({{Positions::kSinusoidal, "sinusoidal"},
                                             {Positions::kSinusoidalHalves, "sinusoidal-halves"},
                                             {Positions::kSinusoidalMarian, "sinusoidal-marian"},
                                             {Positions::kLearned, "learned"}});
}

struct EmbeddingOptions {
  Positions positions = Positions::kSinusoidal;
  bool scale = true;        // token embeddings times sqrt(D)
  int position_table = -1;  // kLearned: the index of the [P, D] table in the same parameter set
};

class Embedding {
 public:
  Embedding() = default;
  Embedding(graph::ParameterSet& params, const std::string& prefix, int64_t vocab, int64_t dim,
            const EmbeddingOptions& options = {});
  // Binds a table [V, D] already declared in `params` (a model's layout, models/layout.h).
  Embedding(const graph::ParameterSet& params, int weight, const EmbeddingOptions& options);

  // ids i32 [B, T] (positions start at `first_position`, for incremental decoding) -> [B, T, D].
  // zero_rows (u8 [B, T, 1], optional): where it is non-zero the token's embedding is a zero
  // vector (the position is still added; no gradient reaches the table there).
  graph::Var operator()(const Tensor& ids, int64_t first_position = 0,
                        const Tensor& zero_rows = Tensor()) const;
  const graph::Var& weight() const { return (*params_)[weight_]; }
  // Makes the int8 copy (per row) of w, the table as f32 [V, D] (its parameter's value), for the
  // output projection; the f32 table stays for lookups.
  void quantize(const Tensor& w);
  int weight_index() const { return weight_; }
  // The int8 table, or nullptr.
  const ops::QuantizedWeight* quantized() const { return quantized_.get(); }
  Device device() const { return weight().device(); }
  DType dtype() const { return weight().dtype(); }
  int64_t vocab() const { return vocab_; }
  int64_t dim() const { return dim_; }

  // The position table rows [first, first + T) as [T, D] on `device` (sinusoids: cached, grown on
  // demand; learned: the table's rows, the last one repeated past its end).
  Tensor positions(int64_t first, int64_t count, DType dtype, Device device) const;

 private:
  // kLearned: the rows first .. first + count - 1 of the table, each clamped to its last row.
  Tensor learned_rows(int64_t first, int64_t count) const;
  void check_options() const;

 private:
  const graph::ParameterSet* params_ = nullptr;
  int weight_ = -1;
  int64_t vocab_ = 0, dim_ = 0;
  EmbeddingOptions options_;
  mutable std::unique_ptr<std::mutex> cache_mutex_ = std::make_unique<std::mutex>();
  mutable Tensor cache_;  // [rows, D] on cache_device_
  std::shared_ptr<const ops::QuantizedWeight> quantized_;
};

}  // namespace realmt::layers
