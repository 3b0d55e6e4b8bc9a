// Fixtures for the models tests: a tiny safetensors writer independent of realmt's (plain string
// building) to check the reader; the temporary directory and file bytes of tests/common.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "../common/expect_error.h"
#include "../common/temp_dir.h"

namespace realmt::models::test {

using realmt::testing::read_bytes;
using realmt::testing::TempDir;
using realmt::testing::write_bytes;

inline std::string le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

// A safetensors file from a header given as JSON text and a data buffer, as the spec
// describes it: u64 LE header size, the header, the data. No padding.
inline std::string raw_safetensors(const std::string& header, const std::string& data) {
  return le64(header.size()) + header + data;
}

template <typename T>
std::string bytes_of(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return s;
}

using realmt::testing::expect_error;

}  // namespace realmt::models::test
