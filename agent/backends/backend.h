// SPDX-License-Identifier: Apache-2.0
// The agent's protocol seam, like MetalLB's per-protocol controllers: the reconciler decides per
// Service what this node announces, then hands every Backend its part and, when the backend says
// its part changed, runs the backend's work-queue key, on which the backend applies it. Backends:
// FrrK8sBackend (FRRConfiguration metallb-<node>, rendered by frr-k8s), LocalFrrBackend
// (the node's FRR, kept on the desired model incrementally) or NoBgpBackend (Layer 2 only) for
// BGP, and Layer2Backend
// (agent/backends/backend_l2.h: the ARP/NDP responder) next to it; the daemon registers them in
// agent/daemon/main.cpp.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "agent/core/announcement.h"
#include "agent/daemon/compact_cache.h"
#include "agent/daemon/live_nodes.h"
#include "agent/daemon/metrics.h"
#include "api/frrk8s.h"
#include "api/types.h"
#include "common/net/ip.h"
#include "common/util/log.h"
#include "config/config.h"
#include "frr/apply_health.h"
#include "frr/cooldown.h"
#include "frr/engine.h"
#include "frr/frr_driver.h"
#include "frr/incremental.h"
#include "frrgen/build.h"
#include "frrgen/incremental.h"
#include "kube/api_client.h"
#include "kube/clock.h"
#include "kube/controller.h"
#include "kube/events.h"
#include "kube/store.h"
#include "kube/workqueue.h"

