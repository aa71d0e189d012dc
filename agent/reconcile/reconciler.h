// SPDX-License-Identifier: Apache-2.0
// The agent's reconciler: from the cached objects to this node's announcements, handed to the
// backends (agent/backends/backend.h: FRRConfiguration metallb-<node> or the node's frr.conf), plus
// the ServiceBGPStatus objects, the nodeAssigned Events and the ConfigurationState speaker-<node>.
// It computes exactly what `ingotctl render --node N` computes (config::parse → decideBgp per
// Service → collectAnnouncements → frrgen::build) and applies the difference.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "agent/backends/backend.h"
#include "agent/backends/l2_hold_down.h"
#include "agent/core/announce.h"
#include "agent/core/election.h"
#include "agent/core/election_engine.h"
#include "agent/daemon/live_nodes.h"
#include "agent/daemon/metrics.h"
#include "agent/reconcile/bgp_status_writer.h"
#include "agent/reconcile/drain_tracker.h"
#include "agent/reconcile/service_key.h"
#include "agent/reconcile/writes.h"
#include "api/types.h"
#include "common/util/log.h"
#include "config/config.h"
#include "kube/api_client.h"
#include "kube/clock.h"
#include "kube/controller.h"
#include "kube/events.h"
#include "kube/reconcile_io.h"
#include "kube/state_writer.h"
#include "kube/workqueue.h"

namespace ingot::agent {

namespace keys {
/// kServicePrefix + "namespace/name" re-decides one Service (a change of the Service, of one of
/// its EndpointSlices or of its ServiceBGPStatus); config, Node and membership changes still
/// re-decide every Service (kConfig, kSync, kMembers).
inline constexpr std::string_view kServicePrefix = "service:";
/// kHandOff hands the backends the decisions after Services were decided again (once for a
/// burst of Service keys, not once per Service), then queues the status writes behind their keys.
inline constexpr std::string_view kHandOff = "handoff";
/// service returns the work-queue key of the Service "namespace/name".
inline std::string service(std::string_view key) {
  return std::string(kServicePrefix) + std::string(key);
}
}  // namespace keys

/// sliceService is the EndpointSlice index of the agent's cache: the "namespace/name" of the
/// Service a slice belongs to (label kubernetes.io/service-name; "" without it).
std::string sliceService(const api::EndpointSlice& slice);

/// statusService is the ServiceBGPStatus index of the agent's cache: the "namespace/name" of the
/// Service the object reports on (its metallb.io/service-* labels; "" without them).
std::string statusService(const api::ServiceBGPStatus& status);

/// ReconcilerOptions configure the reconciler.
struct ReconcilerOptions {
  std::string node;                           ///< --node-name
  std::string namespace_ = "metallb-system";  ///< --namespace
  /// dialect is how the configuration is validated: for frr-k8s or for a local FRR.
  config::Backend dialect = config::Backend::FrrK8s;
  AnnounceOptions announce;    ///< --lb-class, --ignore-exclude-lb
  frrgen::BuildOptions build;  ///< --frrk8s-namespace, --frrk8s-secret-passthrough, namespace
  k8s::Duration debounce = std::chrono::milliseconds(200);       ///< --bgp-debounce-timeout
  k8s::Duration frr_verify_interval = std::chrono::seconds(30);  ///< --frr-verify-interval
  bool frr_full_reload = false;                                  ///< --frr-apply reload
  std::string hostname;       ///< frr mode: the UTS hostname for frr.conf
  api::OwnerReference owner;  ///< owner of ConfigurationState / ServiceBGPStatus (the pod)
  k8s::Duration overlay_ttl = std::chrono::seconds(60);
  /// status_writes_per_pass bounds the ServiceBGPStatus writes of one pass of the status key; the
  /// rest follow in the next pass, queued behind a pending BGP apply, so a burst of new Services
  /// does not hold back the FRR apply (which is what moves traffic) for rate-limited writes.
  size_t status_writes_per_pass = 32;
  /// live_nodes names the nodes with a live agent (memberlist); null when memberlist is off, and
  /// then every Node object counts as live. Must outlive the reconciler.
  const LiveNodes* live_nodes = nullptr;
  /// wall_clock is the clock of the Layer 2 hold-down (members advertise when they joined in
  /// Unix ms); null means the system clock.
  WallClockMs wall_clock;
};

/// backendOptions returns the part of options the backends need.
BackendOptions backendOptions(const ReconcilerOptions& options);

/// Reconciler holds the agent's domain state and reconciles one key at a time: it decides, hands
/// the backends their part, and leaves the status writes to its writers (BgpStatusWriter for
/// ServiceBGPStatus, k8s::StateWriter for ConfigurationState). Not thread-safe
/// except ready(): call it from one worker thread. The EndpointSlice and ServiceBGPStatus caches
/// must be indexed by sliceService and statusService.
///
/// Rules: nothing is announced or written for BGP before a configuration parsed without error;
/// a configuration that fails to parse is reported (ConfigurationState Invalid, metric
/// metallb_k8s_client_config_stale_bool 1) and the last good one stays in use. BGP changes go
/// out through a debounce (a backend's key is added after `debounce`; adds within it collapse).
/// The reconciler decides per Service and hands every backend its part (Backend::update); on a
/// backend's key it runs Backend::apply. A Service's own key decides that Service again and hands
/// the backends their part only when its announcements changed; the result is the same as a full
/// pass over the same caches.
class Reconciler : private k8s::ReconcilerIo {
 public:
  /// backends carry the decisions out; the reconciler owns them.
  Reconciler(Caches caches,
             const k8s::ReconcileIo& io,
             Metrics& metrics,
             ReconcilerOptions options,
             Backends backends);

