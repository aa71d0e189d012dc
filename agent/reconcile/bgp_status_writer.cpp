// SPDX-License-Identifier: Apache-2.0
#include "agent/reconcile/bgp_status_writer.h"

#include <algorithm>
#include <iterator>

#include "agent/reconcile/writes.h"
#include "common/json/scan.h"
#include "kube/resources.h"

namespace ingot::agent {

BgpStatusWriter::BgpStatusWriter(CacheView<api::ServiceBGPStatus> statuses,
                                 k8s::ApiClient& api,
                                 k8s::WorkQueue& queue,
                                 Metrics& metrics,
                                 log::Logger& logger,
                                 k8s::Clock& clock,
                                 BgpStatusWriterOptions options,
                                 BgpStatusDecisions decisions)
    : statuses_(std::move(statuses)),
      api_(api),
      queue_(queue),
      metrics_(metrics),
      log_(logger),
      clock_(clock),
      options_(std::move(options)),
      decisions_(std::move(decisions)),
      written_(options_.overlay_ttl) {}

BgpStatusWriter::StatusesByService BgpStatusWriter::current(const KeySet* only) {
  std::map<std::string, Listed> by_name;
  auto take = [&](const CacheView<api::ServiceBGPStatus>::Ptr& s) {
    auto node = s->metadata.labels.find(kNodeLabel);
    if (node == s->metadata.labels.end() || node->second != options_.node) return;
    Listed listed{s->status, s->metadata.resource_version};
    // The labels identify the service even before the status was written.
    listed.status.service_name = s->metadata.label(kServiceNameLabel);
    listed.status.service_namespace = s->metadata.label(kServiceNamespaceLabel);
    by_name[s->metadata.name] = std::move(listed);
  };
  if (only == nullptr) {
    std::ranges::for_each(statuses_.list(), take);
  } else {
    for (const auto& key : *only) std::ranges::for_each(statuses_.byIndex(key), take);
  }
  std::vector<std::string> names;
  if (only == nullptr) {
    names = written_.keys();
  } else {
    for (const auto& key : *only) {
      std::ranges::copy(written_.keysIn(key), std::back_inserter(names));
    }
  }
  written_.overlay(
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

void BgpStatusWriter::markChanged() {
  StatusesByService now = current(nullptr);
  decisions_.each([&](const std::string& key) {
    auto want = decisions_.wanted(key);
    if (!want) return;
    auto it = now.find(key);
    if (it == now.end() || it->second.size() != 1 || it->second.front().second != *want) {
      dirty_.insert(key);
    }
    if (it != now.end()) now.erase(it);
  });
  for (const auto& [key, objects] : now) {
    dirty_.insert(key);  // objects of Services no longer announced here
  }
}

k8s::ReconcileResult BgpStatusWriter::pass() {
  if (std::exchange(all_, false)) {
    markChanged();
  }
  Error first_error;
  size_t failures = 0;
  size_t writes = 0;
  const size_t per_pass = std::max<size_t>(options_.writes_per_pass, 1);
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
  auto converge = [&](const std::string& key, StatusesByService& objects) {
    auto it = objects.find(key);
    size_t from = 0;
    if (auto want = decisions_.wanted(key)) {
      if (it == objects.end()) {
        check(create(*want));
        return;
      }
      if (it->second.front().second != *want) {
        check(patch(it->second.front().first, *want));
      }
      from = 1;
    }
    if (it == objects.end()) return;
    for (size_t i = from; i < it->second.size(); ++i) {
      check(remove(it->second[i].first, key));
    }
  };
  // The dirty Services in batches of per_pass: each batch reads the cache for its own Services.
  auto it = dirty_.begin();
  while (it != dirty_.end() && budget()) {
    KeySet batch;
    auto end = it;
    for (; end != dirty_.end() && batch.size() < per_pass; ++end) batch.insert(*end);
    StatusesByService objects = current(&batch);
    while (it != end && budget()) {
      const size_t failed = failures;
      converge(*it, objects);
      it = failures == failed ? dirty_.erase(it) : std::next(it);  // failed: next pass
    }
  }
  if (it != dirty_.end()) {
    queue_.add(options_.status_key);  // the rest in the next pass
  }
  if (failures > 0) return k8s::ReconcileResult::retry(first_error);
  return k8s::ReconcileResult::done();
}

Result<void> BgpStatusWriter::create(const api::ServiceBGPStatusStatus& status) {
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
    return patch(name, status);
  }
  if (!created) {
    metrics_.countUpdateError();
    return created.error();
  }
  auto name = json::stringAt(*created, {"metadata", "name"});
  if (!name) return Error{ErrorCode::Internal, "created ServiceBGPStatus has no name"};
  // Until the status write lands the object exists with an empty status.
  written_.record(*name,
                  bgpStatus(options_.node, status.service_namespace, status.service_name, {}),
                  k8s::resourceVersionOf(*created), clock_.now(), service);
  log_.info("bgp_status", "created", "ServiceBGPStatus created",
            {{"name", *name}, {"service", service}});
  return patch(*name, status);
}

Result<void> BgpStatusWriter::patch(const std::string& name,
                                    const api::ServiceBGPStatusStatus& status) {
  metrics_.countUpdate();
  auto r = api_.patchStatus(k8s::resources::kServiceBgpStatuses, options_.namespace_, name,
                            k8s::PatchType::Merge, bgpStatusPatch(status));
  if (!r) {
    metrics_.countUpdateError();
    if (r.error().code == ErrorCode::NotFound) written_.erase(name);
    return r.error();
  }
  written_.record(name, status, k8s::resourceVersionOf(*r), clock_.now(),
                  status.service_namespace + "/" + status.service_name);
  return {};
}

Result<void> BgpStatusWriter::remove(const std::string& name, const std::string& service) {
  metrics_.countUpdate();
  auto r = api_.remove(k8s::resources::kServiceBgpStatuses, options_.namespace_, name);
  if (!r && r.error().code != ErrorCode::NotFound) {
    metrics_.countUpdateError();
    return r.error();
  }
  written_.recordDeleted(name, clock_.now(), service);
  log_.info("bgp_status", "deleted", "ServiceBGPStatus deleted", {{"name", name}});
  return {};
}

}  // namespace ingot::agent
