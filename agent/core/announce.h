// SPDX-License-Identifier: Apache-2.0
// The BGP announce decision for one node (MetalLB's bgp_controller ShouldAnnounce): which
// LoadBalancer Services this node advertises, to which of its BGP sessions, as which prefixes — or
// the typed reason why not. Pure: it reads the Config snapshot and the objects it is handed and
// returns values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/core/announcement.h"
#include "agent/core/drain_options.h"
#include "api/types.h"
#include "common/net/ip.h"
#include "config/config.h"

namespace ingot::agent {

/// BgpSkip is why a node does not announce a Service over BGP. The first five are the common gate
/// both protocols share; the rest are MetalLB's BGP ShouldAnnounce reasons, checked in this order.
enum class BgpSkip {
  LoadBalancerClassFiltered,    ///< spec.loadBalancerClass is not the one this agent handles
  NotLoadBalancer,              ///< spec.type is not LoadBalancer
  NoIpAllocated,                ///< status.loadBalancer.ingress is empty
  InvalidIp,                    ///< an ingress entry's ip does not parse
  IpNotAllowed,                 ///< no single pool contains every ingress IP
  NotOwner,                     ///< no BGPAdvertisement of the pool selects this node
  NoMatchingAdvertisement,      ///< none of those also matches the Service's labels
  ConflictingAdvertisements,    ///< two of them give one prefix different LOCAL_PREFs
  NodeNetworkUnavailable,       ///< this node's NetworkUnavailable condition is True
  NodeLabeledExcludeBalancers,  ///< this node carries kExcludeBalancersLabel
  NoLocalEndpoints,             ///< externalTrafficPolicy Local and no serving endpoint here
  NoEndpoints,                  ///< no serving endpoint anywhere
  NodeDraining,  ///< the node drains and has withdrawn its announcements (agent/core/drain.h)
};

/// bgpSkipReason returns the reason string MetalLB logs and uses for the withdrawal
/// ("notOwner", "noIPAllocated", ...). LoadBalancerClassFiltered has no MetalLB counterpart
/// (MetalLB silently ignores such Services) and returns "loadBalancerClassFiltered".
std::string_view bgpSkipReason(BgpSkip skip);

/// kExcludeBalancersLabel excludes a node from announcing when present with any value.
inline constexpr std::string_view kExcludeBalancersLabel =
    "node.kubernetes.io/exclude-from-external-load-balancers";

/// AnnounceOptions are the agent flags that change the decision.
struct AnnounceOptions {
  bool ignore_exclude_lb = false;  ///< --ignore-exclude-lb
  std::string lb_class;            ///< --lb-class; "" = only Services without a class
  DrainOptions drain;              ///< --drain-triggers, --drain-taint, --drain-delay
  /// weighted_ecmp (--weighted-ecmp) weights every Service by its ready local endpoints unless
  /// its ingot.dev/weighted-ecmp annotation says "false" (agent/core/weights.h).
  bool weighted_ecmp = false;
};

/// ServiceGate is the outcome of the common gate: the skip reason, or the parsed ingress IPs and
/// the one pool that contains all of them.
struct ServiceGate {
  std::optional<BgpSkip> skip;
  std::vector<net::IpAddress> ips;  ///< in ingress order
  const config::Pool* pool = nullptr;
};

/// gateService applies the checks both protocols share (MetalLB's speaker handleService and the
/// start of each ShouldAnnounce), in MetalLB's order: class filter, type, ingress present, IPs
/// parse, one pool holds all.
ServiceGate gateService(const config::Config& config,
                        const api::Service& service,
                        const AnnounceOptions& options);

/// endpointCanServe reports whether an EndpointSlice endpoint counts as serving: ready unset or
/// true, or serving true (MetalLB's epslices.EndpointCanServe).
bool endpointCanServe(const api::EndpointConditions& conditions);

/// hasServingEndpoint reports whether any endpoint of the slices has at least one address and
/// can serve (endpointCanServe), restricted to endpoints whose nodeName is *node when node is
/// set: MetalLB v0.16's BGP hasHealthyEndpoint. Each endpoint counts on its own: an address also
/// listed unready by another endpoint (a hostNetwork rollout) does not cancel a serving copy.
/// This is the BGP rule only; the L2 election has its own, which does not look at addresses.
bool hasServingEndpoint(const std::vector<api::EndpointSlice>& slices,
                        const std::optional<std::string>& node);

/// BgpDecision is the verdict for one Service on one node.
struct BgpDecision {
  std::optional<BgpSkip> skip;  ///< set = not announced
  std::string pool;             ///< the pool holding the IPs (empty when the gate failed earlier)
  /// announcements: one per ingress IP × matching BGPAdvertisement, in that order; empty when
  /// skipped.
  std::vector<Announcement> announcements;
  /// peers is the sorted union of the announcements' peers: ServiceBGPStatus.status.peers.
  std::vector<std::string> peers;
  bool announced() const { return !skip.has_value(); }
};

/// decideBgp decides whether node_name announces service over BGP. node is this node's Node
/// object, or null if the agent has not seen it (then neither node condition applies, as in
/// MetalLB). slices are the Service's EndpointSlices; slices of other Services (by namespace and
/// label kubernetes.io/service-name) are ignored. The node's sessions are the BGPPeers whose
/// resolved node set contains node_name; an advertisement's `peers` list (empty = all) is
/// resolved against them. Deterministic: the same inputs give the same decision.
BgpDecision decideBgp(const config::Config& config,
                      const std::string& node_name,
                      const api::Node* node,
                      const api::Service& service,
                      const std::vector<api::EndpointSlice>& slices,
                      const AnnounceOptions& options);

/// withoutBgp returns the configuration an agent decides with while BGP is unavailable (Layer 2
/// only, or frr-k8s missing): no BGPPeer, no BGPAdvertisement and no BFD profile, so decideBgp
/// announces nothing (notOwner); pools, Layer 2 advertisements and community aliases stay, so
/// every Layer 2 decision is the one the full configuration gives.
config::Config withoutBgp(const config::Config& config);

/// collectAnnouncements concatenates the announcements of every announced decision, the input of
/// frrgen::build for the node.
std::vector<Announcement> collectAnnouncements(const std::vector<BgpDecision>& decisions);

}  // namespace ingot::agent
