// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>

namespace ingot::k8s {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::steady_clock::time_point;

/// Clock is the monotonic time source of the kube library. Production code uses steadyClock();
/// tests inject a fake so that backoff, rate limits and delays are checked without sleeping.
class Clock {
 public:
  virtual ~Clock() = default;
  /// now returns the current monotonic time. Implementations must be thread-safe.
  virtual TimePoint now() const = 0;
};

/// steadyClock returns the process-wide std::chrono::steady_clock adapter.
Clock& steadyClock();

/// toDuration converts any chrono duration to the library's nanosecond Duration.
template <typename Rep, typename Period>
constexpr Duration toDuration(std::chrono::duration<Rep, Period> d) {
  return std::chrono::duration_cast<Duration>(d);
}

}  // namespace ingot::k8s
