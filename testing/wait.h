// SPDX-License-Identifier: Apache-2.0
// A bounded condition wait for tests: the only way tests wait for another thread or process.
#pragma once

#include <chrono>
#include <thread>

namespace ingot::testing {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

/// waitFor polls check every 20 ms until it returns true (true) or the timeout passes (false).
/// The timeout is a generous bound for a condition, never a way to let time pass.
template <typename F>
bool waitFor(Millis timeout, F&& check) {
  const auto deadline = Clock::now() + timeout;
  while (!check()) {
    if (Clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(Millis(20));
  }
  return true;
}

}  // namespace ingot::testing
