// SPDX-License-Identifier: Apache-2.0
// Exponential backoff and token buckets (pure: time and randomness are passed in).
#pragma once

#include <functional>

#include "kube/clock.h"

namespace ingot::k8s {

/// exponentialDelay returns base * 2^failures, capped at max (no overflow for any failures).
Duration exponentialDelay(Duration base, Duration max, int failures);

/// BackoffOptions configures Backoff. Defaults are client-go's reflector backoff (800 ms doubling
/// to 30 s).
struct BackoffOptions {
  Duration initial = std::chrono::milliseconds(800);
  Duration max = std::chrono::seconds(30);
  double factor = 2.0;
  /// jitter adds up to jitter * delay on top of each delay (0 = none, 1 = up to double), so that
  /// many clients restarting together do not retry in lockstep.
  double jitter = 0.0;
};

/// Backoff yields growing delays for consecutive failures. The random source returns values in
/// [0, 1); inject a fixed one in tests.
class Backoff {
 public:
  using Random = std::function<double()>;

  Backoff(BackoffOptions options, Random random);

  /// next returns the delay before the next attempt and advances: initial, initial*factor, ...
  /// up to max; jitter is applied on top and the result never exceeds max * (1 + jitter).
  Duration next();

  /// reset restarts the sequence after a success.
  void reset() { attempts_ = 0; }

  /// attempts returns how many delays were handed out since the last reset.
  int attempts() const { return attempts_; }

 private:
  BackoffOptions options_;
  Random random_;
  int attempts_ = 0;
};

/// defaultRandom returns a thread-safe uniform [0, 1) source seeded from std::random_device.
Backoff::Random defaultRandom();

/// TokenBucket is a rate limiter: it holds up to burst tokens and regains qps tokens per second.
/// Like Go's rate.Limiter, reservations may run the bucket negative, which makes later callers
/// wait their turn. Not thread-safe; callers lock.
class TokenBucket {
 public:
  /// A bucket starts full at `start`. qps <= 0 means unlimited.
  TokenBucket(double qps, int burst, TimePoint start);

  /// tryTake takes one token if one is available at now, without going negative.
  bool tryTake(TimePoint now);

  /// reserve takes one token unconditionally and returns how long the caller must wait before
  /// using it (zero when a token was available).
  Duration reserve(TimePoint now);

  /// tokens returns the tokens available at now (may be negative after reservations).
  double tokens(TimePoint now);

 private:
  void refill(TimePoint now);

  double qps_;
  double burst_;
  double tokens_;
  TimePoint last_;
};

}  // namespace ingot::k8s
