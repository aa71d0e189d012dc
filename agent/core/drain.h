// SPDX-License-Identifier: Apache-2.0
// Drain-aware announcements (zero-loss node maintenance, opt-in): when a node is about to go away
// (cordoned, tainted, shutting down), it first re-announces its BGP prefixes with the
// GRACEFUL_SHUTDOWN community (RFC 8326) so that the peers move its traffic to the other nodes'
// paths, withdraws them after a delay, and leaves the Layer 2 election so that each address it
// owns moves to the next candidate. Pure: the caller passes the Node, the options and the time.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "agent/core/announce.h"
#include "agent/core/drain_options.h"
#include "api/types.h"
#include "common/util/result.h"
#include "config/config.h"

namespace ingot::agent {

/// parseDrainTriggers parses a comma-separated list of "cordon", "taint", "shutdown", "sigterm"
/// ("" = none). Error: the unknown name and the accepted ones.
Result<std::set<DrainTrigger>> parseDrainTriggers(std::string_view text);

/// kUnschedulableTaint is the taint the node lifecycle controller sets on a cordoned Node.
inline constexpr std::string_view kUnschedulableTaint = "node.kubernetes.io/unschedulable";

/// kGracefulShutdownCommunity is RFC 8326's well-known GRACEFUL_SHUTDOWN community, 65535:0.
inline constexpr config::BgpCommunity kGracefulShutdownCommunity{false, 65535, 0, 0};

/// kGracefulShutdownLocalPref is the LOCAL_PREF sent to iBGP peers while draining. RFC 8326 asks
/// for 0, but an FRRConfiguration's withLocalPref (and so both BGP modes, which render one) reads
/// 0 as "not set"; 1 is the lowest value it carries, below every path with a default LOCAL_PREF.
/// A receiver configured per RFC 8326 sets 0 itself from the community.
inline constexpr uint32_t kGracefulShutdownLocalPref = 1;

/// DrainPhase is where a node is in a drain.
enum class DrainPhase {
  Serving,           ///< announces normally
  GracefulShutdown,  ///< BGP: announced with GRACEFUL_SHUTDOWN; Layer 2: out of the election
  Withdrawn,         ///< announces nothing; sessions and BFD stay up
};

/// DrainReason is why a node is not Serving.
enum class DrainReason {
  None,
  Cordoned,              ///< spec.unschedulable or the unschedulable taint
  Tainted,               ///< the --drain-taint taint
  KubeletShutdown,       ///< the Ready condition says the node is shutting down
  SigtermWhileCordoned,  ///< the agent was told to stop while its Node is cordoned
  ExcludeLabel,          ///< kExcludeBalancersLabel: MetalLB's immediate withdrawal
};

/// drainPhaseName returns "serving", "gracefulShutdown" or "withdrawn".
std::string_view drainPhaseName(DrainPhase phase);

/// drainReasonName returns "" (None), "cordoned", "tainted", "kubeletShutdown",
/// "sigtermWhileCordoned" or "excludeLabel".
std::string_view drainReasonName(DrainReason reason);

/// nodeCordoned reports whether node has spec.unschedulable or the unschedulable taint.
bool nodeCordoned(const api::Node& node);

/// nodeShuttingDown reports whether node's Ready condition is not "True" and its message says
/// kubelet's graceful node shutdown started ("node is shutting down").
bool nodeShuttingDown(const api::Node& node);

/// nodeDrainReason returns the first enabled trigger the Node object shows, in the order cordon,
/// taint, shutdown; None for a null node or when drain-awareness is off. It reads only the Node,
/// which every agent sees alike, so every agent computes the same answer for every node.
DrainReason nodeDrainReason(const api::Node* node, const DrainOptions& options);

/// DrainInputs are what the state machine reads at one instant.
struct DrainInputs {
  const api::Node* node = nullptr;  ///< this node's Node; null = not seen yet
  bool sigterm = false;             ///< the agent received SIGTERM
  bool ignore_exclude_lb = false;   ///< --ignore-exclude-lb
  int64_t now_ms = 0;               ///< Unix ms
};

/// DrainState is this node's drain phase.
struct DrainState {
  DrainPhase phase = DrainPhase::Serving;
  DrainReason reason = DrainReason::None;
  std::optional<int64_t> since_ms;  ///< when the drain started (unset when Serving or excluded)
  /// next_change_ms is when the phase changes without new input (the end of the delay).
  std::optional<int64_t> next_change_ms;
  friend bool operator==(const DrainState&, const DrainState&) = default;
};

/// nextDrainState steps the state machine from prev:
///   - the exclude label (unless ignored) withdraws at once, with or without drain-awareness;
///   - otherwise a drain reason (nodeDrainReason, or SIGTERM while cordoned when that trigger is
///     on) starts GracefulShutdown, keeping the start of a drain already under way, and becomes
///     Withdrawn once delay_ms has passed since; no reason returns to Serving.
DrainState nextDrainState(const DrainState& prev,
                          const DrainInputs& in,
                          const DrainOptions& options);

/// drainBgpDecision applies the phase to one announced decision: Serving leaves it; Withdrawn
/// skips it (BgpSkip::NodeDraining) with no announcement and no peer; GracefulShutdown adds
/// kGracefulShutdownCommunity to every announcement and, for the peers that are iBGP sessions,
/// splits it so that they receive kGracefulShutdownLocalPref (the others keep their attributes).
void drainBgpDecision(DrainPhase phase, const config::Config& config, BgpDecision& decision);

/// HandOffEnd says whether a draining node still answers an address it owned (Layer 2).
enum class HandOffEnd {
  Waiting,            ///< keep answering: the new owner has not announced yet
  NewOwnerAnnounced,  ///< the new owner reported the Service, kL2HandOffSettleMs ago
  TimedOut,           ///< the upper bound passed (no new owner, or it never reported)
};

/// handOffEndName returns "waiting", "newOwnerAnnounced" or "timedOut".
std::string_view handOffEndName(HandOffEnd end);

/// kL2HandOffSettleMs is how long a draining node still answers after it saw the new owner's
/// ServiceL2Status. The new owner writes it once it has told its responder, whose first
/// gratuitous ARP/NA and first answers can come tens of ms later (a responder that has just
/// started opens its sockets first), while the status write and the watch take a few ms on a
/// fast API server.
inline constexpr int64_t kL2HandOffSettleMs = 500;

/// L2HandOffView is what a draining node knows about one Service it handed off.
struct L2HandOffView {
  std::optional<std::string> new_owner;  ///< the election's winner now (nullopt: nobody)
  /// status_nodes names the nodes whose ServiceL2Status names the Service now.
  std::vector<std::string> status_nodes;
  /// reported_ms is when this node first saw newOwnerReported (nullopt: not yet).
  std::optional<int64_t> reported_ms;
};

/// newOwnerReported tells whether the elected new owner (a node other than self) has a
/// ServiceL2Status for the Service. A status of a node that is not the winner (a stale object)
/// proves nothing.
bool newOwnerReported(std::string_view self, const L2HandOffView& view);

/// l2HandOffEnd decides whether self, draining, may stop answering a Service it handed off at
/// now_ms: kL2HandOffSettleMs after it first saw the new owner's report (view.reported_ms);
/// else once until_ms (the upper bound) has come; else it keeps answering.
HandOffEnd l2HandOffEnd(const L2HandOffView& view, int64_t now_ms, int64_t until_ms);

/// peerIsIbgp reports whether the session is internal: dynamicASN internal, or a peer ASN equal
/// to the local ASN the session presents (localASN when set, else myASN).
bool peerIsIbgp(const config::Peer& peer);

}  // namespace ingot::agent
