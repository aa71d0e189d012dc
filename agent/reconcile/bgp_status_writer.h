// SPDX-License-Identifier: Apache-2.0
// BgpStatusWriter: the writer of this node's ServiceBGPStatus objects. The reconciler decides
// which status each Service needs and marks the Services whose objects may need a write; the
// writer owns the rest: reading the objects (the cache overlaid with its own writes the cache may
// not show yet, kube/write_overlay.h), the creates, patches and deletions, and the write budget
// of one pass.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agent/daemon/compact_cache.h"
#include "agent/daemon/metrics.h"
#include "agent/reconcile/service_key.h"
#include "api/types.h"
#include "common/util/log.h"
#include "kube/api_client.h"
#include "kube/clock.h"
#include "kube/controller.h"
#include "kube/workqueue.h"
#include "kube/write_overlay.h"

namespace ingot::agent {

/// BgpStatusWriterOptions configure the writer.
struct BgpStatusWriterOptions {
  std::string node;                           ///< --node-name: label metallb.io/node
  std::string namespace_ = "metallb-system";  ///< where the objects live
  api::OwnerReference owner;                  ///< owner of the objects (the pod)
  k8s::Duration overlay_ttl = std::chrono::seconds(60);
  /// writes_per_pass bounds the writes of one pass; the rest follow in the next pass, queued
  /// under status_key, so that a burst of new Services does not hold back another key.
  size_t writes_per_pass = 32;
  std::string status_key;  ///< the work-queue key a pass runs under
};

/// BgpStatusDecisions are what the writer asks the reconciler.
struct BgpStatusDecisions {
  /// wanted returns the status the Service key needs (nullopt: no object).
  std::function<std::optional<api::ServiceBGPStatusStatus>(const std::string& key)> wanted;
  /// each calls f with the key of every decided Service.
  std::function<void(const std::function<void(const std::string& key)>& f)> each;
};

/// BgpStatusWriter converges this node's ServiceBGPStatus objects: for each Service marked, its
/// object when the decision wants one (the first by name kept, duplicates dropped), none
/// otherwise. Single-threaded: the reconcile worker.
class BgpStatusWriter {
 public:
  BgpStatusWriter(CacheView<api::ServiceBGPStatus> statuses,
                  k8s::ApiClient& api,
                  k8s::WorkQueue& queue,
                  Metrics& metrics,
                  log::Logger& logger,
                  k8s::Clock& clock,
                  BgpStatusWriterOptions options,
                  BgpStatusDecisions decisions);

  /// markDirty notes that the Service key's object may need a write.
  void markDirty(const std::string& key) { dirty_.insert(key); }
  /// markAll notes that every Service may: the next pass compares them all first.
  void markAll() { all_ = true; }

  /// pass writes what the marked Services need, at most writes_per_pass writes, and after one
  /// write only while no other key is ready; the rest is queued for the next pass. A Service
  /// whose write failed stays marked; the first error is returned (a retry).
  k8s::ReconcileResult pass();

 private:
  using KeySet = std::set<std::string, ServiceKeyLess>;
  /// Listed is a ServiceBGPStatus as one pass sees it: the cache's snapshot, then the overlay.
  struct Listed {
    api::ServiceBGPStatusStatus status;
    std::string rv;
  };
  using StatusesByService =
      std::map<std::string, std::vector<std::pair<std::string, api::ServiceBGPStatusStatus>>>;

  /// markChanged marks every Service whose objects differ from what the decisions want.
  void markChanged();
  /// current returns this node's objects by Service, the cache overlaid with the writes it may
  /// not show yet (written_, decided from that snapshot); only those of the Services in `only`
  /// unless null.
  StatusesByService current(const KeySet* only);
  Result<void> create(const api::ServiceBGPStatusStatus& status);
  Result<void> patch(const std::string& name, const api::ServiceBGPStatusStatus& status);
  Result<void> remove(const std::string& name, const std::string& service);

  CacheView<api::ServiceBGPStatus> statuses_;
  k8s::ApiClient& api_;
  k8s::WorkQueue& queue_;
  Metrics& metrics_;
  log::Logger& log_;
  k8s::Clock& clock_;
  BgpStatusWriterOptions options_;
  BgpStatusDecisions decisions_;
  /// written_: ServiceBGPStatus name → the write the cache may not show yet, grouped by the
  /// "namespace/name" of the Service the object reports on.
  k8s::WriteOverlay<api::ServiceBGPStatusStatus> written_;
  KeySet dirty_;      ///< Services whose ServiceBGPStatus may need a write
  bool all_ = false;  ///< compare every Service at the next pass
};

}  // namespace ingot::agent
