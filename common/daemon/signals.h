// SPDX-License-Identifier: Apache-2.0
// Shutdown signals for the daemons: SIGTERM and SIGINT are blocked in every thread (call
// blockTerminationSignals() in main before any thread starts) and taken by one watcher thread
// that turns them into a stop request.
#pragma once

#include <condition_variable>
#include <mutex>
#include <signal.h>
#include <stop_token>
#include <thread>

#include "common/util/log.h"

namespace ingot::daemon {

/// terminationSignals is {SIGTERM, SIGINT}.
sigset_t terminationSignals();

/// blockTerminationSignals blocks them in the calling thread (and every thread it starts later)
/// and ignores SIGPIPE.
void blockTerminationSignals();

/// SignalWatcher turns SIGTERM/SIGINT into a stop request, logged with the signal's name.
class SignalWatcher {
 public:
  explicit SignalWatcher(log::Logger& logger);
  ~SignalWatcher();

  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  std::stop_token token() const { return stop_.get_token(); }
  /// wait blocks until a signal arrived.
  void wait();

 private:
  void watch(const std::stop_token& own, log::Logger& logger);
  std::stop_source stop_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::jthread thread_;
};

}  // namespace ingot::daemon
