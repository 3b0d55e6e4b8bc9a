#include "training/shard.h"

#include "core/error.h"

namespace realmt::training {

Round draw_round(const std::function<std::optional<data::Batch>()>& next, int rank, int size) {
  REALMT_CHECK(size >= 1 && rank >= 0 && rank < size, "draw_round: rank {} of {}", rank, size);
  Round round;
  for (int i = 0; i < size; ++i) {
    std::optional<data::Batch> b = next();
    if (!b) {
      round.end_of_epoch = true;
      break;
    }
    round.batches += 1;
    round.sentences += b->size;
    if (i == rank) round.own = std::move(b);
  }
  return round;
}

}  // namespace realmt::training
