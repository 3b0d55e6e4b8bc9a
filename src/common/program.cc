#include "common/program.h"

#include <exception>
#include <iostream>

#include "core/error.h"
#include "core/error_message.h"
#include "core/log.h"

namespace realmt {
namespace {

void report(const std::string& program, std::string message) {
  // Option errors already name the program ("realmt-train: unknown option ..."): say it once.
  if (message.compare(0, program.size() + 2, program + ": ") == 0)
    message.erase(0, program.size() + 2);
  std::cerr << program << ": error: " << message << "\n";
  log::file_only(log::Level::kError, program + ": " + message);
}

}  // namespace

int run_program(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    report(program, error_message(e));
    return 2;
  } catch (const std::exception& e) {
    report(program, error_message(e));
    return 1;
  }
}

}  // namespace realmt
