// realmt-bleu: sacreBLEU 2.6.0-compatible BLEU, chrF, chrF++ and TER with paired significance
// tests. sacreBLEU's options and output (plus an "implementation" key in JSON); errors under its
// own name. See src/metrics/cli_options.h and docs/realmt-bleu.md.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/error_message.h"
#include "core/log.h"
#include "metrics/cli.h"
#include "metrics/cli_options.h"

int main(int argc, char** argv) {
  using namespace realmt::metrics;
  std::ios::sync_with_stdio(false);
  try {
    const CliOptions options = parse_cli(std::vector<std::string>(argv + 1, argv + argc));
    if (options.help) {
      std::cout << cli_usage();
      return 0;
    }
    if (options.version) {
      std::cout << implementation_name() << " (scores and signatures as sacreBLEU 2.6.0's)\n";
      return 0;
    }
    // -q: sacreBLEU's --quiet leaves only errors; --log-level can only lower the output further.
    const realmt::log::Level level = realmt::log::parse_level(options.log_level);
    realmt::log::set_level(options.quiet ? std::max(level, realmt::log::Level::kError) : level);
    if (!options.log_file.empty()) realmt::log::set_file(options.log_file);
    run_cli(options, std::cin, std::cout);
    std::cout.flush();
    return 0;
  } catch (const CliExit& e) {
    // Usage errors are argparse's text; other messages are one log line a line, as sacreBLEU's.
    std::string text = e.message;
    if (e.code != 2) {
      text.clear();
      for (size_t start = 0; start <= e.message.size();) {
        const size_t nl = std::min(e.message.find('\n', start), e.message.size());
        text += "realmt-bleu: " + e.message.substr(start, nl - start) + "\n";
        start = nl + 1;
      }
    }
    std::cerr << text;
    realmt::log::file_only(realmt::log::Level::kError,
                           "realmt-bleu: " + e.message.substr(0, e.message.find('\n')));
    return e.code;
  } catch (const std::exception& e) {  // a realmt::Error's place only at --log-level debug
    const std::string message = realmt::error_message(e);
    std::cerr << "realmt-bleu: error: " << message << "\n";
    realmt::log::file_only(realmt::log::Level::kError, "realmt-bleu: " + message);
    return 1;
  }
}
