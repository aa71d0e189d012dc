// SPDX-License-Identifier: Apache-2.0
// ServiceBGPStatus: one object per announced Service with BGP peers, labelled with this node,
// written under its own work-queue key behind the backends' applies.
#include <algorithm>

#include "agent/reconciler.h"
#include "agent/writes.h"
#include "common/json/scan.h"
#include "kube/resources.h"

namespace ingot::agent {

Reconciler::StatusesByService Reconciler::currentBgpStatuses(const KeySet* only) {
  std::map<std::string, Listed> by_name;
  auto take = [&](const k8s::Store<api::ServiceBGPStatus>::Ptr& s) {
    auto node = s->metadata.labels.find(kNodeLabel);
    if (node == s->metadata.labels.end() || node->second != options_.node) return;
    Listed listed{s->status, s->metadata.resource_version};
    // The labels identify the service even before the status was written.
    auto label = [&s](const char* key) {
      auto it = s->metadata.labels.find(key);
      return it == s->metadata.labels.end() ? std::string() : it->second;
    };
    listed.status.service_name = label(kServiceNameLabel);
    listed.status.service_namespace = label(kServiceNamespaceLabel);
    by_name[s->metadata.name] = std::move(listed);
  };
  if (only == nullptr) {
    std::ranges::for_each(caches_.bgp_statuses.list(), take);
  } else {
    for (const auto& key : *only) std::ranges::for_each(caches_.bgp_statuses.byIndex(key), take);
  }
  std::vector<std::string> names;
  if (only == nullptr) {
    names = bgp_writes_.keys();
  } else {
    for (const auto& key : *only) {
      std::ranges::copy(bgp_writes_.keysIn(key), std::back_inserter(names));
    }
  }
  bgp_writes_.overlay(
      by_name, names, clock_.now(),
      [](const Listed& l) {
        return k8s::CacheView<api::ServiceBGPStatusStatus>{true, l.rv, &l.status};
      },
      [](const std::string&, const auto& w) {
        return Listed{*w.value, w.resource_version};
      });
  StatusesByService out;
  for (auto& [name, listed] : by_name) {
    auto& st = listed.status;
    out[st.service_namespace + "/" + st.service_name].emplace_back(name, std::move(st));
  }
  return out;
}

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

void Reconciler::markStatusesDirty() {
  StatusesByService current = currentBgpStatuses(nullptr);
  for (const auto& [key, d] : decided_) {
    auto want = wantedBgpStatus(key);
    if (!want) continue;
    auto it = current.find(key);
    if (it == current.end() || it->second.size() != 1 || it->second.front().second != *want) {
      status_dirty_.insert(key);
    }
    if (it != current.end()) current.erase(it);
  }
  for (const auto& [key, objects] : current) {
    status_dirty_.insert(key);  // objects of Services no longer announced here
  }
}

ReconcileResult Reconciler::syncBgpStatuses() {
  if (hand_off_) {
    return ReconcileResult::done();  // the hand-off queues this key again, behind the apply
  }
  if (std::exchange(status_all_, false)) {
    markStatusesDirty();
  }
  Error first_error;
  size_t failures = 0;
  size_t writes = 0;
  const size_t per_pass = std::max<size_t>(options_.status_writes_per_pass, 1);
  // budget: false once this pass has written its share, or after one write as soon as another
  // key is ready (an apply must not wait for rate-limited status writes); the next pass continues.
  auto budget = [&] { return writes < per_pass && (writes == 0 || queue_.len() == 0); };
  auto check = [&](const Result<void>& r) {
    ++writes;
    if (r) return;
    if (failures++ == 0) first_error = r.error();
    log_.warn("bgp_status", "write_failed", r.error().message);
  };
  // converge writes what one Service needs: its object when announced with peers (the first by
  // name kept, duplicates dropped), none otherwise.
  auto converge = [&](const std::string& key, StatusesByService& current) {
    auto it = current.find(key);
    size_t from = 0;
    if (auto want = wantedBgpStatus(key)) {
      if (it == current.end()) {
        check(createBgpStatus(*want));
        return;
      }
      if (it->second.front().second != *want) {
        check(patchBgpStatus(it->second.front().first, *want));
      }
      from = 1;
    }
    if (it == current.end()) return;
    for (size_t i = from; i < it->second.size(); ++i) {
      check(removeBgpStatus(it->second[i].first, key));
    }
  };
  // The dirty Services in batches of per_pass: each batch reads the cache for its own Services.
  auto it = status_dirty_.begin();
  while (it != status_dirty_.end() && budget()) {
    KeySet batch;
    auto end = it;
    for (; end != status_dirty_.end() && batch.size() < per_pass; ++end) batch.insert(*end);
    StatusesByService current = currentBgpStatuses(&batch);
    while (it != end && budget()) {
      const size_t failed = failures;
      converge(*it, current);
      it = failures == failed ? status_dirty_.erase(it) : std::next(it);  // failed: next pass
    }
  }
  if (it != status_dirty_.end()) {
    queue_.add(std::string(keys::kStatus));  // the rest in the next pass
  }
  if (failures > 0) return ReconcileResult::retry(first_error);
  return ReconcileResult::done();
}

Result<void> Reconciler::createBgpStatus(const api::ServiceBGPStatusStatus& status) {
  metrics_.countUpdate();
  auto created = api_.create(k8s::resources::kServiceBgpStatuses, options_.namespace_,
                             bgpStatusObject(options_.namespace_, status, options_.owner));
  const std::string service = status.service_namespace + "/" + status.service_name;
  if (!created && created.error().code == ErrorCode::AlreadyExists) {
    // The name follows from node and Service (statusObjectName): this is our object, made by an
    // earlier create whose answer was lost (a 504 after the write committed) or not yet in the
    // cache. Writing its status is all that is left.
    const std::string name =
        statusObjectName("bgp-", status.node, status.service_namespace, status.service_name);
    log_.info("bgp_status", "adopted", "ServiceBGPStatus already exists",
              {{"name", name}, {"service", service}});
    return patchBgpStatus(name, status);
  }
  if (!created) {
    metrics_.countUpdateError();
    return created.error();
  }
  auto name = json::stringAt(*created, {"metadata", "name"});
  if (!name) return Error{ErrorCode::Internal, "created ServiceBGPStatus has no name"};
  // Until the status write lands the object exists with an empty status.
  bgp_writes_.record(*name,
                     bgpStatus(options_.node, status.service_namespace, status.service_name, {}),
                     k8s::resourceVersionOf(*created), clock_.now(), service);
  log_.info("bgp_status", "created", "ServiceBGPStatus created",
            {{"name", *name}, {"service", service}});
  return patchBgpStatus(*name, status);
}

Result<void> Reconciler::patchBgpStatus(const std::string& name,
                                        const api::ServiceBGPStatusStatus& status) {
  metrics_.countUpdate();
  auto r = api_.patchStatus(k8s::resources::kServiceBgpStatuses, options_.namespace_, name,
                            k8s::PatchType::Merge, bgpStatusPatch(status));
  if (!r) {
    metrics_.countUpdateError();
    if (r.error().code == ErrorCode::NotFound) bgp_writes_.erase(name);
    return r.error();
  }
  bgp_writes_.record(name, status, k8s::resourceVersionOf(*r), clock_.now(),
                     status.service_namespace + "/" + status.service_name);
  return {};
}

Result<void> Reconciler::removeBgpStatus(const std::string& name, const std::string& service) {
  metrics_.countUpdate();
  auto r = api_.remove(k8s::resources::kServiceBgpStatuses, options_.namespace_, name);
  if (!r && r.error().code != ErrorCode::NotFound) {
    metrics_.countUpdateError();
    return r.error();
  }
  bgp_writes_.recordDeleted(name, clock_.now(), service);
  log_.info("bgp_status", "deleted", "ServiceBGPStatus deleted", {{"name", name}});
  return {};
}

}  // namespace ingot::agent
