// Python's number and JSON formatting, for byte-identical sacreBLEU output.
#pragma once

#include <string>
#include <string_view>

namespace realmt::metrics {

// f"{x:.{width}f}" (correctly rounded, as glibc's printf).
std::string fixed(double x, int width);
// repr(x) of a Python float: shortest round-trip digits; scientific below 1e-4 or from 1e16.
std::string py_repr(double x);
// float(f"{x:.{width}f}") as json.dumps prints it.
std::string json_rounded(double x, int width);
// A JSON string literal; ensure_ascii escapes non-ASCII as \uXXXX (surrogate pairs above U+FFFF).
std::string json_string(std::string_view s, bool ensure_ascii);
// Number of code points (Python len()).
size_t py_len(std::string_view s);

}  // namespace realmt::metrics
