#include "training/admin_profile.h"

#include "models/admin.h"
#include "training/validator.h"

namespace realmt::training {

std::string profile_admin_on_first_batch(models::Transformer& model,
                                         data::BatchGeneratorOptions options, uint64_t seed) {
  options.prefetch = 0;  // one batch is all we need
  data::BatchGenerator loader(options);
  std::optional<data::Batch> batch = loader.next();
  REALMT_CHECK(batch.has_value(), "ADMIN profiling: the training corpus {} yields no batch",
               options.src_path);
  Tensor src = Tensor::from_vector(batch->src, {batch->size, batch->src_len});
  Tensor tgt_in, tgt_out;
  shift_target(batch->tgt, batch->size, batch->tgt_len, loader.vocab().ids(), &tgt_in, &tgt_out);
  Generator dropout(seed * 7919 + 17);
  models::AdminProfiler profiler;
  models::ForwardContext ctx;
  ctx.gen = &dropout;
  ctx.profiler = &profiler;
  graph::NoGradGuard no_grad;  // the pass only measures; omegas are set in place
  model.loss(src, tgt_in, tgt_out, 0.0, ctx);
  return profiler.table();
}

}  // namespace realmt::training
