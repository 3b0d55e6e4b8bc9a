// SIGTERM and SIGINT as one process-wide stop request, for the programs that stop cleanly on
// them (realmt-train saves and exits, realmt-server drains). The handlers only store an atomic
// flag and write a byte to a pipe, both async-signal-safe; wait_for_stop_request() blocks on
// that pipe, so nothing polls.
#pragma once

namespace realmt {

// Installs the handlers for SIGTERM and SIGINT and clears any earlier request: from here on a
// signal is kept until the program acts on it (clear_stop_request).
void install_stop_signal_handlers();
// Whether a stop was requested and not yet cleared.
bool stop_requested();
// Requests a stop as a signal does (from any thread; async-signal-safe).
void request_stop();
// Forgets the request once it has been acted on.
void clear_stop_request();
// Blocks until a stop is requested (returns at once when one is pending).
void wait_for_stop_request();

}  // namespace realmt