  /// noteSigterm records that the agent is stopping (the sigterm drain trigger); any thread.
  void noteSigterm() { drain_.noteSigterm(); }
  /// drainPhase is this node's drain phase after the last pass; any thread.
  DrainPhase drainPhase() const { return drain_.exportedPhase(); }

  /// reconcile handles any key.
  ReconcileResult reconcile(const std::string& key);

  /// ready is true once a configuration was loaded and the first sync succeeded. Thread-safe.
  bool ready() const { return ready_.load(); }

  /// startBackends starts every backend (Backend::start); call it once, before the worker starts.
  void startBackends();

  /// stopBackends stops every backend (Backend::stop); call it once the worker stopped.
  void stopBackends();

  /// backends returns the backends, in registration order.
  const Backends& backends() const { return backends_; }

  /// l2Decisions counts the per-Service Layer 2 decisions made so far (a full pass makes one per
  /// Service, a membership change one per Service whose winner it changed).
  uint64_t l2Decisions() const { return l2_decisions_made_; }

 private:
  using ServicePtr = k8s::Store<api::Service>::Ptr;
  struct Decided {
    ServicePtr service;  ///< as decided (shared with the cache, never copied)
    BgpDecision decision;
  };
  using KeySet = std::set<std::string, ServiceKeyLess>;

