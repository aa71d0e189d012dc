// SPDX-License-Identifier: Apache-2.0
// Cooldown decides when a change to the BGP configuration is applied. After each apply the
// applier rests for a cool-down sized by what that apply cost (factor × cost, at least `floor`,
// at most `max`, the --bgp-debounce-timeout), counted from the apply's end. A change that comes
// after the cool-down is applied at once; changes within it are coalesced into one apply at its
// end. Cheap deltas thus go out without waiting, a stream of expensive ones still coalesces up to
// `max`, and applies take at most 1/(factor+1) of the applier's time. Pure: the caller passes
// the time; not thread-safe (the caller serialises).
#pragma once

#include <chrono>

namespace ingot::frr {

/// CooldownOptions size the rest after an apply.
struct CooldownOptions {
  /// max bounds the cool-down: no change waits longer than this after the last apply ended.
  std::chrono::nanoseconds max = std::chrono::milliseconds(200);
  /// floor is the shortest cool-down (when max allows it), so that a tight stream of cheap
  /// changes still coalesces a little.
  std::chrono::nanoseconds floor = std::chrono::milliseconds(20);
  /// factor multiplies the last apply's cost.
  int factor = 3;
};

/// Cooldown tracks the end of the current cool-down.
class Cooldown {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Cooldown(CooldownOptions options = {}) : options_(options) {}

  /// delay returns how long a change seen at now waits before its apply: zero once the
  /// cool-down is over (or before the first apply), else the rest of the cool-down.
  std::chrono::nanoseconds delay(Clock::time_point now) const;

  /// applied records an apply that cost `cost` and ended at `end`; the cool-down starts there.
  void applied(std::chrono::nanoseconds cost, Clock::time_point end);

  /// cooldownFor returns the cool-down an apply of that cost is followed by.
  std::chrono::nanoseconds cooldownFor(std::chrono::nanoseconds cost) const;

  /// readyAt returns when the current cool-down ends (the epoch before the first apply).
  Clock::time_point readyAt() const { return ready_at_; }

 private:
  CooldownOptions options_;
  Clock::time_point ready_at_{};
};

}  // namespace ingot::frr
