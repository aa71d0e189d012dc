// SPDX-License-Identifier: Apache-2.0
// The agent's reconciler: from the cached objects to this node's BGP announcements, the
// FRRConfiguration metallb-<node> (frr-k8s mode) or the node's frr.conf (frr mode), the
// ServiceBGPStatus objects, the nodeAssigned Events and the ConfigurationState speaker-<node>.
// It computes exactly what `ingotctl render --node N` computes (config::parse → decideBgp per
// Service → collectAnnouncements → frrgen::build) and applies the difference.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "agent/core/announce.h"
#include "agent/flags.h"
#include "agent/frr_apply.h"
#include "agent/metrics.h"
#include "api/frrk8s.h"
#include "api/types.h"
#include "common/util/log.h"
#include "config/config.h"
#include "frrgen/build.h"
#include "kube/api_client.h"
#include "kube/clock.h"
#include "kube/events.h"
#include "kube/store.h"
#include "kube/workqueue.h"

namespace ingot::agent {

using k8s::EventSink;
using k8s::RecorderSink;

/// Caches are the informer stores the reconciler reads. MetalLB kinds, Secrets, ServiceBGPStatus
/// (label metallb.io/node=<node>) and the ConfigurationState are those of the MetalLB namespace;
/// the FRRConfiguration store holds only metallb-<node> of the frr-k8s namespace.
struct Caches {
  const k8s::Store<api::Service>& services;
  const k8s::Store<api::EndpointSlice>& endpoint_slices;
  const k8s::Store<api::Node>& nodes;
  const k8s::Store<api::Namespace>& namespaces;
  const k8s::Store<api::IPAddressPool>& pools;
  const k8s::Store<api::BGPPeer>& peers;
  const k8s::Store<api::BGPAdvertisement>& bgp_advertisements;
  const k8s::Store<api::L2Advertisement>& l2_advertisements;
  const k8s::Store<api::BFDProfile>& bfd_profiles;
  const k8s::Store<api::Community>& communities;
  const k8s::Store<api::Secret>& secrets;
  const k8s::Store<api::FRRConfiguration>& frr_configurations;
  const k8s::Store<api::ServiceBGPStatus>& bgp_statuses;
  const k8s::Store<api::ConfigurationState>& states;
};

/// Work-queue keys: all singletons.
namespace keys {
inline constexpr std::string_view kConfig = "config";  ///< re-parse the configuration, then sync
inline constexpr std::string_view kSync = "sync";      ///< recompute announcements and statuses
inline constexpr std::string_view kBgp = "bgp";        ///< write FRRConfiguration / reload FRR
inline constexpr std::string_view kState = "state";    ///< write ConfigurationState
}  // namespace keys

/// ReconcileResult says what the driver does with a key after a reconcile: nothing, retry with
/// the queue's per-key backoff, or retry after an explicit delay.
struct ReconcileResult {
  enum class Kind { Done, Retry, RetryAfter };
  Kind kind = Kind::Done;
  Error error;
  k8s::Duration delay{0};  ///< for RetryAfter
  static ReconcileResult done() { return {}; }
  static ReconcileResult retry(Error e) { return {Kind::Retry, std::move(e), {}}; }
  static ReconcileResult retryAfter(Error e, k8s::Duration d) {
    return {Kind::RetryAfter, std::move(e), d};
  }
  bool ok() const { return kind == Kind::Done; }
};

/// ReconcilerOptions configure the reconciler.
struct ReconcilerOptions {
  std::string node;                           ///< --node-name
  std::string namespace_ = "metallb-system";  ///< --namespace
  BgpMode mode = BgpMode::FrrK8s;
  AnnounceOptions announce;    ///< --lb-class, --ignore-exclude-lb
  frrgen::BuildOptions build;  ///< --frrk8s-namespace, --frrk8s-secret-passthrough, namespace
  k8s::Duration debounce = std::chrono::milliseconds(200);  ///< --bgp-debounce-timeout
  size_t max_new_prefixes = 200;                            ///< --frr-max-new-prefixes
  std::string hostname;       ///< frr mode: the UTS hostname for frr.conf
  api::OwnerReference owner;  ///< owner of ConfigurationState / ServiceBGPStatus (the pod)
  k8s::Duration overlay_ttl = std::chrono::seconds(60);
  /// status_writes_per_pass bounds the ServiceBGPStatus writes of one sync pass; the rest follow
  /// in the next pass, queued behind a pending BGP write, so a burst of new Services does not hold
  /// back the FRRConfiguration (which is what moves traffic) for minutes of rate-limited writes.
  size_t status_writes_per_pass = 32;
};

/// Reconciler holds the agent's domain state and reconciles one key at a time. Not thread-safe
/// except ready(): call it from one worker thread.
///
/// Rules: nothing is announced or written for BGP before a configuration parsed without error;
/// a configuration that fails to parse is reported (ConfigurationState Invalid, metric
/// metallb_k8s_client_config_stale_bool 1) and the last good one stays in use. BGP changes go
/// out through a debounce (kBgp is added after `debounce`; adds within it collapse). The
/// FRRConfiguration is written only when its spec differs from the live object's as stored (server
/// defaults aside), and deleted when the node has no BGP session and no BFD profile.
class Reconciler {
 public:
  /// frr is the FRR seam for frr mode (may be null in frr-k8s mode); it must outlive this.
  Reconciler(Caches caches,
             k8s::ApiClient& api,
             EventSink& events,
             k8s::WorkQueue& queue,
             Metrics& metrics,
             log::Logger& logger,
             ReconcilerOptions options,
             FrrApply* frr = nullptr,
             k8s::Clock& clock = k8s::steadyClock());