  ReconcileResult reconcileConfig();
  /// useConfig makes the parsed configuration (null: none parsed yet) the one the decisions run
  /// on, without BGP while bgpUnavailable() says so, and runs a full pass when that changed
  /// anything; it reports BGPPeers that cannot be served (reportBgp).
  ReconcileResult useConfig(const config::ConfigSharedPtr& parsed);
  /// bgpUnavailable returns why BGP cannot take effect (the first backend that says so).
  std::optional<std::string> bgpUnavailable() const;
  /// reportBgp logs, records (Warning BGPNotAvailable on the Node) and queues for the
  /// ConfigurationState the BGPPeers of this node that BGP's absence leaves unserved, once per
  /// change of that report.
  void reportBgp(const std::optional<std::string>& unavailable);
  ReconcileResult sync();
  /// syncService decides the Service key ("namespace/name") again, as part of the last full pass.
  ReconcileResult syncService(const std::string& key);
  /// decideLayer2For re-elects one Service (null = deleted); true when what this node answers
  /// changed.
  bool decideLayer2For(const std::string& key, const ServicePtr& svc);
  /// handBackends gives every backend the decisions of every Service (Backend::update).
  void handBackends();
  /// handChanges gives every backend the BGP announcements of the Services in bgp_changed_
  /// alone (Desired::bgp_changes) and the Layer 2 part.
  void handChanges();
  /// hand runs Backend::update of every backend on desired.
  void hand(const Desired& desired);
  /// allAnnouncements returns the announcements of every announced Service, in key order.
  std::vector<Announcement> allAnnouncements() const;
  /// reportAnnouncement logs and records (nodeAssigned) a change of one Service's BGP
  /// announcement (d null = the Service was deleted).
  void reportAnnouncement(const std::string& key, const Decided* d);
  /// setAnnouncedGauge sets metallb_speaker_announced from every decision (after a full pass).
  void setAnnouncedGauge();
  /// setAnnouncedGaugeFor sets the samples of the Service key alone (after its own pass).
  void setAnnouncedGaugeFor(const std::string& key);
  ReconcileResult applyBackend(Backend& backend);
  /// noteRefusedPeers takes the backends' refused BGPPeers (Backend::refusedPeers) after an
  /// apply; when they changed, the announcement reports and every ServiceBGPStatus follow.
  void noteRefusedPeers();
  /// noteAccepted takes the BGP backend's accepted announcements (Backend::acceptedBgp) after
  /// a hand-off or an apply; for every Service whose part changed, the announcement report, the
  /// gauge and the ServiceBGPStatus follow.
  void noteAccepted();
  /// announcedHere tells whether the decision for the Service key reaches a BGP session FRR
  /// holds: announced, FRR took the announcement, and not only to BGPPeers FRR refused.
  bool announcedHere(const std::string& key, const BgpDecision& d) const;
  /// holds tells whether FRR announces the Service key to peer: it took the Service's
  /// announcement to peer (when the backend knows) and did not refuse peer's session.
  bool holds(const std::string& key, const std::string& peer) const;
  /// acceptedFor returns the accepted announcements of the Service key (accepted_ must be set).
  const std::vector<Announcement>& acceptedFor(const std::string& key) const;
  /// setWeightGaugeFor sets ingot_bgp_service_weight for key from its last decision.
  void setWeightGaugeFor(const std::string& key);
  StateInputs stateInputs() const;
  /// writeState hands the ConfigurationState of stateInputs() to state_writer_.
  ReconcileResult writeState();

  /// slicesOf returns the EndpointSlices of the Service key (from the index).
  std::vector<api::EndpointSlice> slicesOf(const std::string& key) const;
  /// decideLayer2 runs the Layer 2 election for every Service in a pool with an
  /// L2Advertisement over the live agents (l2MembershipNow), logs each Service's decision when it
  /// changes (noteLayer2) and keeps the Services this node wins in l2_won_ (the Layer 2
  /// backend's part of Desired).
  void decideLayer2(const std::vector<ServicePtr>& services);
  /// reconcileMembers re-elects after a membership change: only the Services whose winner the
  /// change moves are decided again (the L2Elector finds them without rehashing the others), and
  /// the backends get the new Layer 2 part when what this node wins changed (handLayer2).
  ReconcileResult reconcileMembers();
  /// l2MembershipNow is the election's eligible set: the live agents (every Node object when
  /// memberlist is off), without excluded or network-unavailable nodes.
  L2Membership l2MembershipNow() const;
  /// stepDrain steps this node's drain state (agent/core/drain.h) when drain-awareness is on:
  /// queues a pass for the end of the delay or hand-off, the ConfigurationState on a change, and
  /// records an Event on the Node when the announcements move. Called at each full pass.
  void stepDrain();
  /// decideBgpHere is decideBgp on this node with the drain phase applied (drainBgpDecision).
  BgpDecision decideBgpHere(const api::Service& service, const api::Node* node) const;
  /// l2Desired is the Layer 2 part handed to the backends: what this node wins, plus, during
  /// the hand-off after a drain started, what it won before, marked handing_off (it keeps
  /// answering until the new owners have announced).
  std::vector<L2Announcement> l2Desired() const;
  /// releaseL2HandOff drops from the hand-off the Services whose new owner reported them
  /// kL2HandOffSettleMs ago, or all once the bound passed (l2HandOffEnd); true when it dropped
  /// any. Called after each
  /// election pass and when a ServiceL2Status changes (the Layer 2 backend's key).
  bool releaseL2HandOff();
  /// l2StatusNodes returns, for the Services in the hand-off, the nodes whose ServiceL2Status
  /// in the MetalLB namespace names them.
  std::map<std::string, std::vector<std::string>> l2StatusNodes() const;
  /// applyHoldDown gives the elector the members held down now (agent/core/hold_down.h), queues
  /// the members key for when a hold-down ends, and returns the Services whose winner moved.
  std::vector<std::string> applyHoldDown();
  /// noteLayer2 records a Service's decision and logs it when it changed.
  void noteLayer2(const std::string& key, const L2Decision& decision);
  /// noteWon updates l2_won_ for one re-decided Service; true when it changed.
  bool noteWon(const std::string& key, const L2Decision& decision);
  /// handLayer2 gives every backend the current Layer 2 part (Backend::updateLayer2).
  void handLayer2();
  void reportAnnouncements();
  /// syncBgpStatuses runs a pass of status_writer_, once the backends have their part.
  ReconcileResult syncBgpStatuses();
  /// wantedBgpStatus is the status the Service key needs (nullopt: no object).
  std::optional<api::ServiceBGPStatusStatus> wantedBgpStatus(const std::string& key) const;
  /// bgpStatusDecisions is what status_writer_ asks this reconciler.
  BgpStatusDecisions bgpStatusDecisions();
  std::string now() const;

