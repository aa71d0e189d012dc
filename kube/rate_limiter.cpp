// SPDX-License-Identifier: Apache-2.0
#include "kube/rate_limiter.h"

#include <thread>

namespace ingot::k8s {

RateLimiter::RateLimiter(double qps, int burst, Clock& clock, Sleep sleep)
    : clock_(clock), sleep_(std::move(sleep)), bucket_(qps, burst, clock.now()) {
  if (!sleep_) sleep_ = [](Duration d) { std::this_thread::sleep_for(d); };
}

Duration RateLimiter::wait() {
  Duration delay;
  {
    std::lock_guard lock(mu_);
    delay = bucket_.reserve(clock_.now());
  }
  if (delay > Duration::zero()) sleep_(delay);
  return delay;
}

}  // namespace ingot::k8s
