// SPDX-License-Identifier: Apache-2.0
// DrainTracker: the agent's side of drain-awareness (agent/core/drain.h). The reconcile worker
// steps it at each pass; it keeps the state between passes, logs every phase change, exports the
// phase as ingot_drain_phase and says when to step again (the end of the delay).
#pragma once

#include <atomic>
#include <chrono>
#include <optional>

#include "agent/backends/l2_hold_down.h"
#include "agent/core/drain.h"
#include "agent/daemon/metrics.h"
#include "common/util/log.h"

namespace ingot::agent {

/// DrainTracker steps the drain state machine for the reconcile worker. update() is called from
/// that one thread; the metric is read from the /metrics thread.
class DrainTracker {
 public:
  /// Step is update's answer.
  struct Step {
    DrainState state;
    bool changed = false;  ///< the phase or the reason differs from the last step's
    /// recheck is when to step again (the delay ends then); nullopt: at the next change.
    std::optional<std::chrono::milliseconds> recheck;
  };

  /// The logger and metrics must outlive the tracker; clock null means systemWallClockMs.
  DrainTracker(log::Logger& logger, Metrics& metrics, WallClockMs clock = {});
  ~DrainTracker();
  DrainTracker(const DrainTracker&) = delete;
  DrainTracker& operator=(const DrainTracker&) = delete;

  /// update steps the machine now for this node's Node (null: not seen) and logs a change.
  Step update(const api::Node* node, const DrainOptions& options, bool ignore_exclude_lb);

  /// state is the last step's state.
  const DrainState& state() const { return state_; }

  /// exportedPhase is the last step's phase, readable from any thread.
  DrainPhase exportedPhase() const { return static_cast<DrainPhase>(exported_.load()); }

  /// noteSigterm records that the agent was told to stop (any thread); the next update sees it.
  void noteSigterm() { sigterm_.store(true); }

 private:
  log::Logger& log_;
  Metrics& metrics_;
  WallClockMs clock_;
  int collector_ = 0;
  DrainState state_;
  std::atomic<bool> sigterm_{false};
  std::atomic<int> exported_{0};  ///< the phase, for the metric
};

/// drainMessage describes a state for the ConfigurationState and the Node's Events: "" when
/// Serving, else "draining (<reason>): ..." saying what happens to the announcements.
std::string drainMessage(const DrainState& state);

}  // namespace ingot::agent
