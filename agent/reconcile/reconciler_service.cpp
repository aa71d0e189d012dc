// SPDX-License-Identifier: Apache-2.0
// One Service's pass (its own work-queue key), the hand-off to the backends and the announcement
// reports (log lines, nodeAssigned Events, metallb_speaker_announced) shared with the full pass.
#include <algorithm>

#include "agent/reconcile/reconciler.h"
#include "agent/reconcile/writes.h"

namespace ingot::agent {
namespace {

k8s::ObjectReference serviceRef(const api::Service& svc) {
  return k8s::referenceTo("Service", svc);
}

/// signature identifies an announcement: its prefixes with their attributes and the peers FRR
/// holds a session for (refused left out).
std::string signature(const std::vector<Announcement>& announcements,
                      const std::set<std::string>& refused) {
  std::vector<std::string> parts;
  for (const auto& a : announcements) {
    std::string p = a.prefix.toString() + "|" + std::to_string(a.local_pref) + "|";
    for (const auto& c : a.communities) p += frrgen::communityText(c) + ",";
    p += "|";
    for (const auto& peer : a.peers) {
      if (!refused.contains(peer)) p += peer + ",";
    }
    parts.push_back(std::move(p));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += p + ";";
  return out;
}

std::string ingressIps(const api::Service& svc) {
  std::string out;
  for (const auto& i : svc.status.ingress) out += (out.empty() ? "" : ",") + i.ip;
  return out;
}

/// sameAnnouncements: every field the backends receive is equal (Announcement's operator==, so a
/// field added later, like the link-bandwidth of weighted ECMP, cannot be forgotten here).
bool sameAnnouncements(const std::vector<Announcement>& a, const std::vector<Announcement>& b) {
  return a == b;
}

std::string labelOr(const api::StringMap& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

}  // namespace

std::string sliceService(const api::EndpointSlice& slice) {
  const std::string name = labelOr(slice.metadata.labels, "kubernetes.io/service-name");
  return name.empty() ? std::string() : slice.metadata.namespace_ + "/" + name;
}

std::string statusService(const api::ServiceBGPStatus& status) {
  const std::string name = labelOr(status.metadata.labels, kServiceNameLabel);
  const std::string ns = labelOr(status.metadata.labels, kServiceNamespaceLabel);
  return name.empty() && ns.empty() ? std::string() : ns + "/" + name;
}

ReconcileResult Reconciler::syncService(const std::string& key) {
  if (!config_) {
    return ReconcileResult::done();  // the configuration's full pass decides every Service
  }
  const ServicePtr svc = caches_.services.get(key);
  const auto prev = decided_.find(key);
  const Decided* before = prev == decided_.end() ? nullptr : &prev->second;
  static const std::vector<Announcement> kNone;
  const auto& was = before != nullptr ? before->decision.announcements : kNone;
  const bool was_announced = before != nullptr && before->decision.announced();
  bool changed = false;  // the backends' part
  bool gauge = false;    // metallb_speaker_announced
  if (!svc) {
    changed = !was.empty();
    gauge = was_announced;
    reportAnnouncement(key, nullptr);
    if (before != nullptr) {
      decided_.erase(prev);
    }
  } else {
    const auto node = caches_.nodes.get(options_.node);
    Decided next{svc, decideBgpHere(*svc, node.get())};
    changed = !sameAnnouncements(was, next.decision.announcements);
    gauge = was_announced != next.decision.announced() ||
            (was_announced && before->service->status.ingress != svc->status.ingress);
    reportAnnouncement(key, &next);
    decided_.insert_or_assign(key, std::move(next));
  }
  if (changed) {
    bgp_changed_.insert(key);
  }
  changed |= decideLayer2For(key, svc);
  if (gauge) {
    setAnnouncedGaugeFor(key);
  }
  if (changed) {
    hand_off_ = true;
    queue_.add(std::string(keys::kHandOff));
  }
  status_writer_.markDirty(key);
  if (!hand_off_) {
    queue_.add(std::string(keys::kStatus));  // else the hand-off queues it behind the backends
  }
  return ReconcileResult::done();
}

std::vector<Announcement> Reconciler::allAnnouncements() const {
  std::vector<Announcement> bgp;
  for (const auto& [key, d] : decided_) {
    if (d.decision.announced()) {
      bgp.insert(bgp.end(), d.decision.announcements.begin(), d.decision.announcements.end());
    }
  }
  return bgp;
}

void Reconciler::handBackends() {
  bgp_changed_.clear();
  hand(Desired{config_, allAnnouncements(), l2Desired()});
}

void Reconciler::handChanges() {
  std::vector<config::ServiceAnnouncements> changes;
  changes.reserve(bgp_changed_.size());
  for (const auto& key : bgp_changed_) {
    auto d = decided_.find(key);
    changes.push_back({key, d == decided_.end() ? std::vector<Announcement>()
                                                : d->second.decision.announcements});
  }
  bgp_changed_.clear();
  Desired desired{config_, {}, l2Desired()};
  desired.bgp_changes = &changes;
  desired.bgp_all = [this] { return allAnnouncements(); };
  hand(desired);
}

void Reconciler::hand(const Desired& desired) {
  for (const auto& backend : backends_) {
    if (auto delay = backend->update(desired)) {
      queue_.addAfter(std::string(backend->key()), *delay);
    }
  }
  noteAccepted();  // a backend whose daemon already holds the change accepts it at once
}

void Reconciler::reportAnnouncement(const std::string& key, const Decided* d) {
  auto prev = announced_.find(key);
  if (d == nullptr || !announcedHere(key, d->decision)) {
    if (prev != announced_.end()) {
      const std::string reason = d == nullptr ? "serviceDeleted"
                                 : !d->decision.announced()
                                     ? std::string(bgpSkipReason(*d->decision.skip))
                                 : refused_peers_.empty() ? "notTakenByFrr"
                                                          : "peersRefusedByFrr";
      log_.info("announce", "serviceWithdrawn", "withdrawn",
                {{"service", key}, {"protocol", "bgp"}, {"reason", reason}});
      announced_.erase(prev);
    }
    return;
  }
  // A drain changes the attributes of every announcement and back: not a new assignment, so
  // no nodeAssigned Event (the Node gets the drain Events instead). What FRR took when the
  // backend knows it: a change FRR has not taken yet is not announced.
  const bool draining = drain_.state().phase == DrainPhase::GracefulShutdown;
  std::string sig =
      (draining ? "drain:" : "") +
      signature(accepted_ ? acceptedFor(key) : d->decision.announcements, refused_peers_);
  if (prev == announced_.end() ||
      (prev->second != sig && !draining && !prev->second.starts_with("drain:"))) {
    log_.info("announce", "serviceAnnounced", "service has IP, announcing",
              {{"service", key}, {"protocol", "bgp"}, {"ips", ingressIps(*d->service)}});
    events_.record(serviceRef(*d->service), k8s::EventType::Normal, "nodeAssigned",
                   "announcing from node \"" + options_.node + "\" with protocol \"bgp\"");
  }
  announced_.insert_or_assign(key, std::move(sig));
}

void Reconciler::reportAnnouncements() {
  for (const auto& [key, d] : decided_) {
    reportAnnouncement(key, &d);
  }
  for (auto it = announced_.begin(); it != announced_.end();) {
    const std::string key = it->first;
    ++it;  // reportAnnouncement erases key
    if (!decided_.contains(key)) {
      reportAnnouncement(key, nullptr);
    }
  }
  setAnnouncedGauge();
}

void Reconciler::setAnnouncedGauge() {
  std::vector<AnnouncedIp> gauge;
  for (const auto& [key, d] : decided_) {
    setWeightGaugeFor(key);
    if (!announcedHere(key, d.decision)) {
      continue;
    }
    for (const auto& i : d.service->status.ingress) {
      gauge.push_back({key, i.ip});
    }
  }
  metrics_.setAnnounced(std::move(gauge));
}

void Reconciler::setWeightGaugeFor(const std::string& key) {
  uint32_t bandwidth = 0;
  if (auto d = decided_.find(key); d != decided_.end() && announcedHere(key, d->second.decision) &&
                                   !d->second.decision.announcements.empty()) {
    bandwidth = d->second.decision.announcements.front().bandwidth;
  }
  metrics_.setWeight(key, bandwidth);
}

void Reconciler::setAnnouncedGaugeFor(const std::string& key) {
  setWeightGaugeFor(key);
  std::vector<std::string> ips;
  if (auto d = decided_.find(key); d != decided_.end() && announcedHere(key, d->second.decision)) {
    for (const auto& i : d->second.service->status.ingress) {
      ips.push_back(i.ip);
    }
  }
  metrics_.setAnnouncedFor(key, std::move(ips));
}

}  // namespace ingot::agent
