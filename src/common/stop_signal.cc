#include "common/stop_signal.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "core/error.h"

namespace realmt {
namespace {

std::atomic<bool> g_stop{false};
// The self-pipe: a request writes a byte, wait_for_stop_request reads. Made before main, so that
// no thread or handler sees it half made; the write end does not block (a full pipe already
// wakes the reader).
int g_pipe[2] = {-1, -1};

bool make_pipe() {
  if (::pipe2(g_pipe, O_CLOEXEC) != 0) return false;  // wait_for_stop_request reports it
  ::fcntl(g_pipe[1], F_SETFL, ::fcntl(g_pipe[1], F_GETFL) | O_NONBLOCK);
  return true;
}
const bool g_pipe_made = make_pipe();

extern "C" void on_stop_signal(int) { request_stop(); }

}  // namespace

void request_stop() {
  // Only an atomic store and write(2): safe in a signal handler. errno is the interrupted code's.
  const int saved = errno;
  g_stop.store(true);
  if (g_pipe[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
  }
  errno = saved;
}

bool stop_requested() { return g_stop.load(); }
void clear_stop_request() { g_stop.store(false); }

void install_stop_signal_handlers() {
  g_stop.store(false);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
}

void wait_for_stop_request() {
  REALMT_CHECK(g_pipe_made, "cannot wait for SIGTERM: the stop-signal pipe could not be created");
  char buf[64];
  // Bytes of earlier, cleared requests are read and ignored: only the flag counts.
  while (!g_stop.load()) {
    const ssize_t n = ::read(g_pipe[0], buf, sizeof buf);
    REALMT_CHECK(n > 0 || errno == EINTR, "reading the stop-signal pipe: {}", std::strerror(errno));
  }
}

}  // namespace realmt