namespace ingot::agent {

using k8s::EventSink;
using k8s::ReconcileResult;
using k8s::RecorderSink;

/// Caches are the informer stores the agent reads. MetalLB kinds, Secrets, ServiceBGPStatus
/// (label metallb.io/node=<node>) and the ConfigurationState are those of the MetalLB namespace;
/// the FRRConfiguration store holds only metallb-<node> of the frr-k8s namespace.
struct Caches {
  const k8s::Store<api::Service>& services;
  CacheView<api::EndpointSlice> endpoint_slices;  ///< packed in the daemon (compact_cache.h)
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
  CacheView<api::ServiceBGPStatus> bgp_statuses;  ///< packed in the daemon
  const k8s::Store<api::ConfigurationState>& states;
  /// every node's ServiceL2Status of the MetalLB namespace: the Layer 2 winner of a Service
  /// deletes the other nodes' objects for it, as MetalLB does.
  const k8s::Store<api::ServiceL2Status>& l2_statuses;
};

/// Work-queue keys: all singletons.
namespace keys {
inline constexpr std::string_view kConfig = "config";  ///< re-parse the configuration, then sync
inline constexpr std::string_view kSync = "sync";      ///< recompute announcements and statuses
inline constexpr std::string_view kBgp = "bgp";        ///< the BGP backend applies its part
inline constexpr std::string_view kLayer2 = "layer2";  ///< the Layer 2 backend applies its part
inline constexpr std::string_view kState = "state";    ///< write ConfigurationState
/// kRecheck asks every backend to look at the world again (Backend::recheck): the informer of
/// a resource a backend writes found it not served.
inline constexpr std::string_view kRecheck = "recheck";
/// kStatus writes the ServiceBGPStatus objects of the last sync. Its own key, queued behind the
/// backends' keys, so that the API writes never hold back an apply.
inline constexpr std::string_view kStatus = "status";
}  // namespace keys

/// BackendOptions are what the backends need to know about this node.
struct BackendOptions {
  std::string node;            ///< --node-name
  frrgen::BuildOptions build;  ///< --frrk8s-namespace, --frrk8s-secret-passthrough, namespace
  k8s::Duration debounce = std::chrono::milliseconds(200);  ///< --bgp-debounce-timeout
  std::string hostname;                                     ///< frr.conf's hostname
  std::string namespace_ = "metallb-system";                ///< --namespace: status objects
  api::OwnerReference owner;  ///< owner of the status objects (the pod)
  /// frr mode: how often FRR's running configuration is read back to find drift (0 = never).
  k8s::Duration frr_verify_interval = std::chrono::seconds(30);  ///< --frr-verify-interval
  /// frr mode: a delta is read back once no change came for this long (and the interval above is
  /// not 0), so that the read-back never holds back the next change.
  k8s::Duration frr_verify_quiet = std::chrono::seconds(1);
  /// frr mode: every change through frr-reload.py with the per-prefix policy shape, as before the
  /// incremental path (--frr-apply reload; for comparisons).
  bool frr_full_reload = false;
  /// frr-k8s mode: while the API server does not serve FRRConfiguration (frr-k8s is not
  /// installed), how often FrrK8sBackend asks again.
  k8s::Duration frrk8s_probe_interval = std::chrono::seconds(10);
  /// live_nodes is the memberlist view (null when memberlist is off): the Layer 2 backend reads
  /// the members' MACs from their metadata, so that their answers are no address conflicts.
  const LiveNodes* live_nodes = nullptr;
};

/// BackendContext is what a backend may use; every reference outlives the backend.
struct BackendContext {
  Caches caches;
  k8s::ApiClient& api;
  EventSink& events;
  k8s::WorkQueue& queue;
  Metrics& metrics;
  log::Logger& log;
  BackendOptions options;
  k8s::Clock& clock;
};

/// L2Announcement is one Service whose Layer 2 election this node wins.
struct L2Announcement {
  std::string service_namespace;
  std::string service_name;
  std::vector<net::IpAddress> ips;  ///< the Service's ingress IPs, in status order
  /// interfaces is the union of the `interfaces` lists of the L2Advertisements that match the
  /// Service and select this node; nullopt when one of them has none (every usable interface).
  std::optional<std::set<std::string>> interfaces;
  /// handing_off: this node no longer wins the Service (it drains) and answers only until the
  /// new owner has announced; it claims nothing: no ServiceL2Status is written, and its own is
  /// left for the new owner to replace (deleting it first would make the new owner probe).
  bool handing_off = false;
  /// key returns "namespace/name".
  std::string key() const { return service_namespace + "/" + service_name; }
  friend bool operator==(const L2Announcement&, const L2Announcement&) = default;
};

/// Desired is what this node announces after one sync: the configuration it was decided with and
/// each protocol's part of the per-Service decisions. A full pass hands over every BGP
/// announcement (bgp); a hand-off after Services' own keys only the Services whose BGP
/// announcements changed since the last hand-off (bgp_changes), with bgp_all for a backend that
/// cannot take them alone (after a failed build, or when most of it changed).
struct Desired {
  config::ConfigSharedPtr config;
  /// bgp: every announced BGP prefix with its peers, grouped by Service in key order; empty when
  /// bgp_changes is set.
  std::vector<Announcement> bgp;
  std::vector<L2Announcement> l2;  ///< the Services this node answers ARP/NDP for, by key
  /// bgp_changes: set on a hand-off of changes alone, each Service once, with its announcements
  /// now (none: withdrawn); null on a full hand-off.
  const std::vector<config::ServiceAnnouncements>* bgp_changes = nullptr;
  /// bgp_all returns what bgp holds on a full hand-off (set with bgp_changes).
  std::function<std::vector<Announcement>()> bgp_all = nullptr;

  /// allBgp returns every announced BGP prefix, whichever kind of hand-off this is.
  std::vector<Announcement> allBgp() const { return bgp_changes != nullptr ? bgp_all() : bgp; }
};

/// AcceptedBgp is what the routing daemon has taken: the BGP announcements of its last successful
/// apply, by Service key ("namespace/name").
using AcceptedBgp = std::map<std::string, std::vector<Announcement>>;
/// AcceptedBgpPtr is shared and never changed once handed out: a new apply makes a new map.
using AcceptedBgpPtr = std::shared_ptr<const AcceptedBgp>;

/// Backend carries one protocol's part of the decisions to where it takes effect. Backends are
/// called from the reconcile worker only.
class Backend {
 public:
  virtual ~Backend() = default;

  /// key returns the work-queue key apply() runs under (unique among the backends).
  virtual std::string_view key() const = 0;

  /// reconcileKind returns the label apply() is counted under.
  virtual ReconcileKind reconcileKind() const = 0;

