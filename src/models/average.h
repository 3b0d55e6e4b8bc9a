// Checkpoint averaging (realmt-average; the RealFormer recipe averages the last 25 saves).
// Every input must be a realmt model checkpoint of one architecture: the same stored model
// config (dropout rates aside, they do not change the weights' meaning) and the same tensor
// names, shapes and dtypes. The output holds the element-wise mean (accumulated in f64,
// stored in each tensor's dtype) and the first input's config.
#pragma once

#include <string>
#include <vector>

namespace realmt::models {

struct AverageReport {
  size_t checkpoints = 0;
  size_t tensors = 0;
  size_t elements = 0;
};

AverageReport average_checkpoints(const std::vector<std::string>& inputs,
                                  const std::string& output);

}  // namespace realmt::models
