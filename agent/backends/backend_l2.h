// SPDX-License-Identifier: Apache-2.0
// Layer2Backend: the Layer 2 part of the agent's decisions carried to the ARP/NDP responder
// (agent/l2), plus what MetalLB's speaker reports about it: the ServiceL2Status objects, the
// nodeAssigned and announceFailed Events and the metallb_speaker_announced{protocol="layer2"} and
// metallb_layer2_* metrics.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/backends/backend.h"
#include "agent/l2/responder.h"
#include "kube/write_overlay.h"

namespace ingot::agent {

/// L2Responder is what Layer2Backend needs of the responder: l2::Responder in the daemon
/// (startL2Responder), a fake in tests.
class L2Responder {
 public:
  virtual ~L2Responder() = default;
  /// announce makes owner one of the owners of ip, on the named interfaces (nullopt: all);
  /// with probe, an address not answered yet is probed for conflicts first.
  virtual void announce(const std::string& owner,
                        const net::IpAddress& ip,
                        const std::optional<std::set<std::string>>& interfaces,
                        bool probe) = 0;
  /// setMemberMacs sets the other members' MACs (their answers are no conflicts).
  virtual void setMemberMacs(std::set<l2::Mac> macs) = 0;
  /// setProbeListener sets what is called when a probed address is found in conflict or free.
  virtual void setProbeListener(std::function<void()> listener) = 0;
  /// withdraw removes owner from the owners of ip.
  virtual void withdraw(const std::string& owner, const net::IpAddress& ip) = 0;
  /// interfaces returns the interfaces the responder may answer on now.
  virtual std::vector<l2::AnnounceInterface> interfaces() const = 0;
  /// stats returns the responder's counters.
  virtual l2::ResponderStats stats() const = 0;
};

/// L2ResponderStarter starts a responder; an error when it cannot (no CAP_NET_RAW, ...).
using L2ResponderStarter = std::function<Result<std::unique_ptr<L2Responder>>()>;

/// startL2Responder returns a starter of the real responder with options (the exclude list is
/// read from exclude_path when it starts; a missing file excludes nothing).
L2ResponderStarter startL2Responder(l2::ResponderOptions options, std::string exclude_path);

/// layer2Macs returns the MACs the responder would answer from (the usable interfaces of this
/// network namespace, minus those the exclude file names), for the memberlist metadata; at
/// most kMaxAdvertisedMacs, so that the metadata stays within memberlist's limit.
std::vector<std::string> layer2Macs(const std::string& exclude_path);
inline constexpr size_t kMaxAdvertisedMacs = 24;

/// conflictFamilies renders the responder's probe state: the addresses in conflict, the
/// conflicts detected and the probes sent.
std::vector<daemon::MetricFamily> conflictFamilies(const l2::ResponderStats& s);

/// Layer2Backend announces the Services this node wins over Layer 2.
///
/// The responder is started the first time a Service is to be announced; when it cannot start
/// the error is logged and reported (ConfigurationState condition layer2ResponderValid False)
/// and the start is retried after a growing delay, while BGP goes on. Per Service and address:
/// a new or changed address is announced before a dropped one is withdrawn, an unchanged one is
/// not touched (no gap); the responder counts owners of an address shared by Services. An
/// address whose L2Advertisements name only interfaces this node does not have is not announced
/// and gets MetalLB's Warning Event announceFailed (once, until it changes). A newly announced
/// Service gets the Event nodeAssigned; its ServiceL2Status (MetalLB's names, labels and fields)
/// is created or patched only when it differs from what is stored, the other nodes' objects for
/// it are deleted, and this node's objects for Services it no longer announces are deleted. A
/// Service handed off by a draining node (L2Announcement::handing_off) is answered but gets no
/// write: the new owner writes its status and deletes this node's.
///
/// Address conflict detection: an address no member answered before (no ServiceL2Status exists
/// for its Service and this agent never answered it) is probed before it is answered; until
/// the probe finds it free it counts as not announced (no status, no nodeAssigned, no
/// metallb_speaker_announced). A conflict gets the Warning Event AddressConflict (once per MAC)
/// and the ingot_agent_layer2_address_conflicts gauge; the responder probes again with
/// backoff, and the address is answered once free (Normal Event AddressConflictCleared).
class Layer2Backend final : public Backend {
 public:
  /// Layer2Backend starts its responder with start.
  Layer2Backend(const BackendContext& context, L2ResponderStarter start);
  ~Layer2Backend() override;

