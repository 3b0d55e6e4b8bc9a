// A stand-in for the translator in the server tests: the "translation" of a source is the
// source reversed, its score minus its length; every batch it sees is recorded. It may throw
// on a chosen token to test failures.
#pragma once

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "server/batch_scheduler.h"

namespace realmt::server::test {

struct SeenBatch {
  std::vector<std::vector<int32_t>> sources;
  int beam_size = 0;
};

class FakeDecoder {
 public:
  DecodeFn fn() {
    return
        [this](const std::vector<std::vector<int32_t>>& sources, const search::SearchOptions& o) {
          {
            std::lock_guard<std::mutex> lock(mutex_);
            seen_.push_back({sources, o.beam_size});
          }
          std::vector<std::vector<search::Hypothesis>> out;
          for (const auto& s : sources) {
            if (std::find(s.begin(), s.end(), throw_on_) != s.end())
              throw std::runtime_error("fake decoder failure");
            std::vector<search::Hypothesis> hyps(o.n_best);
            for (int k = 0; k < o.n_best; ++k) {
              hyps[k].tokens.assign(s.rbegin(), s.rend());
              hyps[k].score = -static_cast<double>(s.size()) - k;
            }
            out.push_back(std::move(hyps));
          }
          return out;
        };
  }
  std::vector<SeenBatch> seen() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }
  int32_t throw_on_ = -1;

 private:
  mutable std::mutex mutex_;
  std::vector<SeenBatch> seen_;
};

inline std::vector<int32_t> reversed(std::vector<int32_t> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

}  // namespace realmt::server::test
