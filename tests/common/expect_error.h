// expect_error: runs a function and expects a realmt::Error whose message holds every fragment
// (tests/common and tests/models).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "core/error.h"

namespace realmt::testing {

template <typename Fn>
void expect_error(Fn&& fn, std::initializer_list<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown; expected one containing '" << *fragments.begin() << "'";
  } catch (const Error& e) {
    for (const std::string& f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message: " << e.what() << "\nlacks: " << f;
    }
  }
}

}  // namespace realmt::testing