  /// update takes the desired state of one sync. It returns the delay after which apply() should
  /// run (its part changed) or nullopt (nothing to do).
  virtual std::optional<k8s::Duration> update(const Desired& desired) = 0;

  /// updateLayer2 takes a new Layer 2 part after a membership change (desired.bgp is empty and
  /// must be ignored). Backends that do not answer Layer 2 ignore it.
  virtual std::optional<k8s::Duration> updateLayer2(const Desired& desired) {
    (void)desired;
    return std::nullopt;
  }

  /// apply converges the world to the last desired state.
  virtual ReconcileResult apply() = 0;

  /// stateError returns what the ConfigurationState reports for this backend: nullopt when it
  /// reports nothing (yet), "" when the last apply succeeded, else the error.
  virtual std::optional<std::string> stateError() const { return std::nullopt; }

  /// statePending tells that stateError() will change at the next apply() with nothing else
  /// changing (a Layer 2 responder still to start): the ConfigurationState waits for that apply
  /// instead of being written now and again after it.
  virtual bool statePending() const { return false; }

  /// stateCondition returns the ConfigurationState condition type stateError() is reported
  /// under.
  virtual std::string_view stateCondition() const { return "frrReloadValid"; }

  /// start is called once before the first reconcile, on the thread that starts the agent (no
  /// worker runs yet): a backend may look at the cluster here.
  virtual void start() {}

  /// bgpUnavailable says why BGP announcements cannot take effect through this backend
  /// (nullopt: they can, or it is no BGP backend). While a backend says so, the reconciler
  /// decides as if no BGPPeer and no BGPAdvertisement existed (Layer 2 is not affected) and
  /// reports the BGPPeers of this node as not served. A backend whose answer changes queues
  /// keys::kConfig.
  virtual std::optional<std::string> bgpUnavailable() const { return std::nullopt; }

  /// recheck is called (from the worker) when what the backend writes may have gone away under
  /// it, e.g. its resource's informer got a 404.
  virtual void recheck() {}

  /// stateErrorIsConfig tells that stateError() is a configuration FRR refused (reported as a
  /// ConfigurationError), not a failure to reach FRR.
  virtual bool stateErrorIsConfig() const { return false; }

  /// refusedPeers returns the BGPPeers (by name) for which FRR holds no session because it
  /// refused theirs: nothing is announced to them, whatever the decisions say.
  virtual const std::set<std::string>& refusedPeers() const {
    static const std::set<std::string> kNone;
    return kNone;
  }

  /// acceptedBgp returns the BGP announcements the routing daemon has actually taken, when this
  /// backend knows them (null: it does not, and the decisions stand for what is announced). It
  /// may change in update() and apply(); no report (ServiceBGPStatus, nodeAssigned,
  /// metallb_speaker_announced) claims an announcement outside it.
  virtual AcceptedBgpPtr acceptedBgp() const { return nullptr; }

  /// stop is called once at shutdown, after the last apply(): the backend stops acting on the
  /// world (what it wrote through the API stays).
  virtual void stop() {}
};

using Backends = std::vector<std::unique_ptr<Backend>>;

/// BackendFactory builds a daemon's backends once the caches exist.
using BackendFactory = std::function<Backends(const BackendContext&)>;

/// BgpBackend is the BGP half both FRR backends share: from the announcements it builds this
/// node's FRRConfiguration and asks for an apply whenever that or the configuration changed.
/// Applies are paced by a cool-down (frr::Cooldown): after each apply, three times what it cost
/// (the builds of the changes it carried, plus the apply itself), at least 20 ms and at most the
/// debounce, counted from the apply's end. A change after the cool-down is applied at once;
/// changes within it are coalesced into one apply at its end. A build error is counted and
/// logged, and the last desired state stays.
class BgpBackend : public Backend {
 public:
  explicit BgpBackend(const BackendContext& context)
      : ctx_(context), cooldown_(frr::CooldownOptions{context.options.debounce}) {}

  std::string_view key() const override { return keys::kBgp; }
  ReconcileKind reconcileKind() const override { return ReconcileKind::Bgp; }
  std::optional<k8s::Duration> update(const Desired& desired) override;

