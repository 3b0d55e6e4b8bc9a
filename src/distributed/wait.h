// Waiting with a deadline, shared by the communicators' watchdogs.
#pragma once

#include <functional>
#include <string>

namespace realmt::distributed {

// Calls poll() until it returns true (then returns true) or timeout_s seconds have passed (then
// returns false). Spins for the first ~100 us (small collectives finish in microseconds on
// shared memory), then sleeps between polls with a back-off growing to 1 ms, so that a rank that
// waits for a slower one does not take the core from it (2 processes on 2 cores).
bool wait_until(const std::function<bool()>& poll, double timeout_s);

// The watchdog's message: which rank waited for what, for how long, and what to do.
std::string timeout_message(int rank, int size, const std::string& what, double timeout_s);

}  // namespace realmt::distributed
