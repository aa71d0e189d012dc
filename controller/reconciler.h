// SPDX-License-Identifier: Apache-2.0
// The controller's reconcilers (MetalLB's PoolReconciler, ServiceReconciler, service reload,
// PoolStatusReconciler and ConfigurationState reporting) as one object driven by one worker
// thread: it reads the informer caches, calls the pure core (config::parse, reprocessAll,
// convergeService, poolStatus) and writes only the differences through the ApiClient.
#pragma once

#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "config/config.h"
#include "controller/core/allocator.h"
#include "controller/core/service.h"
#include "controller/core/unannounced.h"
#include "controller/metrics.h"
#include "controller/write_pool.h"
#include "kube/api_client.h"
#include "kube/compact_cache.h"
#include "kube/controller.h"
#include "kube/events.h"
#include "kube/reconcile_io.h"
#include "kube/state_writer.h"
#include "kube/store.h"
#include "kube/workqueue.h"
#include "kube/write_overlay.h"

namespace ingot::controller {

using k8s::EventSink;
using k8s::RecorderSink;

/// AnnounceCaches are the extra stores the unannounced check reads (controller/announce_watch.h):
/// what the agents' decisions read, what they report, and the agent Pods.
struct AnnounceCaches {
  const k8s::Store<api::Node>& nodes;
  /// indexed by the Service key ("ns/name"); packed in the daemon (k8s::PackedSlice)
  k8s::StoreView<api::EndpointSlice> slices;
  const k8s::Store<api::BGPPeer>& peers;
  const k8s::Store<api::BGPAdvertisement>& bgp_ads;
  const k8s::Store<api::L2Advertisement>& l2_ads;
  /// indexed by the Service key; packed in the daemon (PackedReport)
  k8s::StoreView<api::ServiceL2Status> l2_statuses;
  k8s::StoreView<api::ServiceBGPStatus> bgp_statuses;  ///< as l2_statuses
  const k8s::Store<api::Pod>& agent_pods;
};

/// Caches are the informer stores the reconciler reads. Pools, communities and the
/// ConfigurationState are those of the MetalLB namespace; services and namespaces are cluster-wide.
struct Caches {
  k8s::StoreView<api::Service> services;  ///< packed in the daemon (PackedService)
  const k8s::Store<api::IPAddressPool>& pools;
  const k8s::Store<api::Community>& communities;
  const k8s::Store<api::Namespace>& namespaces;
  const k8s::Store<api::ConfigurationState>& states;
  const AnnounceCaches* announce = nullptr;  ///< null when the unannounced check is off
};

/// Work-queue keys. Services are "svc:<ns>/<name>", pool statuses "pool:<name>"; the others are
/// singletons.
namespace keys {
inline constexpr std::string_view kConfig = "config";         ///< re-parse the configuration
inline constexpr std::string_view kReprocess = "reprocess";   ///< full pass over every Service
inline constexpr std::string_view kState = "state";           ///< write ConfigurationState
inline constexpr std::string_view kAnnounceAll = "announce";  ///< unannounced check, all
std::string service(std::string_view object_key);
std::string announce(std::string_view object_key);  ///< "ann:<ns>/<name>"
std::string poolStatus(std::string_view pool_name);
bool isService(std::string_view key);
}  // namespace keys

using k8s::ReconcileResult;

/// ReconcilerOptions configure the reconciler.
struct ReconcilerOptions {
  std::string namespace_ = "metallb-system";  ///< where pools and ConfigurationState live
  Options service;                            ///< --lb-class
  config::Backend backend = config::Backend::FrrK8s;
  api::OwnerReference owner;  ///< owner of the ConfigurationState (the pod); uid "" = none
  size_t write_concurrency = 8;
  k8s::Duration overlay_ttl = std::chrono::seconds(60);
  /// pool_status_delay coalesces pool status writes: at most one per pool per delay.
  k8s::Duration pool_status_delay = std::chrono::milliseconds(500);
  /// unannounced_grace: how long an address may go unannounced before it is reported.
  k8s::Duration unannounced_grace = std::chrono::seconds(20);
};

/// Reconciler holds the controller's domain state (allocator, last good Config) and reconciles
/// one key at a time. Not thread-safe except initialPassDone(): call it from one worker thread.
///
/// Rules (MetalLB's controller): nothing happens to Services before the first successful
/// full pass (the initial-load gate), and no full pass runs before a valid configuration has
/// been parsed. A configuration that fails to parse is reported (ConfigurationState Invalid,
/// metallb_k8s_client_config_stale_bool 1) and never replaces the last good one. A full pass
/// that fails in any write is retried as a whole.
class Reconciler : private k8s::ReconcilerIo {
 public:
  Reconciler(Caches caches,
             const k8s::ReconcileIo& io,
             Metrics& metrics,
             ReconcilerOptions options);

