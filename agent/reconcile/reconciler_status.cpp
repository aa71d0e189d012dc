// SPDX-License-Identifier: Apache-2.0
// ServiceBGPStatus: what each Service needs (one object per announced Service with BGP peers,
// labelled with this node); BgpStatusWriter writes it under its own work-queue key behind the
// backends' applies.
#include <algorithm>

#include "agent/reconcile/reconciler.h"
#include "agent/reconcile/writes.h"

namespace ingot::agent {

std::optional<api::ServiceBGPStatusStatus> Reconciler::wantedBgpStatus(
    const std::string& key) const {
  auto d = decided_.find(key);
  if (d == decided_.end() || !d->second.decision.announced() || d->second.decision.peers.empty()) {
    return std::nullopt;
  }
  // Only the peers FRR announces the Service to: it took the announcement (an apply that has not
  // succeeded yet claims nothing), and a BGPPeer whose session FRR refused gets nothing.
  std::vector<std::string> peers;
  std::copy_if(d->second.decision.peers.begin(), d->second.decision.peers.end(),
               std::back_inserter(peers), [&](const std::string& p) { return holds(key, p); });
  if (peers.empty()) {
    return std::nullopt;
  }
  const auto& meta = d->second.service->metadata;
  return bgpStatus(options_.node, meta.namespace_, meta.name, std::move(peers));
}

BgpStatusDecisions Reconciler::bgpStatusDecisions() {
  return {[this](const std::string& key) { return wantedBgpStatus(key); },
          [this](const std::function<void(const std::string&)>& f) {
            for (const auto& [key, d] : decided_) f(key);
          }};
}

ReconcileResult Reconciler::syncBgpStatuses() {
  if (hand_off_) {
    return ReconcileResult::done();  // the hand-off queues this key again, behind the apply
  }
  return status_writer_.pass();
}

}  // namespace ingot::agent
