// SPDX-License-Identifier: Apache-2.0
// Running a backend's key and the ConfigurationState speaker-<node>.
#include "agent/reconcile/reconciler.h"
#include "agent/reconcile/writes.h"

namespace ingot::agent {

ReconcileResult Reconciler::applyBackend(Backend& backend) {
  const std::optional<std::string> before = backend.stateError();
  ReconcileResult r = backend.apply();
  metrics_.countReconcile(backend.reconcileKind(), !r.ok());
  if (backend.stateError() != before) {
    queue_.add(std::string(keys::kState));
  }
  noteRefusedPeers();
  noteAccepted();
  return r;
}

void Reconciler::noteAccepted() {
  AcceptedBgpPtr now;
  for (const auto& backend : backends_) {
    if (auto accepted = backend->acceptedBgp()) now = std::move(accepted);
  }
  if (now == accepted_) {
    return;
  }
  static const AcceptedBgp kNone;
  const AcceptedBgp& was = accepted_ ? *accepted_ : kNone;
  const AcceptedBgp& is = now ? *now : kNone;
  std::vector<std::string> changed;
  for (const auto& [key, announcements] : is) {
    auto it = was.find(key);
    if (it == was.end() || it->second != announcements) changed.push_back(key);
  }
  for (const auto& [key, announcements] : was) {
    if (!is.contains(key)) changed.push_back(key);
  }
  accepted_ = std::move(now);
  // What these Services reach changed: their Events, gauge samples and statuses follow FRR.
  for (const auto& key : changed) {
    auto d = decided_.find(key);
    reportAnnouncement(key, d == decided_.end() ? nullptr : &d->second);
    setAnnouncedGaugeFor(key);
    status_writer_.markDirty(key);
  }
  if (!changed.empty()) {
    queue_.add(std::string(keys::kStatus));
  }
}

void Reconciler::noteRefusedPeers() {
  std::set<std::string> refused;
  for (const auto& backend : backends_) {
    refused.insert(backend->refusedPeers().begin(), backend->refusedPeers().end());
  }
  if (refused == refused_peers_) {
    return;
  }
  refused_peers_ = std::move(refused);
  // What every Service reaches changed: Events, the gauge and the statuses follow FRR.
  reportAnnouncements();
  status_writer_.markAll();
  queue_.add(std::string(keys::kStatus));
}

bool Reconciler::announcedHere(const std::string& key, const BgpDecision& d) const {
  if (!d.announced()) {
    return false;
  }
  if (d.peers.empty()) {
    return accepted_ == nullptr || accepted_->contains(key);
  }
  if (refused_peers_.empty() && accepted_ == nullptr) {
    return true;
  }
  return std::any_of(d.peers.begin(), d.peers.end(),
                     [&](const std::string& p) { return holds(key, p); });
}

bool Reconciler::holds(const std::string& key, const std::string& peer) const {
  if (refused_peers_.contains(peer)) {
    return false;
  }
  if (accepted_ == nullptr) {
    return true;
  }
  const auto& taken = acceptedFor(key);
  return std::any_of(taken.begin(), taken.end(), [&](const Announcement& a) {
    return std::find(a.peers.begin(), a.peers.end(), peer) != a.peers.end();
  });
}

const std::vector<Announcement>& Reconciler::acceptedFor(const std::string& key) const {
  static const std::vector<Announcement> kNone;
  auto it = accepted_->find(key);
  return it == accepted_->end() ? kNone : it->second;
}

StateInputs Reconciler::stateInputs() const {
  StateInputs in{config_errors_, std::nullopt, std::nullopt, bgp_report_};
  if (drain_.state().phase != DrainPhase::Serving) {
    const bool withdrawn = drain_.state().phase == DrainPhase::Withdrawn;
    in.draining = {drainMessage(drain_.state()), withdrawn ? "Withdrawn" : "GracefulShutdown"};
  }
  for (const auto& backend : backends_) {
    auto e = backend->stateError();
    if (!e) {
      continue;
    }
    const bool layer2 = backend->stateCondition() == kLayer2ConditionType;
    auto& slot = layer2 ? in.layer2_error : in.frr_error;
    if (!slot || slot->empty()) {
      if (!layer2) {
        in.frr_config_error = backend->stateErrorIsConfig();
      }
      slot = std::move(e);
    }
  }
  return in;
}

void Reconciler::startBackends() {
  for (const auto& backend : backends_) {
    backend->start();
  }
}

void Reconciler::stopBackends() {
  for (const auto& backend : backends_) {
    backend->stop();
  }
}

ReconcileResult Reconciler::writeState() {
  if (!config_parsed_) return ReconcileResult::done();
  // applyBackend queues this key again once the pending backend's condition is settled.
  for (const auto& backend : backends_) {
    if (backend->statePending()) {
      return ReconcileResult::done();
    }
  }
  return state_writer_.write(configurationStateStatus(stateInputs(), now())).result;
}

}  // namespace ingot::agent
