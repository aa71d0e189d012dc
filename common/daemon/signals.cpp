// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/signals.h"

#include <csignal>
#include <ctime>
#include <pthread.h>

namespace ingot::daemon {

sigset_t terminationSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

void blockTerminationSignals() {
  const sigset_t set = terminationSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

SignalWatcher::SignalWatcher(log::Logger& logger)
    : thread_([this, &logger](std::stop_token own) { watch(own, logger); }) {}

SignalWatcher::~SignalWatcher() {
  thread_.request_stop();
}

void SignalWatcher::wait() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, token(), [] { return false; });
}

void SignalWatcher::watch(const std::stop_token& own, log::Logger& logger) {
  const sigset_t set = terminationSignals();
  const timespec tick{0, 200'000'000};
  while (!own.stop_requested()) {
    const int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig == SIGTERM || sig == SIGINT) {
      logger.info("main", "signal", "shutting down",
                  {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
      stop_.request_stop();
      return;
    }
  }
}

}  // namespace ingot::daemon
