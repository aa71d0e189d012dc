// SPDX-License-Identifier: Apache-2.0
// Drain-awareness in the reconciler: stepping this node's drain state, applying it to the BGP
// decisions, and the Layer 2 hand-off (agent/core/drain.h).
#include "agent/reconciler.h"

namespace ingot::agent {
namespace {

/// kL2HandOff is how long a draining node keeps answering the addresses it owned, after the
/// new owners were elected: their gratuitous ARP/NA goes out within it.
constexpr int64_t kL2HandOffMs = 2000;

/// drainEventReason names the Node Event of entering a phase.
std::string drainEventReason(DrainPhase phase) {
  switch (phase) {
    case DrainPhase::Serving:
      return "DrainEnded";
    case DrainPhase::GracefulShutdown:
      return "DrainStarted";
    case DrainPhase::Withdrawn:
      return "DrainWithdrawn";
  }
  return "Drain";
}

}  // namespace

BgpDecision Reconciler::decideBgpHere(const api::Service& service, const api::Node* node) const {
  const std::string key = service.metadata.namespace_ + "/" + service.metadata.name;
  BgpDecision d =
      decideBgp(*config_, options_.node, node, service, slicesOf(key), options_.announce);
  drainBgpDecision(drain_.state().phase, *config_, d);
  return d;
}

void Reconciler::stepDrain() {
  if (!options_.announce.drain.enabled()) return;
  const auto node = caches_.nodes.get(options_.node);
  const DrainPhase before = drain_.state().phase;
  const DrainTracker::Step step =
      drain_.update(node.get(), options_.announce.drain, options_.announce.ignore_exclude_lb);
  const int64_t now = wall_clock_();
  if (before == DrainPhase::Serving && step.state.phase != DrainPhase::Serving) {
    l2_handoff_ = l2_won_;  // what this node answered until now
    l2_handoff_until_ms_ = now + kL2HandOffMs;
    queue_.addAfter(std::string(keys::kSync), std::chrono::milliseconds(kL2HandOffMs));
  }
  if (step.state.phase == DrainPhase::Serving || now >= l2_handoff_until_ms_) {
    l2_handoff_.clear();
  }
  if (step.recheck) queue_.addAfter(std::string(keys::kSync), *step.recheck);
  if (!step.changed) return;
  queue_.add(std::string(keys::kState));
  const std::string message = step.state.phase == DrainPhase::Serving
                                  ? "drain ended: announcements restored"
                                  : drainMessage(step.state);
  events_.record(k8s::ObjectReference{"v1", "Node", "", options_.node,
                                      node ? node->metadata.uid : std::string(),
                                      node ? node->metadata.resource_version : std::string()},
                 k8s::EventType::Normal, drainEventReason(step.state.phase), message);
}

std::vector<L2Announcement> Reconciler::l2Desired() const {
  std::vector<L2Announcement> out;
  out.reserve(l2_won_.size() + l2_handoff_.size());
  for (const auto& [key, a] : l2_won_) out.push_back(a);
  for (const auto& [key, a] : l2_handoff_) {
    if (!l2_won_.contains(key)) out.push_back(a);
  }
  return out;
}

}  // namespace ingot::agent
