// SPDX-License-Identifier: Apache-2.0
#include "kube/backoff.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <random>

namespace ingot::k8s {
namespace {

/// kEpsilon absorbs the rounding of many small refills (300 * (1/300) may land just below 1).
constexpr double kEpsilon = 1e-9;

}  // namespace

Duration exponentialDelay(Duration base, Duration max, int failures) {
  if (failures <= 0 || base <= Duration::zero()) return std::min(base, max);
  // Doubling past max/2 would exceed max anyway; stop before it can overflow.
  Duration d = base;
  for (int i = 0; i < failures; ++i) {
    if (d > max / 2) return max;
    d *= 2;
  }
  return std::min(d, max);
}

Backoff::Backoff(BackoffOptions options, Random random)
    : options_(options), random_(std::move(random)) {}

Duration Backoff::next() {
  double delay = static_cast<double>(options_.initial.count());
  const double max = static_cast<double>(options_.max.count());
  for (int i = 0; i < attempts_ && delay < max; ++i) delay *= options_.factor;
  delay = std::min(delay, max);
  ++attempts_;
  if (options_.jitter > 0 && random_) {
    const double r = std::clamp(random_(), 0.0, 1.0);
    delay += delay * options_.jitter * r;
  }
  return Duration(static_cast<Duration::rep>(delay));
}

Backoff::Random defaultRandom() {
  struct Source {
    std::mutex mu;
    std::mt19937_64 engine{std::random_device{}()};
    std::uniform_real_distribution<double> dist{0.0, 1.0};
  };
  auto source = std::make_shared<Source>();
  return [source] {
    std::lock_guard lock(source->mu);
    return source->dist(source->engine);
  };
}

TokenBucket::TokenBucket(double qps, int burst, TimePoint start)
    : qps_(qps), burst_(std::max(1, burst)), tokens_(burst_), last_(start) {}

void TokenBucket::refill(TimePoint now) {
  if (now <= last_) return;
  const double seconds = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min(burst_, tokens_ + seconds * qps_);
  last_ = now;
}

bool TokenBucket::tryTake(TimePoint now) {
  if (qps_ <= 0) return true;
  refill(now);
  if (tokens_ < 1.0 - kEpsilon) return false;
  tokens_ -= 1.0;
  return true;
}

Duration TokenBucket::reserve(TimePoint now) {
  if (qps_ <= 0) return Duration::zero();
  refill(now);
  tokens_ -= 1.0;
  if (tokens_ >= -kEpsilon) return Duration::zero();
  const double wait = -tokens_ / qps_;
  return std::chrono::ceil<Duration>(std::chrono::duration<double>(wait));
}

double TokenBucket::tokens(TimePoint now) {
  if (qps_ <= 0) return burst_;
  refill(now);
  return tokens_;
}

}  // namespace ingot::k8s
