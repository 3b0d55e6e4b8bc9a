// The frame of every realmt main but realmt-bleu's (which follows sacreBLEU's argparse).
#pragma once

#include <functional>
#include <string>

namespace realmt {

// Runs `body` and turns what it throws into one line on stderr, "<program>: error: <message>",
// and the exit code: body's return value on success, 2 for a usage error (realmt::UsageError:
// an unknown option, a bad value, a missing or contradictory setting, as argparse does), 1 for
// anything else (missing files, a diverged run, ...).
int run_program(const std::string& program, const std::function<int()>& body);

}  // namespace realmt
