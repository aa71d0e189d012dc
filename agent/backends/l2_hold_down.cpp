// SPDX-License-Identifier: Apache-2.0
#include "agent/backends/l2_hold_down.h"

#include <algorithm>

#include "kube/events.h"

namespace ingot::agent {
namespace {

std::vector<daemon::MetricFamily> heldFamilies(const std::map<std::string, int64_t>& held) {
  daemon::MetricFamily f{"ingot_l2_held_down",
                         "Members held down by the Layer 2 hold-down now (1 per member): they take "
                         "back no address until the hold-down ends",
                         daemon::MetricType::Gauge,
                         {}};
  for (const auto& [node, until] : held) {
    f.samples.push_back({{{"node", node}}, 1});
  }
  return {f};
}

}  // namespace

int64_t systemWallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

HoldDownTracker::HoldDownTracker(log::Logger& logger, Metrics& metrics, WallClockMs clock)
    : log_(logger), metrics_(metrics), clock_(clock ? std::move(clock) : systemWallClockMs) {
  collector_ = metrics_.addCollector([this] {
    std::lock_guard lock(mu_);
    return heldFamilies(exported_);
  });
}

HoldDownTracker::~HoldDownTracker() {
  metrics_.removeCollector(collector_);
}

HoldDownTracker::Step HoldDownTracker::update(const std::map<std::string, std::string>& metadata) {
  const int64_t now = clock_();
  HoldDown next = holdDown(metadata, now);
  logChanges(next, now);
  Step step{next.heldNames(), std::nullopt};
  if (next.next_change_ms) {
    step.recheck = std::chrono::milliseconds(std::max<int64_t>(*next.next_change_ms - now, 1));
  }
  {
    std::lock_guard lock(mu_);
    exported_ = next.held;
  }
  last_ = std::move(next);
  evaluated_ = true;
  return step;
}

void HoldDownTracker::logChanges(const HoldDown& next, int64_t now_ms) {
  if (!evaluated_ || next.off != last_.off || next.hold_down_ms != last_.hold_down_ms) {
    if (next.off.empty()) {
      log_.info("holddown", "holdDownOn", "Layer 2 hold-down applies",
                {log::num("holdDownMs", next.hold_down_ms)});
    } else if (evaluated_ || next.off != "disabled") {
      log_.info("holddown", "holdDownOff", "Layer 2 hold-down does not apply",
                {{"reason", next.off}});
    }
  }
  for (const auto& [node, until] : next.held) {
    auto was = last_.held.find(node);
    if (was == last_.held.end() || was->second != until) {
      log_.info("holddown", "heldDown",
                "node just joined: it takes back no address until its hold-down ends",
                {{"node", node},
                 {"until", k8s::formatTimestampMs(until)},
                 log::num("untilMs", until),
                 log::num("inMs", until - now_ms)});
    }
  }
  for (const auto& [node, until] : last_.held) {
    if (!next.held.contains(node)) {
      log_.info("holddown", "holdDownEnded", "node's hold-down ended or no longer applies",
                {{"node", node}, {"reason", next.off.empty() ? "" : next.off}});
    }
  }
}

}  // namespace ingot::agent
