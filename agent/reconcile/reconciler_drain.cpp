// SPDX-License-Identifier: Apache-2.0
// Drain-awareness in the reconciler: stepping this node's drain state, applying it to the BGP
// decisions, and the Layer 2 hand-off (agent/core/drain.h).
#include "agent/reconcile/reconciler.h"
#include "agent/reconcile/writes.h"

namespace ingot::agent {
namespace {

/// kL2HandOffMs bounds how long a draining node keeps answering an address it owned when the
/// new owner does not report it (l2HandOffEnd): no other candidate, or a member that never
/// writes the status.
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
    l2_handoff_reported_.clear();
    l2_handoff_until_ms_ = now + kL2HandOffMs;
    queue_.addAfter(std::string(keys::kSync), std::chrono::milliseconds(kL2HandOffMs));
  }
  if (step.state.phase == DrainPhase::Serving) {
    l2_handoff_.clear();
    l2_handoff_reported_.clear();
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

std::map<std::string, std::vector<std::string>> Reconciler::l2StatusNodes() const {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& s : caches_.l2_statuses.list()) {
    if (s->metadata.namespace_ != options_.namespace_) continue;
    const std::string key =
        s->metadata.label(kServiceNamespaceLabel) + "/" + s->metadata.label(kServiceNameLabel);
    if (l2_handoff_.contains(key)) out[key].push_back(s->metadata.label(kNodeLabel));
  }
  return out;
}

bool Reconciler::releaseL2HandOff() {
  if (l2_handoff_.empty()) return false;
  const auto statuses = l2StatusNodes();
  const int64_t now = wall_clock_();
  bool released = false;
  for (auto it = l2_handoff_.begin(); it != l2_handoff_.end();) {
    L2HandOffView view;
    if (auto d = l2_decisions_.find(it->first); d != l2_decisions_.end()) {
      view.new_owner = d->second.election.winner;
    }
    if (auto st = statuses.find(it->first); st != statuses.end()) view.status_nodes = st->second;
    auto& reported = l2_handoff_reported_[it->first];
    if (!reported && newOwnerReported(options_.node, view)) {
      reported = now;
      queue_.addAfter(std::string(keys::kLayer2), std::chrono::milliseconds(kL2HandOffSettleMs));
    }
    view.reported_ms = reported;
    const HandOffEnd end = l2HandOffEnd(view, now, l2_handoff_until_ms_);
    if (end == HandOffEnd::Waiting) {
      ++it;
      continue;
    }
    log_.info("drain", "l2_handed_off", "draining: stopped answering for the service",
              {{"service", it->first},
               {"end", std::string(handOffEndName(end))},
               {"new_owner", view.new_owner.value_or("")}});
    l2_handoff_reported_.erase(it->first);
    it = l2_handoff_.erase(it);
    released = true;
  }
  return released;
}

std::vector<L2Announcement> Reconciler::l2Desired() const {
  std::vector<L2Announcement> out;
  out.reserve(l2_won_.size() + l2_handoff_.size());
  for (const auto& [key, a] : l2_won_) out.push_back(a);
  for (const auto& [key, a] : l2_handoff_) {
    if (l2_won_.contains(key)) continue;
    out.push_back(a);
    out.back().handing_off = true;
  }
  return out;
}

}  // namespace ingot::agent
