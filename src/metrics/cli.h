// realmt-bleu's program logic (sacreBLEU's main): read references and systems, score, print.
// Output on `out` equals sacreBLEU 2.6.0's stdout byte for byte (without colours); messages
// go to `err`. sacreBLEU's fatal conditions throw CliExit with its exit code.
#pragma once

#include <istream>
#include <ostream>

#include "metrics/cli_options.h"

namespace realmt::metrics {

// Messages (sacreBLEU's info and warning lines) go through core/log.h.
void run_cli(const CliOptions& options, std::istream& in, std::ostream& out);

}  // namespace realmt::metrics
