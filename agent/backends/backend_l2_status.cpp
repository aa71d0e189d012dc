// SPDX-License-Identifier: Apache-2.0
// Layer2Backend's ServiceL2Status objects, as MetalLB's speaker keeps them: one per Service, by
// the node that answers for it, labelled with the node and the Service, named l2-<hash of both>
// (statusObjectName; MetalLB's are l2-<random>); the answering node deletes the other nodes'
// objects for its Services and its own for Services it no longer answers for. Written only when
// they differ from what is stored.
#include "agent/backends/backend_l2.h"
#include "agent/reconcile/writes.h"
#include "common/json/scan.h"
#include "kube/resources.h"

namespace ingot::agent {

/// currentStatuses returns every stored ServiceL2Status by "namespace/name" of its Service
/// labels, sorted by object name, with this backend's writes the cache may not show yet laid over
/// them.
std::map<std::string, std::vector<Layer2Backend::Seen>> Layer2Backend::currentStatuses() {
  std::map<std::string, Seen> by_name;
  for (const auto& s : ctx_.caches.l2_statuses.list()) {
    if (s->metadata.namespace_ != ctx_.options.namespace_) {
      continue;
    }
    api::ServiceL2StatusStatus st = s->status;
    st.service_name = s->metadata.label(kServiceNameLabel);
    st.service_namespace = s->metadata.label(kServiceNamespaceLabel);
    by_name[s->metadata.name] =
        Seen{s->metadata.name, s->metadata.label(kNodeLabel), st, s->metadata.resource_version};
  }
  written_.overlay(
      by_name, written_.keys(), ctx_.clock.now(),
      [](const Seen& seen) {
        return k8s::CacheView<api::ServiceL2StatusStatus>{true, seen.rv, &seen.status};
      },
      [this](const std::string& name, const auto& w) {
        return Seen{name, ctx_.options.node, *w.value, w.resource_version};
      });
  std::map<std::string, std::vector<Seen>> out;
  for (auto& [name, seen] : by_name) {
    const std::string key = seen.status.service_namespace + "/" + seen.status.service_name;
    out[key].push_back(std::move(seen));
  }
  return out;
}

std::map<std::string, api::ServiceL2StatusStatus> Layer2Backend::wantedStatuses() const {
  std::map<std::string, api::ServiceL2StatusStatus> out;
  for (const auto& [key, answered] : answered_) {
    // An address answered for a Service no longer desired is withdrawn by the next apply (update
    // asked for it); until then it wants no status, and its status diverges.
    auto wanted = desired_.find(key);
    if (wanted == desired_.end() || wanted->second.handing_off) {
      continue;  // a handed-off Service's status is the new owner's to write
    }
    const L2Announcement& a = wanted->second;
    std::vector<std::string> ifs;
    if (a.interfaces) {
      ifs.assign(a.interfaces->begin(), a.interfaces->end());
    }
    out.emplace(key, l2Status(ctx_.options.node, a.service_namespace, a.service_name, ifs));
  }
  return out;
}

bool Layer2Backend::handingOff(const std::string& key) const {
  auto it = desired_.find(key);
  return it != desired_.end() && it->second.handing_off;
}

bool Layer2Backend::statusesDiverge() {
  auto current = currentStatuses();
  for (const auto& [key, want] : wantedStatuses()) {
    auto it = current.find(key);
    // Exactly one object for the Service, ours, with the wanted status.
    if (it == current.end() || it->second.size() != 1 ||
        it->second.front().node != ctx_.options.node || it->second.front().status != want) {
      return true;
    }
    current.erase(it);
  }
  for (const auto& [key, objects] : current) {
    if (handingOff(key)) {
      continue;
    }
    for (const auto& seen : objects) {
      if (seen.node == ctx_.options.node) {
        return true;  // ours, for a Service this node does not answer for
      }
    }
  }
  return false;
}

ReconcileResult Layer2Backend::syncStatuses() {
  auto current = currentStatuses();
  Error first_error;
  size_t failures = 0;
  auto check = [&](const Result<void>& r) {
    if (!r) {
      if (failures++ == 0) {
        first_error = r.error();
      }
      ctx_.log.warn("l2_status", "write_failed", r.error().message);
    }
  };
  for (const auto& [key, want] : wantedStatuses()) {
    bool kept = false;
    for (const auto& seen : current[key]) {
      if (!kept && seen.node == ctx_.options.node) {
        kept = true;
        if (seen.status != want) {
          check(patchStatus(seen.name, want));
        }
        continue;
      }
      check(removeStatus(seen.name));  // another node's, or a duplicate of ours
    }
    if (!kept) {
      check(createStatus(want));
    }
    current.erase(key);
  }
  for (const auto& [key, objects] : current) {
    if (handingOff(key)) {
      continue;  // the new owner replaces ours; deleting it first would make it probe
    }
    for (const auto& seen : objects) {
      if (seen.node == ctx_.options.node) {
        check(removeStatus(seen.name));
      }
    }
  }
  if (failures > 0) {
    return ReconcileResult::retry(first_error);
  }
  return ReconcileResult::done();
}

Result<void> Layer2Backend::createStatus(const api::ServiceL2StatusStatus& status) {
  ctx_.metrics.countUpdate();
  auto created =
      ctx_.api.create(k8s::resources::kServiceL2Statuses, ctx_.options.namespace_,
                      l2StatusObject(ctx_.options.namespace_, status, ctx_.options.owner));
  if (!created && created.error().code == ErrorCode::AlreadyExists) {
    // Ours (the name follows from node and Service, statusObjectName), from an earlier create
    // whose answer was lost or that the cache does not show yet: only its status is left.
    const std::string name =
        statusObjectName("l2-", status.node, status.service_namespace, status.service_name);
    ctx_.log.info(
        "l2_status", "adopted", "ServiceL2Status already exists",
        {{"name", name}, {"service", status.service_namespace + "/" + status.service_name}});
    return patchStatus(name, status);
  }
  if (!created) {
    ctx_.metrics.countUpdateError();
    return created.error();
  }
  auto name = json::stringAt(*created, {"metadata", "name"});
  if (!name) {
    return Error{ErrorCode::Internal, "created ServiceL2Status has no name"};
  }
  // Until the status write lands the object exists with an empty status.
  written_.record(*name, l2Status("", status.service_namespace, status.service_name, {}),
                  k8s::resourceVersionOf(*created), ctx_.clock.now());
  ctx_.log.info(
      "l2_status", "created", "ServiceL2Status created",
      {{"name", *name}, {"service", status.service_namespace + "/" + status.service_name}});
  return patchStatus(*name, status);
}

Result<void> Layer2Backend::patchStatus(const std::string& name,
                                        const api::ServiceL2StatusStatus& status) {
  ctx_.metrics.countUpdate();
  auto r = ctx_.api.patchStatus(k8s::resources::kServiceL2Statuses, ctx_.options.namespace_, name,
                                k8s::PatchType::Merge, l2StatusPatch(status));
  if (!r) {
    ctx_.metrics.countUpdateError();
    if (r.error().code == ErrorCode::NotFound) {
      written_.erase(name);
    }
    return r.error();
  }
  written_.record(name, status, k8s::resourceVersionOf(*r), ctx_.clock.now());
  return {};
}

Result<void> Layer2Backend::removeStatus(const std::string& name) {
  ctx_.metrics.countUpdate();
  auto r = ctx_.api.remove(k8s::resources::kServiceL2Statuses, ctx_.options.namespace_, name);
  if (!r && r.error().code != ErrorCode::NotFound) {
    ctx_.metrics.countUpdateError();
    return r.error();
  }
  written_.recordDeleted(name, ctx_.clock.now());
  ctx_.log.info("l2_status", "deleted", "ServiceL2Status deleted", {{"name", name}});
  return {};
}

}  // namespace ingot::agent
