// Shared by the option tests: a struct with one field of every supported type, bound the way
// an executable binds its options, and a temporary directory for YAML fixtures.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/options.h"
#include "core/error.h"
#include "temp_dir.h"

namespace realmt::testing {

struct Fields {
  bool tied = false;
  bool shuffle = true;
  int enc_depth = 6;
  int64_t words = 0;
  float dropout = 0.1f;
  double learn_rate = 0.0003;
  std::string model = "model.npz";
  std::string rf_mode = "mean";
  Duration after;
  Duration valid_freq = Duration::parse("10000u");
  std::vector<std::string> train_sets;
  std::vector<int> devices{0};
  std::vector<double> optimizer_params{0.9, 0.98, 1e-9};
  std::vector<std::string> metrics{"cross-entropy"};
  std::vector<std::string> refs;
};

// Binds every field of `f`; `f` must outlive the returned set.
inline OptionSet bind(Fields* f, bool with_positional = true) {
  OptionSet set("realmt-test", "Exercises every option type");
  set.add("Model", "tied-embeddings-all", &f->tied, "Tie all embedding matrices")
      .add("Model", "enc-depth", &f->enc_depth, "Number of encoder layers")
      .add("Model", "transformer-dropout", &f->dropout, "Dropout between sub-layers")
      .add_choice("Model", "residual-attention", &f->rf_mode, {"none", "sum", "mean"},
                  "RealFormer residual attention:\nnone, sum or mean of the scores")
      .add("Model", "model", &f->model, "Path prefix of the model")
      .short_name("model", 'm')
      .add("Training", "mini-batch-words", &f->words, "Target words per batch")
      .add("Training", "learn-rate", &f->learn_rate, "Learning rate")
      .add("Training", "after", &f->after, "Stop after this long (u/t/e); 0 = never")
      .add("Training", "valid-freq", &f->valid_freq, "Validate every so often (u/t/e)")
      .add("Training", "shuffle", &f->shuffle, "Shuffle the corpus each epoch")
      .add("Training", "train-sets", &f->train_sets, "Source and target training files")
      .short_name("train-sets", 't')
      .add("Training", "optimizer-params", &f->optimizer_params, "Adam beta1 beta2 epsilon")
      .add_choice("Training", "valid-metrics", &f->metrics,
                  {"cross-entropy", "perplexity", "bleu", "chrf"}, "Validation metrics")
      .add("Hardware", "devices", &f->devices, "GPU ids")
      .short_name("devices", 'd');
  if (with_positional) set.positional("references", &f->refs, "Reference files");
  return set;
}

// Runs parse on a command line given as strings (argv[0] added).
inline bool parse(OptionSet& set, std::vector<std::string> args, std::string* out = nullptr) {
  std::vector<const char*> argv{"realmt-test"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream os;
  const bool go_on = set.parse(static_cast<int>(argv.size()), argv.data(), os);
  if (out) *out = os.str();
  return go_on;
}

// The message of the realmt::Error that `fn` throws; fails the test when it throws none.
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a realmt::Error";
  return "";
}

}  // namespace realmt::testing

#define EXPECT_HAS(haystack, needle)                               \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) \
      << "missing: " << (needle) << "\nin:\n"                      \
      << (haystack)
