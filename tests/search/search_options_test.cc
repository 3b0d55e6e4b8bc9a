// SearchOptions' equality decides which requests the server decodes in one batch: it must see
// every field (a field it missed would batch requests that need different searches together).
#include "search/search_options.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <vector>

namespace realmt::search {
namespace {

// The number of fields of an aggregate (Boost.PFR's way): the most initialisers it takes.
struct AnyField {
  template <typename T>
  operator T() const;  // only named in unevaluated requires-expressions
};

template <typename T, typename... Fields>
constexpr size_t count_fields() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
    return count_fields<T, Fields..., AnyField>();
  } else {
    return sizeof...(Fields);
  }
}

TEST(SearchOptions, EqualitySeesEveryField) {
  // One change a field, on_step aside (it is not part of the search).
  const std::vector<std::function<void(SearchOptions&)>> changes = {
      [](SearchOptions& o) { o.beam_size = 5; },
      [](SearchOptions& o) { o.beam_mode = BeamMode::kFull; },
      [](SearchOptions& o) { o.normalize = 0.6; },
      [](SearchOptions& o) { o.word_penalty = 0.5; },
      [](SearchOptions& o) { o.max_length_factor = 2.0; },
      [](SearchOptions& o) { o.max_length = 200; },
      [](SearchOptions& o) { o.min_length = 3; },
      [](SearchOptions& o) { o.length_rule = LengthRule::kMarian; },
      [](SearchOptions& o) { o.n_best = 2; },
      [](SearchOptions& o) { o.allow_unk = true; },
      [](SearchOptions& o) { o.repeat_ngram = 0; },
      [](SearchOptions& o) { o.alignment = AlignmentKind::kSoft; },
      [](SearchOptions& o) {
        o.weights = {1.0, 0.5};
      },
      [](SearchOptions& o) { o.use_cache = false; },
  };
  // A field added to SearchOptions needs its case above.
  EXPECT_EQ(count_fields<SearchOptions>(), changes.size() + 1)
      << "a SearchOptions field has no case here";
  const SearchOptions base;
  EXPECT_TRUE(base == SearchOptions{});
  for (size_t i = 0; i < changes.size(); ++i) {
    SearchOptions changed;
    changes[i](changed);
    EXPECT_FALSE(changed == base) << "operator== misses the field of case " << i;
  }
  SearchOptions observed;
  observed.on_step = [](const StepInfo&) {};
  EXPECT_TRUE(observed == base) << "an observer is not part of the search";
  EXPECT_TRUE(static_cast<bool>(observed.on_step));
  observed.on_step = nullptr;
  EXPECT_FALSE(static_cast<bool>(observed.on_step));
}

}  // namespace
}  // namespace realmt::search