  /// reconcile handles any key.
  ReconcileResult reconcile(const std::string& key);

  /// reconcileServices handles service keys: converges each, in order, on this thread, then
  /// applies their writes concurrently. Returns one result per key, in order.
  std::vector<ReconcileResult> reconcileServices(const std::vector<std::string>& keys);

  /// initialPassDone is true once a full pass succeeded (readiness). Thread-safe.
  bool initialPassDone() const { return initial_done_.load(); }

  /// config returns the configuration in use (the last good one), or nullptr.
  const config::ConfigSharedPtr& config() const { return config_; }

  const Allocator& allocatorForTest() const { return allocator_; }

  /// stateDeleted tells that the informer saw ConfigurationState deleted: the next state pass
  /// forgets what it wrote, which the cache may never have shown before the deletion (a create
  /// and a delete in quick succession), and creates it again. Thread-safe.
  void stateDeleted() { state_writer_.noteDeleted(); }

 private:
  /// ServiceWrite is one pending services/status patch and what to do once it succeeded.
  struct ServiceWrite {
    std::string key;           ///< "ns/name"
    k8s::ObjectReference ref;  ///< the Service, for the Events
    ServiceOutcome outcome;
    Result<std::string> result = std::string();
  };
  /// ServiceWritten is what a write did, kept until the cache shows it.
  struct ServiceWritten {
    api::ServiceStatus status;
    std::map<std::string, std::string> set_annotations;
    std::vector<std::string> remove_annotations;
  };

  ReconcileResult reconcileConfig();
  ReconcileResult fullPass();
  ReconcileResult reconcilePoolStatus(const std::string& pool);
  ReconcileResult reconcileState();

  std::optional<api::Service> view(const std::string& key);
  std::vector<api::Service> snapshotServices();
  std::optional<ServiceWrite> convergeOne(const std::string& key);
  /// planWrites pairs a full pass's outcomes with their Services: writes for those that differ;
  /// the Events of the others are emitted at once.
  std::vector<ServiceWrite> planWrites(std::vector<ServiceOutcome>& outcomes,
                                       const std::vector<api::Service>& services);
  /// applyServiceWrites patches every write concurrently, then records overlays and emits the
  /// events of the successful ones. Returns the number of failures.
  size_t applyServiceWrites(std::vector<ServiceWrite>& writes);
  void emitEvents(const k8s::ObjectReference& ref, const std::vector<Event>& events);
  void enqueuePoolStatus(const std::string& pool);
  void publishAllocatorMetrics();
  std::string now() const;

  // The unannounced check (reconciler_announce.cpp).
  /// TruthIndex: Service key → the nodes whose agents report announcing it.
  using TruthIndex = std::map<std::string, AnnounceTruth>;
  /// AnnounceInputs are what each Service's check reads alike: the Nodes, the nodes whose agent
  /// is not alive and every Service's truth. A pass over every Service reads them once; a
  /// single check (pass null) looks up its own truth in the indexed status caches instead.
  struct AnnounceInputs {
    std::vector<api::Node> nodes;
    std::set<std::string> dead;
    TruthIndex truths;
  };
  ReconcileResult reconcileAnnounce(const std::string& key);
  ReconcileResult checkAnnounce(const std::string& key, const AnnounceInputs* pass);
  void parseAnnounceConfig();
  AnnounceInputs announceInputs(bool with_truths) const;
  AnnounceFinding announceFinding(const api::Service& svc, const AnnounceInputs* pass);
  std::set<std::string> deadAgents(const std::vector<api::Node>& nodes) const;
  ReconcileResult writeAnnounced(const api::Service& svc,
                                 const std::optional<api::Condition>& desired,
                                 const AnnounceFinding& finding);
  /// dropStaleCondition removes ours from a write that changes the addresses: it spoke of
  /// the old ones (the grace period starts again).
  static void dropStaleCondition(const api::Service& svc, ServiceOutcome& out);

  Caches caches_;
  Metrics& metrics_;
  ReconcilerOptions options_;
  WritePool writers_;

  Allocator allocator_;
  config::ConfigSharedPtr config_;                      ///< the last good configuration
  std::optional<api::ConfigurationStateStatus> state_;  ///< desired ConfigurationState status
  std::atomic<bool> initial_done_{false};
  k8s::WriteOverlay<ServiceWritten> service_writes_;
  k8s::WriteOverlay<api::IPAddressPoolStatus> pool_writes_;
  k8s::StateWriter state_writer_;  ///< the ConfigurationState `controller`
  UnannouncedTracker unannounced_;
  config::ConfigSharedPtr announce_config_;  ///< every agent's view merged (config::combine)
};

}  // namespace ingot::controller
