// Reading hypothesis and reference text the way sacreBLEU's CLI does:
// files split on '\n' only; stdin uses universal newlines ('\n', '\r\n' and a lone '\r').
// Invalid UTF-8 is an error naming the file and line (sacreBLEU would crash with a traceback).
#pragma once

#include <istream>
#include <string>
#include <vector>

namespace realmt::metrics {

// Lines of a file (a trailing empty piece after the last '\n' is not a line).
std::vector<std::string> read_lines_file(const std::string& path);
// Lines of a stream read with universal newlines; `name` is used in error messages.
std::vector<std::string> read_lines_universal(std::istream& in, const std::string& name);
// Lines of in-memory text; universal selects stdin's newline handling.
std::vector<std::string> split_lines(const std::string& text, bool universal,
                                     const std::string& name);

}  // namespace realmt::metrics
