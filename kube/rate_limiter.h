// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <mutex>

#include "kube/backoff.h"
#include "kube/clock.h"

namespace ingot::k8s {

/// RateLimiter is the client-side QPS/burst limit of the REST client (client-go's
/// flowcontrol.NewTokenBucketRateLimiter): every request takes a token and waits until it is due.
/// Thread-safe; waiting callers are served in arrival order of their reservations.
class RateLimiter {
 public:
  using Sleep = std::function<void(Duration)>;

  /// qps <= 0 disables limiting. sleep defaults to std::this_thread::sleep_for; tests inject one
  /// that advances a fake clock.
  RateLimiter(double qps, int burst, Clock& clock = steadyClock(), Sleep sleep = {});

  /// wait blocks until the caller may send one request and returns how long it waited.
  Duration wait();

 private:
  std::mutex mu_;
  Clock& clock_;
  Sleep sleep_;
  TokenBucket bucket_;
};

}  // namespace ingot::k8s
