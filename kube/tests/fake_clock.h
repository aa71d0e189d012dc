// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <mutex>

#include "kube/clock.h"

namespace ingot::k8s::testing {

/// FakeClock is a Clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  TimePoint now() const override {
    std::lock_guard lock(mu_);
    return now_;
  }
  void advance(Duration d) {
    std::lock_guard lock(mu_);
    now_ += d;
  }

 private:
  mutable std::mutex mu_;
  TimePoint now_{std::chrono::hours(1000)};  // arbitrary, far from zero
};

}  // namespace ingot::k8s::testing