  std::string_view key() const override { return keys::kLayer2; }
  ReconcileKind reconcileKind() const override { return ReconcileKind::Layer2; }
  std::optional<k8s::Duration> update(const Desired& desired) override;
  /// updateLayer2 is update: the Layer 2 part is all this backend reads.
  std::optional<k8s::Duration> updateLayer2(const Desired& desired) override {
    return update(desired);
  }
  ReconcileResult apply() override;
  std::optional<std::string> stateError() const override { return error_; }
  /// statePending: Services to answer and the responder not tried yet (stateError() is nullopt
  /// until then, "" or the start error after).
  bool statePending() const override { return !stopped_ && !error_ && !desired_.empty(); }
  std::string_view stateCondition() const override;
  void stop() override;

 private:
  /// Applied is what the responder was told for one Service: address → interface restriction.
  using Applied = std::map<net::IpAddress, std::optional<std::set<std::string>>>;
  /// Seen is a stored ServiceL2Status: its name, the node of its metallb.io/node label, its
  /// status (service name and namespace taken from its labels) and its resourceVersion.
  struct Seen {
    std::string name;
    std::string node;
    api::ServiceL2StatusStatus status;
    std::string rv;
  };
  /// Shared is what the metrics endpoint reads from another thread.
  struct Shared {
    std::mutex mu;
    std::shared_ptr<L2Responder> responder;
  };

  bool ensureResponder();
  void applyResponder();
  Applied plan(const L2Announcement& a, const std::vector<l2::AnnounceInterface>& usable);
  void report(const L2Announcement& a, const Applied& now);
  bool needsProbe(const std::string& key,
                  const net::IpAddress& ip,
                  const std::map<std::string, std::vector<Seen>>& statuses) const;
  std::set<l2::Mac> memberMacs() const;
  /// answeredOf drops the addresses still probed from what the responder was told.
  std::map<std::string, Applied> answeredOf(const std::map<std::string, Applied>& told,
                                            const l2::ResponderStats& stats) const;
  void reportConflicts(const l2::ResponderStats& stats);
  void reportAnswered(const l2::ResponderStats& stats);
  void recordConflictEvent(const net::IpAddress& ip,
                           k8s::EventType type,
                           const std::string& reason,
                           const std::string& message);
  ReconcileResult syncStatuses();
  bool statusesDiverge();
  std::map<std::string, std::vector<Seen>> currentStatuses();
  std::map<std::string, api::ServiceL2StatusStatus> wantedStatuses() const;
  /// handingOff tells whether the Service key is answered only while the new owner takes over
  /// (L2Announcement::handing_off).
  bool handingOff(const std::string& key) const;
  Result<void> createStatus(const api::ServiceL2StatusStatus& status);
  Result<void> patchStatus(const std::string& name, const api::ServiceL2StatusStatus& status);
  Result<void> removeStatus(const std::string& name);
  k8s::ObjectReference serviceRef(const std::string& ns, const std::string& name) const;

  BackendContext ctx_;
  L2ResponderStarter start_;
  std::shared_ptr<Shared> shared_;
  int collector_ = -1;
  bool stopped_ = false;
  bool updated_ = false;  ///< update() ran: before it nothing is known, nothing is applied
  int start_failures_ = 0;
  std::optional<std::string> error_;
  std::map<std::string, L2Announcement> desired_;     ///< by service key
  std::map<std::string, Applied> applied_;            ///< by service key: what the responder has
  std::map<std::string, Applied> answered_;           ///< applied_ minus the addresses still probed
  std::set<net::IpAddress> answered_before_;          ///< answered by this agent since it started
  std::map<net::IpAddress, l2::Conflict> conflicts_;  ///< AddressConflict already recorded
  std::map<std::string, std::set<net::IpAddress>> failed_;  ///< announceFailed already recorded
  /// written_: ServiceL2Status name → the write the cache may not show yet.
  k8s::WriteOverlay<api::ServiceL2StatusStatus> written_{std::chrono::seconds(60)};
};

}  // namespace ingot::agent