  /// desired returns the FRRConfiguration of the last update (nullopt before).
  const std::optional<api::FRRConfiguration>& desired() const { return desired_; }

 protected:
  BackendContext ctx_;
  /// build_ keeps the FRRConfiguration across updates, patching it for the Services whose
  /// announcements changed (frrgen/incremental.h) rather than rebuilding it whole.
  frrgen::IncrementalBuild build_;
  const std::optional<api::FRRConfiguration>& desired_ = build_.result();
  config::ConfigSharedPtr desired_config_;  ///< the configuration desired_ was built from
  /// desired_announcements_ holds the announcements of the updates by Service when
  /// keep_announcements_ is set (the local FRR backend reports what FRR took from them);
  /// FrrK8sBackend keeps none. desired_version_ counts its changes.
  AcceptedBgp desired_announcements_;
  uint64_t desired_version_ = 0;
  bool keep_announcements_ = false;

  /// deferred re-queues the key for the end of the cool-down and returns true when an apply
  /// of a change was handed out before it (the queue keeps the earliest of several delays, e.g.
  /// a read-back timer's).
  bool deferred();
  /// noteApplied starts the cool-down of an apply that began at start.
  void noteApplied(k8s::TimePoint start);

 private:
  /// build brings build_ to desired: the changes alone when it can patch them, else every
  /// announcement; when keep_announcements_, desired_announcements_ follows.
  Result<bool> build(const Desired& desired);
  /// noteDesired makes announcements the desired ones of service (none: it has none).
  void noteDesired(const std::string& service, const std::vector<Announcement>& announcements);

  frr::Cooldown cooldown_;
  /// build_cost_: the builds of the changes since the last apply (part of its cost).
  k8s::Duration build_cost_{};
  bool changed_ = false;  ///< update took a change the apply has not tried yet
};

/// NoBgpBackend takes the BGP backend's place when the agent runs Layer 2 only (--bgp-mode=none,
/// or MetalLB's native): Ingot has no BGP speaker of its own, so BGP is unavailable for `why`.
class NoBgpBackend final : public Backend {
 public:
  explicit NoBgpBackend(std::string why) : why_(std::move(why)) {}
  std::string_view key() const override { return keys::kBgp; }
  ReconcileKind reconcileKind() const override { return ReconcileKind::Bgp; }
  std::optional<k8s::Duration> update(const Desired&) override { return std::nullopt; }
  ReconcileResult apply() override { return ReconcileResult::done(); }
  std::optional<std::string> bgpUnavailable() const override { return why_; }

 private:
  std::string why_;
};

/// FrrK8sBackend writes FRRConfiguration metallb-<node> in the frr-k8s namespace, only when its
/// spec differs from the live object's as stored, server defaults aside (the cache may lag our own
/// write, so it reads the live object first), and deletes it when the node has no BGP session and
/// no BFD profile.
///
/// frr-k8s may be missing (a Layer 2 only cluster) or go away and come back: at start, and again
/// when a write finds the resource gone, it lists metallb-<node> to learn whether the API server
/// serves FRRConfiguration at all (a 404 means it does not). While it does not, BGP is
/// unavailable (bgpUnavailable), nothing is written, and it asks again every
/// frrk8s_probe_interval; once it does, BGP is on again without a restart.
class FrrK8sBackend final : public BgpBackend {
 public:
  using BgpBackend::BgpBackend;
  ReconcileResult apply() override;
  void start() override { recheck(); }
  void recheck() override;
  std::optional<std::string> bgpUnavailable() const override { return unserved_; }

 private:
  /// probe asks the API server whether it serves FRRConfiguration (only a 404 says no; other
  /// errors leave the answer as it was) and returns true when it does. A change is logged and
  /// queues keys::kConfig, so that every Service is decided again with or without BGP.
  bool probe();
  /// unserved_ is why FRRConfiguration cannot be written (nullopt: served, or not known to be
  /// missing).
  std::optional<std::string> unserved_;

