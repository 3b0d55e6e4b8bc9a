// Validation by an external script (Marian's valid-script-path): the translation and valid-script
// metrics, and valid-translation-output.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "training/validator.h"

namespace realmt::training {

std::string expand_output_template(const std::string& path, const ValidationContext& c) {
  // Marian's fields: {E} epoch, {U} updates, {B} updates in this epoch, {T} target tokens.
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '{' && i + 2 < path.size() && path[i + 2] == '}') {
      const char f = path[i + 1];
      const int64_t v = f == 'E'   ? c.epoch
                        : f == 'U' ? c.updates
                        : f == 'B' ? c.updates_in_epoch
                        : f == 'T' ? c.tokens
                                   : -1;
      if (v >= 0) {
        out += std::to_string(v);
        i += 2;
        continue;
      }
    }
    out += path[i];
  }
  return out;
}

void write_translations(const std::string& path, const std::vector<std::string>& hyps) {
  std::ofstream out(path, std::ios::binary);
  REALMT_CHECK(out.good(), "valid-translation-output: cannot write {}: {}", path,
               std::strerror(errno));
  for (const auto& h : hyps) out << h << '\n';
  out.flush();
  REALMT_CHECK(out.good(), "valid-translation-output: writing {} failed", path);
}

namespace {

// Runs `command` through the shell, as Marian does (so "bash ./validate.sh" works); its stdout.
std::string run_command(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  REALMT_CHECK(pipe != nullptr, "valid-script-path: cannot run '{}': {}", command,
               std::strerror(errno));
  std::string output;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  const int status = ::pclose(pipe);
  REALMT_CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
               "valid-script-path: '{}' failed (exit status {}); its output: {}", command,
               status == -1 || !WIFEXITED(status) ? -1 : WEXITSTATUS(status), output);
  return output;
}

class TempFile {
 public:
  TempFile() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "realmt-valid-XXXXXX").string();
    const int fd = ::mkstemp(tmpl.data());
    REALMT_CHECK(fd >= 0, "cannot create a temporary file for the validation translations: {}",
                 std::strerror(errno));
    ::close(fd);
    path_ = tmpl;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

double Validator::script_score(const std::vector<std::string>& hyps, const std::string& metric,
                               const ValidationContext& c) const {
  REALMT_CHECK(!options_.script_path.empty(),
               "valid-metrics {}: set valid-script-path to the command that prints the score",
               metric);
  std::string command = options_.script_path;
  for (const auto& a : options_.script_args) command += " " + a;
  TempFile temp;
  if (metric == "translation") {
    // The translations were written to valid-translation-output already when it is set.
    const std::string file = options_.translation_output.empty()
                                 ? temp.path()
                                 : expand_output_template(options_.translation_output, c);
    if (options_.translation_output.empty()) write_translations(file, hyps);
    command += " " + file;
  } else {
    REALMT_CHECK(c.save_model != nullptr, "valid-script: no way to save the model being validated");
    c.save_model(c.dev_model_path);
  }
  const std::string output = run_command(command);
  const char* begin = output.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  REALMT_CHECK(end != begin,
               "valid-script-path: '{}' printed no number (Marian reads the score from its first "
               "line); it printed: '{}'",
               command, output);
  return value;
}

}  // namespace realmt::training