  Caches caches_;
  Metrics& metrics_;
  ReconcilerOptions options_;
  Backends backends_;

  config::ConfigSharedPtr config_;      ///< what the decisions run on: parsed_, without BGP if off
  config::ConfigSharedPtr parsed_;      ///< the last good configuration
  std::optional<std::string> bgp_off_;  ///< why config_ has no BGP (nullopt: it has)
  std::optional<std::string> bgp_report_;  ///< the BGPPeers reported as not served
  std::vector<config::ConfigError> config_errors_;
  bool config_parsed_ = false;
  std::atomic<bool> ready_{false};
  std::map<std::string, std::string> announced_;  ///< service key → announcement signature
  /// refused_peers_: BGPPeers FRR holds no session for (it refused theirs); no report claims
  /// announcing to them.
  std::set<std::string> refused_peers_;
  /// accepted_: what the BGP backend's daemon has taken (null: the decisions stand for it).
  AcceptedBgpPtr accepted_;
  L2Elector l2_elector_;       ///< the incremental election; cleared when the Config is replaced
  HoldDownTracker hold_down_;  ///< who is held down (memberlist metadata)
  DrainTracker drain_;         ///< this node's drain phase
  WallClockMs wall_clock_;     ///< options_.wall_clock or the system clock
  /// l2_handoff_: the Layer 2 announcements this node won when its drain started, answered
  /// until each new owner reports it (its ServiceL2Status), at the latest until
  /// l2_handoff_until_ms_ (Unix ms), so the new owners' gratuitous ARP/NA goes out first.
  std::map<std::string, L2Announcement, ServiceKeyLess> l2_handoff_;
  int64_t l2_handoff_until_ms_ = 0;
  /// l2_handoff_reported_: when this node first saw each new owner's report (Unix ms).
  std::map<std::string, std::optional<int64_t>> l2_handoff_reported_;
  std::map<std::string, L2Decision> l2_decisions_;  ///< service key → last L2 decision
  std::map<std::string, L2Announcement, ServiceKeyLess> l2_won_;  ///< service key → answered
  std::map<std::string, std::string> l2_logged_;  ///< service key → last logged L2 decision
  uint64_t l2_decisions_made_ = 0;
  bool l2_deferred_ = false;  ///< the last full pass waited for the memberlist join
  std::map<std::string, Decided, ServiceKeyLess> decided_;  ///< service key → last decision
  bool hand_off_ = false;          ///< kHandOff is queued: the backends lag decided_
  KeySet bgp_changed_;             ///< Services whose BGP announcements the backends lag
  BgpStatusWriter status_writer_;  ///< this node's ServiceBGPStatus objects
  k8s::StateWriter state_writer_;  ///< the ConfigurationState speaker-<node>
};

}  // namespace ingot::agent
