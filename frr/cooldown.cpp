// SPDX-License-Identifier: Apache-2.0
#include "frr/cooldown.h"

#include <algorithm>

namespace ingot::frr {

std::chrono::nanoseconds Cooldown::cooldownFor(std::chrono::nanoseconds cost) const {
  const std::chrono::nanoseconds max = std::max(options_.max, std::chrono::nanoseconds::zero());
  if (cost < std::chrono::nanoseconds::zero()) {
    cost = std::chrono::nanoseconds::zero();
  }
  // Saturate instead of overflowing for absurd costs: anything beyond max is max.
  const int factor = std::max(options_.factor, 0);
  if (factor > 0 && cost > max / factor) {
    return max;
  }
  return std::min(std::max(cost * factor, options_.floor), max);
}

void Cooldown::applied(std::chrono::nanoseconds cost, Clock::time_point end) {
  ready_at_ = end + cooldownFor(cost);
}

std::chrono::nanoseconds Cooldown::delay(Clock::time_point now) const {
  if (now >= ready_at_) {
    return std::chrono::nanoseconds::zero();
  }
  return ready_at_ - now;
}

}  // namespace ingot::frr
