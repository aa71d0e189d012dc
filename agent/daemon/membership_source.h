// SPDX-License-Identifier: Apache-2.0
// The agent's memberlist, run as MetalLB's speaker runs it: the member is named after the node,
// binds --ml-bindaddr:--ml-bindport, encrypts with the key derived from --ml-secret-key-path, and
// joins the pod IPs of the agents that --ml-labels selects (every minute, and at once when this
// node's Node object or the agent pods change). Membership changes arrive on the gossip thread;
// they only update a locked set and enqueue a key, so the reconcile worker re-runs the Layer 2
// election on its own thread. Leaving is graceful and bounded on shutdown.
//
// Unlike MetalLB's speaker, which binds at start, the member binds only once the agent's caches
// are synced (attach): the other agents see this node alive, and hand it the addresses it wins,
// only when it can answer for them. Until its first join has finished, the live set is not
// joined and this node answers for no address.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/daemon/live_nodes.h"
#include "agent/memberlist/core/options.h"
#include "agent/memberlist/transport.h"
#include "common/util/log.h"
#include "common/util/result.h"

namespace ingot::agent {

/// eventName returns MetalLB's name of a memberlist event: NodeJoin, NodeLeave or NodeUpdate.
std::string_view eventName(memberlist::Outbox::Event::Kind kind);

/// LiveSet is LiveNodes kept from memberlist events. onEvent runs on the gossip thread: it
/// updates the set under a lock, logs MetalLB's "node event - forcing sync" line and calls the
/// notify callback, which must only hand work over (enqueue a key).
class LiveSet final : public LiveNodes {
 public:
  /// self is always live (a member does not report itself).
  LiveSet(std::string self, log::Logger& logger);

  /// setNotify replaces the callback run after each event ({} = none). Thread-safe.
  void setNotify(std::function<void()> notify);

  /// onEvent applies one event: Join adds the member, Leave (dead or left) removes it, Update
  /// keeps it. Thread-safe.
  void onEvent(const memberlist::Outbox::Event& event);

  std::set<std::string> live() const override;

  /// markJoined records that the first join finished (or there was nothing to join) and
  /// notifies. Thread-safe; later calls do nothing.
  void markJoined();
  bool joined() const override;
  std::map<std::string, std::string> metadata() const override;
  /// setSelfMetadata records what this node advertises (its own member is never reported by
  /// an event). Thread-safe.
  void setSelfMetadata(std::string meta);
  /// self is this node's name.
  const std::string& self() const { return self_; }

 private:
  std::string self_;
  log::Logger& log_;
  mutable std::mutex mu_;
  std::set<std::string> live_;
  std::map<std::string, std::string> meta_;  ///< live members' metadata, self included
  bool joined_ = false;
  std::function<void()> notify_;
};

/// seedsToJoin returns "ip:port" ("[ip]:port" for IPv6) for each pod IP that is not the address
/// of a current member, as MetalLB's speaker picks the IPs to join (a seed has no port of its
/// own: the member's bind port applies). Empty and unparsable IPs are skipped; sorted, unique.
std::vector<std::string> seedsToJoin(const std::vector<std::string>& pod_ips,
                                     const std::vector<memberlist::MemberView>& members,
                                     uint16_t port);

/// MembershipSource owns this agent's memberlist member, its LiveSet and the join thread.
class MembershipSource {
 public:
  /// PodIps returns the current IPs of the agent pods (the seeds). Called on the join thread.
  using PodIps = std::function<std::vector<std::string>()>;

  /// create reads the key (<secret_key_path>/secretkey) and the tuning file (when it exists)
  /// for the member named node; nothing is bound before attach. Errors name the file or flag and
  /// the reason.
  static Result<std::unique_ptr<MembershipSource>> create(
      const std::string& node, const memberlist::MembershipOptions& options, log::Logger& logger);
  ~MembershipSource();
  MembershipSource(const MembershipSource&) = delete;
  MembershipSource& operator=(const MembershipSource&) = delete;

  /// liveNodes is what the reconciler reads.
  const LiveNodes& liveNodes() const { return live_; }

  /// setMetadata sets what this member advertises to the others (Ingot's agents describe
  /// themselves there; MetalLB's speakers advertise nothing). Call before attach; an error when
  /// it is longer than memberlist's limit of 512 bytes.
  Result<void> setMetadata(const std::string& meta);

  /// attach binds and starts the member and connects it to the agent (call it once the caches
  /// are synced): notify runs after every membership change, pod_ips supplies the seeds. The
  /// join thread joins at once, marks the live set joined when that join finished (bounded by
  /// the TCP timeout), then joins every join_interval, retrying seeds still missing sooner (1 s,
  /// doubling up to join_interval). Call once; an error names the address and the reason.
  Result<void> attach(std::function<void()> notify,
                      PodIps pod_ips,
                      std::chrono::milliseconds join_interval = std::chrono::minutes(1));

  /// detach stops the join thread and the notifications (before what attach was given goes
  /// away). Idempotent.
  void detach();

  /// rejoin asks the join thread to join the missing seeds now (MetalLB: own Node changed).
  void rejoin();

  /// stop detaches, leaves the cluster gracefully (waiting at most `wait` for the news to go
  /// out, MetalLB waits 1 s) and shuts the member down. Idempotent.
  void stop(std::chrono::milliseconds wait = std::chrono::seconds(1));

  /// labels is --ml-labels: the selector of the agent pods whose IPs are the seeds.
  const std::string& labels() const { return labels_; }

  /// node is the member (for counters); null before attach and after stop.
  const memberlist::Node* node() const { return node_.get(); }

 private:
  MembershipSource(memberlist::TransportConfig config, std::string labels, log::Logger& logger);
  void joinLoop(std::chrono::milliseconds interval);
  /// joinMissing starts a join with the seeds that are not members; false when there were none.
  bool joinMissing();
  /// awaitFirstJoin waits (lock held on mu_) until the first join's exchanges finished or one
  /// of them brought a live member, at most the TCP timeout, then marks the live set joined.
  void awaitFirstJoin(std::unique_lock<std::mutex>& lock, bool attempted);

  log::Logger& log_;
  memberlist::TransportConfig config_;  ///< moved into the member by attach
  std::string labels_;
  uint16_t port_;
  std::chrono::milliseconds join_timeout_;
  LiveSet live_;
  std::unique_ptr<memberlist::Node> node_;
  PodIps pod_ips_;
  std::mutex mu_;  // guards wake_, stopping_
  std::condition_variable cv_;
  bool wake_ = false;
  bool stopping_ = false;
  std::thread joiner_;
};

/// startMembership creates the memberlist source when options are enabled() (attach binds it)
/// and returns null otherwise, logging MetalLB's two "not starting fast dead node detection"
/// lines (with memberlist off every Node counts as a live agent).
Result<std::unique_ptr<MembershipSource>> startMembership(
    const std::string& node, const memberlist::MembershipOptions& options, log::Logger& logger);

}  // namespace ingot::agent
