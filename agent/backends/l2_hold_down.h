// SPDX-License-Identifier: Apache-2.0
// HoldDownTracker: the agent's side of the Layer 2 hold-down (agent/core/hold_down.h). The
// reconcile worker asks it, at each membership change and when a hold-down ends, which members
// are held now; it logs every change of that answer, exports it as ingot_l2_held_down and says
// when to ask again.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "agent/core/hold_down.h"
#include "agent/daemon/metrics.h"
#include "common/util/log.h"

namespace ingot::agent {

/// WallClockMs returns the wall clock in Unix milliseconds.
using WallClockMs = std::function<int64_t()>;

/// systemWallClockMs reads std::chrono::system_clock.
int64_t systemWallClockMs();

/// HoldDownTracker evaluates the hold-down rule for the reconcile worker. update() is called
/// from that one thread; the metric is read from the /metrics thread.
class HoldDownTracker {
 public:
  /// Step is update's answer.
  struct Step {
    std::set<std::string> held;  ///< the members that may not take an address now
    /// recheck is when to evaluate again (a hold-down ends then); nullopt: at the next change.
    std::optional<std::chrono::milliseconds> recheck;
  };

  /// The logger and metrics must outlive the tracker; clock null means systemWallClockMs.
  HoldDownTracker(log::Logger& logger, Metrics& metrics, WallClockMs clock = {});
  ~HoldDownTracker();
  HoldDownTracker(const HoldDownTracker&) = delete;
  HoldDownTracker& operator=(const HoldDownTracker&) = delete;

  /// update evaluates the rule over the live members' metadata now, logs what changed since the
  /// last call (a member held and until when, a hold-down that ended, the rule switching off or
  /// on) and updates the metric.
  Step update(const std::map<std::string, std::string>& metadata);

 private:
  void logChanges(const HoldDown& next, int64_t now_ms);

  log::Logger& log_;
  Metrics& metrics_;
  WallClockMs clock_;
  int collector_ = 0;
  HoldDown last_;
  bool evaluated_ = false;
  mutable std::mutex mu_;                    // guards exported_
  std::map<std::string, int64_t> exported_;  // held member → end (Unix ms), for the metric
};

}  // namespace ingot::agent
