// SPDX-License-Identifier: Apache-2.0
#include "agent/reconcile/drain_tracker.h"

#include <algorithm>

#include "kube/events.h"

namespace ingot::agent {
namespace {

constexpr DrainPhase kPhases[] = {DrainPhase::Serving, DrainPhase::GracefulShutdown,
                                  DrainPhase::Withdrawn};

std::vector<daemon::MetricFamily> phaseFamilies(DrainPhase phase) {
  daemon::MetricFamily f{"ingot_drain_phase",
                         "This node's drain phase (1 on the current one): serving, "
                         "gracefulShutdown (BGP announced with GRACEFUL_SHUTDOWN) or withdrawn",
                         daemon::MetricType::Gauge,
                         {}};
  for (DrainPhase p : kPhases) {
    f.samples.push_back({{{"phase", std::string(drainPhaseName(p))}}, p == phase ? 1.0 : 0.0});
  }
  return {f};
}

}  // namespace

DrainTracker::DrainTracker(log::Logger& logger, Metrics& metrics, WallClockMs clock)
    : log_(logger), metrics_(metrics), clock_(clock ? std::move(clock) : systemWallClockMs) {
  collector_ = metrics_.addCollector(
      [this] { return phaseFamilies(static_cast<DrainPhase>(exported_.load())); });
}

DrainTracker::~DrainTracker() {
  metrics_.removeCollector(collector_);
}

DrainTracker::Step DrainTracker::update(const api::Node* node,
                                        const DrainOptions& options,
                                        bool ignore_exclude_lb) {
  const int64_t now = clock_();
  DrainState next =
      nextDrainState(state_, {node, sigterm_.load(), ignore_exclude_lb, now}, options);
  Step step{next, next.phase != state_.phase || next.reason != state_.reason, std::nullopt};
  if (next.next_change_ms) {
    step.recheck = std::chrono::milliseconds(std::max<int64_t>(*next.next_change_ms - now, 1));
  }
  if (step.changed) {
    log_.info("drain", "phase",
              next.phase == DrainPhase::Serving ? "node serves again" : drainMessage(next),
              {{"phase", std::string(drainPhaseName(next.phase))},
               {"reason", std::string(drainReasonName(next.reason))},
               {"since", next.since_ms ? k8s::formatTimestampMs(*next.since_ms) : ""}});
  }
  state_ = std::move(next);
  exported_.store(static_cast<int>(state_.phase));
  return step;
}

std::string drainMessage(const DrainState& state) {
  const std::string head = "draining (" + std::string(drainReasonName(state.reason)) + "): ";
  switch (state.phase) {
    case DrainPhase::Serving:
      return "";
    case DrainPhase::GracefulShutdown:
      return head +
             "BGP prefixes re-announced with GRACEFUL_SHUTDOWN 65535:0 until they are withdrawn "
             "at " +
             k8s::formatTimestampMs(state.next_change_ms.value_or(0)) +
             "; Layer 2 addresses handed to the next candidates";
    case DrainPhase::Withdrawn:
      return head + "announcements withdrawn; BGP sessions and BFD stay up";
  }
  return head;
}

}  // namespace ingot::agent
