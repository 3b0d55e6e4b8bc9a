// The training state's record (training/training_state.h): one field table for save and resume,
// so every field survives a round trip, the texts are those earlier versions wrote (their states
// keep loading), and a missing or damaged key is an error naming the file and the key.
#include "training/training_state.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../common/expect_error.h"
#include "../common/record_table.h"
#include "../common/temp_dir.h"
#include "models/safetensors.h"

namespace realmt::training {
namespace {

using realmt::testing::expect_error;

// No field at its default: a field the table forgot reads back as its default and shows.
TrainingState every_field_set() {
  return {.updates = 10,
          .epoch = 2,
          .batches = 11,
          .tokens = 3894,
          .sentences = 858,
          .optimizer_steps = 9,
          .best = {{"cross-entropy", 13.308503214518229}, {"perplexity", 11.758044355235365}},
          .stalled = {{"cross-entropy", 1}, {"perplexity", 2}},
          .first_best = 13.308503214518229,
          .first_stalled = 1,
          .epoch_start = EpochStartState{.updates = 7, .sentences = 600},
          .grad_norm_avg = 1.0296179054065939,
          .rng_state = "55450:892416",
          .loss_scale = LossScaleState{.scale = 32768, .clean_run = 5, .skipped = 3},
          .data_position =
              "realmt-batch-state-v1 epoch=0 pool-start=0 skip=10 lines=1500 usable=1500 seed=7",
          .vocab = "spm-fnv1a64:24:a8cd993044799c45",
          .ranks = 3,
          .rank_rng_states = {{"1", "1:2"}, {"2", "3:4"}}};
}

TEST(TrainingStateRecord, TheFieldTablesCoverEveryMember) {
  EXPECT_EQ(realmt::testing::record_table_holes<TrainingState>(), "");
  EXPECT_EQ(realmt::testing::record_table_holes<LossScaleState>(), "");
  EXPECT_EQ(realmt::testing::record_table_holes<EpochStartState>(), "");
}

TEST(TrainingStateRecord, EveryFieldSurvivesARoundTrip) {
  const TrainingState s = every_field_set();
  const TrainingState back = read_training_state(training_state_text(s), "m.state.safetensors");
  EXPECT_EQ(back, s);
  // Without validation the first metric's keys hold infinity, as they always have.
  TrainingState plain = s;
  plain.first_best = INFINITY;
  EXPECT_EQ(read_training_state(training_state_text(plain), "m").first_best, INFINITY);
}

TEST(TrainingStateRecord, WritesTheKeysAndTextsEarlierVersionsWrote) {
  // The metadata realmt-train wrote before the record (a 3-process f16 run with two metrics).
  const models::Metadata want = {
      {"realmt.step", "10"},
      {"realmt.epoch", "2"},
      {"realmt.batches", "11"},
      {"realmt.tokens", "3894"},
      {"realmt.sentences", "858"},
      {"realmt.optimizer_steps", "9"},
      {"realmt.best.cross-entropy", "13.308503214518229"},
      {"realmt.best.perplexity", "11.758044355235365"},
      {"realmt.stalled.cross-entropy", "1"},
      {"realmt.stalled.perplexity", "2"},
      {"realmt.best", "13.308503214518229"},
      {"realmt.stalled", "1"},
      {"realmt.epoch_start_updates", "7"},
      {"realmt.epoch_start_sentences", "600"},
      {"realmt.grad_norm_avg", "1.0296179054065939"},
      {"realmt.rng_state", "55450:892416"},
      {"realmt.loss_scale", "32768"},
      {"realmt.loss_scale_clean", "5"},
      {"realmt.skipped_updates", "3"},
      {"realmt.data_position",
       "realmt-batch-state-v1 epoch=0 pool-start=0 skip=10 lines=1500 usable=1500 seed=7"},
      {"realmt.vocab", "spm-fnv1a64:24:a8cd993044799c45"},
      {"realmt.ranks", "3"},
      {"realmt.rng_state.rank1", "1:2"},
      {"realmt.rng_state.rank2", "3:4"}};
  EXPECT_EQ(training_state_text(every_field_set()), want);
  TrainingState unvalidated = every_field_set();
  unvalidated.first_best = INFINITY;
  EXPECT_EQ(training_state_text(unvalidated).at("realmt.best"), "inf");
}

TEST(TrainingStateRecord, AnOlderStateWithoutTheLaterKeysReads) {
  models::Metadata m = training_state_text(every_field_set());
  for (const char* key :
       {"realmt.best.cross-entropy", "realmt.best.perplexity", "realmt.stalled.cross-entropy",
        "realmt.stalled.perplexity", "realmt.epoch_start_updates", "realmt.epoch_start_sentences",
        "realmt.grad_norm_avg", "realmt.loss_scale", "realmt.loss_scale_clean",
        "realmt.skipped_updates", "realmt.vocab", "realmt.ranks", "realmt.rng_state.rank1",
        "realmt.rng_state.rank2"})
    m.erase(key);
  const TrainingState s = read_training_state(m, "old.state");
  EXPECT_TRUE(s.best.empty() && s.stalled.empty() && s.rank_rng_states.empty());
  EXPECT_FALSE(s.epoch_start || s.grad_norm_avg || s.loss_scale || s.vocab || s.ranks);
  EXPECT_EQ(s.first_best, 13.308503214518229);
  EXPECT_EQ(s.tokens, 3894);
}

TEST(TrainingStateRecord, AStateFileMissingARequiredKeyNamesTheKeyAndTheFile) {
  realmt::testing::TempDir dir;
  const std::string path = dir.file("model.state.safetensors");
  for (const char* key : {"realmt.step", "realmt.tokens", "realmt.optimizer_steps", "realmt.best",
                          "realmt.rng_state", "realmt.data_position"}) {
    models::Metadata m = training_state_text(every_field_set());
    m.erase(key);
    models::save_checkpoint(path, {{"params.w", Tensor::zeros({2})}}, m);
    expect_error([&] { read_training_state(models::load_safetensors_header(path).metadata, path); },
                 {path + ": training state lacks '" + key + "'"});
  }
}

TEST(TrainingStateRecord, APartGroupNamesItsMissingKey) {
  models::Metadata m = training_state_text(every_field_set());
  m.erase("realmt.skipped_updates");
  expect_error([&] { read_training_state(m, "s.st"); },
               {"s.st: training state lacks 'realmt.skipped_updates'"});
  m = training_state_text(every_field_set());
  m.erase("realmt.epoch_start_updates");
  expect_error([&] { read_training_state(m, "s.st"); },
               {"s.st: training state lacks 'realmt.epoch_start_updates'"});
}

TEST(TrainingStateRecord, DamagedValuesNameTheKey) {
  models::Metadata m = training_state_text(every_field_set());
  m["realmt.stalled.perplexity"] = "two";
  expect_error(
      [&] { read_training_state(m, "s.st"); },
      {"s.st: training state field 'realmt.stalled.perplexity' is 'two', not a valid number"});
  m = training_state_text(every_field_set());
  m["realmt.ranks"] = "-3";
  expect_error([&] { read_training_state(m, "s.st"); }, {"field 'realmt.ranks' is -3"});
}

}  // namespace
}  // namespace realmt::training