  /// reconcile handles any key.
  ReconcileResult reconcile(const std::string& key);

  /// ready is true once a configuration was loaded and the first sync succeeded. Thread-safe.
  bool ready() const { return ready_.load(); }

  /// desired returns the FRRConfiguration computed by the last sync (nullopt before).
  const std::optional<api::FRRConfiguration>& desired() const { return desired_; }

  /// lastRendered returns the last frr.conf handed to FrrApply (frr mode).
  const std::string& lastRendered() const { return last_rendered_; }

 private:
  /// Pending is a ServiceBGPStatus write the cache may not show yet (status nullopt = deleted).
  struct Pending {
    std::optional<api::ServiceBGPStatusStatus> status;
    std::string rv;
    k8s::TimePoint expires;
  };
  struct Decided {
    const api::Service* service;
    BgpDecision decision;
  };

  ReconcileResult reconcileConfig();
  ReconcileResult sync();
  ReconcileResult writeFrrConfiguration();
  /// deleteFrrConfiguration removes metallb-<node> when the cache holds it (desired is empty).
  ReconcileResult deleteFrrConfiguration();
  ReconcileResult reloadFrr();
  ReconcileResult writeState();
  ReconcileResult ensureState();

  std::vector<Decided> decideAll(const std::vector<api::Service>& services);
  void reportAnnouncements(const std::vector<Decided>& decided);
  ReconcileResult syncBgpStatuses(const std::vector<Decided>& decided);
  std::map<std::string, std::vector<std::pair<std::string, api::ServiceBGPStatusStatus>>>
  currentBgpStatuses();
  Result<void> createBgpStatus(const api::ServiceBGPStatusStatus& status);
  Result<void> patchBgpStatus(const std::string& name, const api::ServiceBGPStatusStatus& status);
  Result<void> removeBgpStatus(const std::string& name);
  Result<std::string> renderFrr(const std::vector<frrgen::Announcement>& announcements);
  void setFrrError(std::optional<std::string> error);
  k8s::ObjectReference nodeRef() const;
  std::string now() const;

  Caches caches_;
  k8s::ApiClient& api_;
  EventSink& events_;
  k8s::WorkQueue& queue_;
  Metrics& metrics_;
  log::Logger& log_;
  ReconcilerOptions options_;
  FrrApply* frr_;
  k8s::Clock& clock_;

  config::ConfigSharedPtr config_;  ///< the last good configuration
  std::vector<config::ConfigError> config_errors_;
  bool config_parsed_ = false;
  std::atomic<bool> ready_{false};
  std::map<std::string, std::string> announced_;  ///< service key → announcement signature
  std::map<std::string, Pending> status_writes_;  ///< ServiceBGPStatus name → pending write
  std::optional<api::FRRConfiguration> desired_;
  config::ConfigSharedPtr desired_config_;  ///< the configuration desired_ was built from
  std::vector<frrgen::Announcement> desired_announcements_;
  // frr mode
  std::set<std::string> applied_prefixes_;
  std::string last_rendered_;
  int reload_failures_ = 0;
  std::optional<std::string> frr_error_;
  // ConfigurationState: the status last written and the resourceVersion it got.
  std::optional<api::ConfigurationStateStatus> state_written_;
  std::string state_written_rv_;
  k8s::TimePoint state_written_expires_;
};

}  // namespace ingot::agent
