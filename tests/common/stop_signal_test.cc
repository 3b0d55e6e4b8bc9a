#include "common/stop_signal.h"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>

namespace realmt {
namespace {

// Puts the default handlers back when a test ends.
struct DefaultHandlers {
  ~DefaultHandlers() {
    clear_stop_request();
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGINT, SIG_DFL);
  }
};

TEST(StopSignal, SigtermAndSigintAreKeptUntilCleared) {
  const DefaultHandlers restore;
  request_stop();
  install_stop_signal_handlers();  // forgets the earlier request
  EXPECT_FALSE(stop_requested());
  std::raise(SIGTERM);
  EXPECT_TRUE(stop_requested());
  EXPECT_TRUE(stop_requested());  // kept until acted on
  clear_stop_request();
  EXPECT_FALSE(stop_requested());
  std::raise(SIGINT);
  EXPECT_TRUE(stop_requested());
  wait_for_stop_request();  // pending: returns at once
}

TEST(StopSignal, WaitWakesOnARequestFromAnotherThreadOrASignal) {
  const DefaultHandlers restore;
  install_stop_signal_handlers();
  request_stop();  // bytes of a cleared request must not end a later wait
  clear_stop_request();
  std::thread waiter([] { wait_for_stop_request(); });
  std::raise(SIGTERM);
  waiter.join();  // hangs (the test times out) if the signal did not wake it
  EXPECT_TRUE(stop_requested());
  clear_stop_request();
  std::thread second([] { wait_for_stop_request(); });
  request_stop();
  second.join();
  EXPECT_TRUE(stop_requested());
}

}  // namespace
}  // namespace realmt
