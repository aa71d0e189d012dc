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
  std::map<std::string, api::ServiceBGPStatusStatus> by_name;
  auto take = [&](const k8s::Store<api::ServiceBGPStatus>::Ptr& s) {
    auto node = s->metadata.labels.find(kNodeLabel);
    if (node == s->metadata.labels.end() || node->second != options_.node) return;
    api::ServiceBGPStatusStatus st = s->status;
    // The labels identify the service even before the status was written.
    auto label = [&s](const char* key) {
      auto it = s->metadata.labels.find(key);
      return it == s->metadata.labels.end() ? std::string() : it->second;
    };
    st.service_name = label(kServiceNameLabel);
    st.service_namespace = label(kServiceNamespaceLabel);
    by_name[s->metadata.name] = std::move(st);
  };
  if (only == nullptr) {
    std::ranges::for_each(caches_.bgp_statuses.list(), take);
  } else {
    for (const auto& key : *only) std::ranges::for_each(caches_.bgp_statuses.byIndex(key), take);
  }
  const auto now = clock_.now();
  for (auto it = status_writes_.begin(); it != status_writes_.end();) {
    auto cached = caches_.bgp_statuses.entry(k8s::objectKey(options_.namespace_, it->first));
    const bool caught_up = it->second.status ? cached.object != nullptr && !it->second.rv.empty() &&
                                                   cached.resource_version == it->second.rv
                                             : cached.object == nullptr;
    if (caught_up || now >= it->second.expires) {
      it = status_writes_.erase(it);
      continue;
    }
    const auto& pending = it->second.status;
    if (!pending) {
      by_name.erase(it->first);
    } else if (only == nullptr ||
               only->contains(pending->service_namespace + "/" + pending->service_name)) {
      by_name[it->first] = *pending;
    }
    ++it;
  }
  StatusesByService out;
  for (auto& [name, st] : by_name) {
    out[st.service_namespace + "/" + st.service_name].emplace_back(name, std::move(st));
  }
  return out;
}

ReconcileResult Reconciler::syncBgpStatuses() {
  if (hand_off_) {
    return ReconcileResult::done();  // the hand-off queues this key again, behind the apply
  }
  const bool all = status_all_;
  auto current = currentBgpStatuses(all ? nullptr : &status_dirty_);
  Error first_error;
  size_t failures = 0;
  size_t writes = 0;
  // budget: false once this pass has written its share, or after one write as soon as another
  // key is ready (an apply must not wait for rate-limited status writes); the next pass continues.
  auto budget = [&] {
    return writes < std::max<size_t>(options_.status_writes_per_pass, 1) &&
           (writes == 0 || queue_.len() == 0);
  };
  auto check = [&](const Result<void>& r) {
    ++writes;
    if (r) return;
    if (failures++ == 0) first_error = r.error();
    log_.warn("bgp_status", "write_failed", r.error().message);
  };
  // converge writes what one Service needs: its object when announced with peers (the first by
  // name kept, duplicates dropped), none otherwise.
  auto converge = [&](const std::string& key) {
    auto d = decided_.find(key);
    auto it = current.find(key);
    const bool want_one =
        d != decided_.end() && d->second.decision.announced() && !d->second.decision.peers.empty();
    size_t from = 0;
    if (want_one) {
      const auto& meta = d->second.service->metadata;
      const auto want =
          bgpStatus(options_.node, meta.namespace_, meta.name, d->second.decision.peers);
      if (it == current.end()) {
        check(createBgpStatus(want));
        return;
      }
      if (it->second.front().second != want) check(patchBgpStatus(it->second.front().first, want));
      from = 1;
    }
    if (it == current.end()) return;
    for (size_t i = from; i < it->second.size(); ++i) check(removeBgpStatus(it->second[i].first));
    current.erase(it);
  };
  if (all) {
    for (const auto& [key, d] : decided_) {
      if (!budget()) break;
      if (d.decision.announced() && !d.decision.peers.empty()) converge(key);
    }
    // What is left in current belongs to Services no longer announced here — unless the budget
    // ran out above, and then this loop does not start.
    while (!current.empty() && budget()) converge(current.begin()->first);
  } else {
    for (auto it = status_dirty_.begin(); it != status_dirty_.end() && budget();) {
      const size_t failed = failures;
      converge(*it);
      it = failures == failed ? status_dirty_.erase(it) : std::next(it);  // failed: next pass
    }
  }
  if (!budget()) {
    queue_.add(std::string(keys::kStatus));  // the rest in the next pass
  } else if (all && failures == 0) {
    status_all_ = false;
    status_dirty_.clear();
  }
  if (failures > 0) return ReconcileResult::retry(first_error);
  return ReconcileResult::done();
}

Result<void> Reconciler::createBgpStatus(const api::ServiceBGPStatusStatus& status) {
  metrics_.countUpdate();
  auto created = api_.create(k8s::resources::kServiceBgpStatuses, options_.namespace_,
                             bgpStatusObject(options_.namespace_, status, options_.owner));
  if (!created) {
    metrics_.countUpdateError();
    return created.error();
  }
  auto name = json::stringAt(*created, {"metadata", "name"});
  if (!name) return Error{ErrorCode::Internal, "created ServiceBGPStatus has no name"};
  const auto expires = clock_.now() + options_.overlay_ttl;
  // Until the status write lands the object exists with an empty status.
  status_writes_[*name] =
      Pending{bgpStatus(options_.node, status.service_namespace, status.service_name, {}),
              k8s::resourceVersionOf(*created), expires};
  log_.info("bgp_status", "created", "ServiceBGPStatus created",
            {{"name", *name}, {"service", status.service_namespace + "/" + status.service_name}});
  return patchBgpStatus(*name, status);
}

Result<void> Reconciler::patchBgpStatus(const std::string& name,
                                        const api::ServiceBGPStatusStatus& status) {
  metrics_.countUpdate();
  auto r = api_.patchStatus(k8s::resources::kServiceBgpStatuses, options_.namespace_, name,
                            k8s::PatchType::Merge, bgpStatusPatch(status));
  if (!r) {
    metrics_.countUpdateError();
    if (r.error().code == ErrorCode::NotFound) status_writes_.erase(name);
    return r.error();
  }
  status_writes_[name] =
      Pending{status, k8s::resourceVersionOf(*r), clock_.now() + options_.overlay_ttl};
  return {};
}

Result<void> Reconciler::removeBgpStatus(const std::string& name) {
  metrics_.countUpdate();
  auto r = api_.remove(k8s::resources::kServiceBgpStatuses, options_.namespace_, name);
  if (!r && r.error().code != ErrorCode::NotFound) {
    metrics_.countUpdateError();
    return r.error();
  }
  status_writes_[name] = Pending{std::nullopt, "", clock_.now() + options_.overlay_ttl};
  log_.info("bgp_status", "deleted", "ServiceBGPStatus deleted", {{"name", name}});
  return {};
}

}  // namespace ingot::agent
