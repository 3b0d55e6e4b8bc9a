// What a main prints for an exception it caught (common/program.h, realmt-bleu).
#pragma once

#include <exception>
#include <string>

namespace realmt {

// e.what(); for a realmt::Error from REALMT_CHECK/REALMT_FAIL/REALMT_USAGE_* at --log-level debug
// (or trace) followed by where it was thrown, " (src/data/vocab.cc:74)": a user needs the message,
// a developer chasing it the place. An InternalError (REALMT_ASSERT) names its place at every
// level.
std::string error_message(const std::exception& e);

}  // namespace realmt