  /// write brings the live FRRConfiguration to the desired one (or deletes it).
  ReconcileResult write();
  /// remove deletes metallb-<node> when the cache holds it: the desired spec has no BGP session
  /// and no BFD profile, and MetalLB writes no FRRConfiguration then.
  ReconcileResult remove();
};

/// LocalFrrBackend keeps the node's FRR on this node's part of the configuration: it builds the
/// FRRConfiguration, selects and merges it as frr-k8s would, and hands the model to
/// frr::FrrEngine (frr/engine.h), which converges FRR incrementally (compact policy shape,
/// structural delta through vtysh, read back later; a full reload with frr-reload.py at start-up,
/// after an FRR restart, a vtysh error or drift). It reads FRR back frr_verify_quiet after the last
/// delta and every frr_verify_interval to find drift (reported: Warning Event FRRConfigDrift on the
/// Node and ingot_agent_frr_drift_total, then corrected). A failed apply is reported with its
/// reason (frr::FailureReason: log, Event FRRReloadFailed on the Node, ConfigurationState
/// frrReloadValid False with the message, ingot_agent_frr_apply_failures_total{reason}) and retried
/// after a growing delay (frr::retryDelay), never given up; FRR keeps the last configuration that
/// applied. ingot_agent_frr_last_success_timestamp_seconds says when FRR last took it. When FRR
/// refuses a BGP session, the engine leaves it out and applies the rest; the backend then reports
/// the BGPPeer (ConfigurationState frrReloadValid False/ConfigurationError, Warning Event
/// FRRPeerRejected) and refusedPeers() names it, so that no status claims announcing to it.
/// acceptedBgp() holds the announcements of the last apply FRR took: empty before the first, and
/// unchanged while applies fail (FRR down, vtysh unreachable), so that no status claims a new
/// announcement until FRR has it.
class LocalFrrBackend final : public BgpBackend {
 public:
  /// LocalFrrBackend applies through frr, which must outlive it.
  LocalFrrBackend(const BackendContext& context, frr::FrrPort& frr);
  /// LocalFrrBackend applies through FRR's own tools (vtysh, frr-reload.py) with driver.
  LocalFrrBackend(const BackendContext& context, frr::FrrDriverOptions driver);
  ~LocalFrrBackend() override;

  std::optional<k8s::Duration> update(const Desired& desired) override;
  ReconcileResult apply() override;
  std::optional<std::string> stateError() const override { return error_; }
  bool stateErrorIsConfig() const override { return config_error_; }
  const std::set<std::string>& refusedPeers() const override { return refused_peers_; }
  AcceptedBgpPtr acceptedBgp() const override { return accepted_; }

 private:
  /// accept makes the desired announcements the accepted ones (FRR holds desired_).
  void accept();
  /// noteRejected records the sessions FRR refused in the last apply (by BGPPeer) and reports a
  /// change of them (log, Warning Event FRRPeerRejected on the Node); rejected_report_ then
  /// describes them ("" when none) and is returned.
  std::string noteRejected(const std::vector<frr::RejectedSession>& rejected);
  /// addSessionMetrics exports FRR's BGP and BFD sessions on /metrics (MetalLB's names).
  void addSessionMetrics(frr::FrrPort& frr);
  ReconcileResult applyDesired();
  ReconcileResult verifyNow();
  /// failed reports a failed apply or read-back and retries it after the engine's delay.
  ReconcileResult failed(const frr::Outcome& out);
  void applied(const frr::Outcome& out);
  k8s::ObjectReference nodeRef() const;

  std::unique_ptr<frr::FrrPort> owned_;
  frr::FrrEngine engine_;
  int collector_ = -1;  ///< the session metrics' collector, -1 = none
  int health_collector_ = -1;
  bool dirty_ = true;  ///< desired_ changed since the last successful apply
  std::optional<std::string> error_;
  bool config_error_ = false;  ///< error_ describes sessions FRR refused
  std::set<std::string> refused_peers_;
  std::string rejected_report_;  ///< the last reported refusals ("" = none)
  AcceptedBgpPtr accepted_ = std::make_shared<const AcceptedBgp>();
  /// accepted_version_: the desired_version_ accepted_ was copied from.
  uint64_t accepted_version_ = 0;
};

}  // namespace ingot::agent
