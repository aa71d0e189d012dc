// SPDX-License-Identifier: Apache-2.0
#include "agent/core/verdicts.h"

#include <algorithm>

#include "agent/core/drain.h"
#include "agent/core/predicates.h"

namespace ingot::agent {
namespace {

/// l2Exclusion is why a node is not an L2 candidate, checked in the election's own order (live
/// agent, the node filters of l2Membership, the advertisements' node selection, the Local
/// endpoint rule); "" when it is a candidate.
std::string l2Exclusion(const VerdictInputs& in, const L2Subject& subject, const api::Node& node) {
  const std::string& name = node.metadata.name;
  if (in.dead_nodes.contains(name)) {
    return "agentNotAlive";
  }
  if (nodeNetworkUnavailable(&node)) {
    return "networkUnavailable";
  }
  if (!in.announce.ignore_exclude_lb && nodeExcludedFromBalancers(&node)) {
    return "excludeLabel";
  }
  if (nodeDrainReason(&node, in.announce.drain) != DrainReason::None) {
    return "draining";
  }
  const bool selected = std::any_of(subject.ads.begin(), subject.ads.end(),
                                    [&](const auto* ad) { return ad->nodes.contains(name); });
  if (!selected) {
    return "notSelectedByAdvertisement";
  }
  if (subject.local && !subject.endpoint_nodes.contains(name)) {
    return "noLocalEndpoint";
  }
  return "";
}

bool anyBgpAdvertisement(const config::Config& config, const std::string& pool) {
  return std::any_of(config.bgp_advertisements.begin(), config.bgp_advertisements.end(),
                     [&](const auto& ad) { return ad.pools.contains(pool); });
}

/// l2Node fills the node's Layer 2 fields from the election.
void l2Node(const VerdictInputs& in, const L2Decision& d, const api::Node& node, NodeVerdict& n) {
  const auto& c = d.election.candidates;
  if (auto it = std::find(c.begin(), c.end(), n.node); it != c.end()) {
    n.l2_rank = static_cast<size_t>(it - c.begin());
  } else {
    n.l2_exclusion = l2Exclusion(in, d.subject, node);
  }
  const auto verdict = d.election.verdictFor(d.subject, n.node);
  n.l2_owner = n.live && verdict == L2Verdict::Announce;
  n.l2_reason = n.live ? std::string(l2VerdictReason(verdict)) : "agentNotAlive";
}

/// sortedNodes returns the nodes in name order.
std::vector<const api::Node*> sortedNodes(const std::vector<api::Node>& nodes) {
  std::vector<const api::Node*> out;
  out.reserve(nodes.size());
  for (const auto& n : nodes) {
    out.push_back(&n);
  }
  std::sort(out.begin(), out.end(),
            [](const auto* a, const auto* b) { return a->metadata.name < b->metadata.name; });
  return out;
}

}  // namespace

ServiceVerdicts serviceVerdicts(const VerdictInputs& in) {
  ServiceVerdicts v;
  const auto& svc = *in.service;
  std::set<std::string> live;
  for (const auto& n : *in.nodes) {
    if (!in.dead_nodes.contains(n.metadata.name)) {
      live.insert(n.metadata.name);
    }
  }
  const auto membership =
      l2Membership(*in.nodes, live, in.announce.ignore_exclude_lb, in.announce.drain);
  L2Hasher hasher;
  const auto l2 = decideL2(*in.config, "", svc, *in.slices, membership, in.announce, hasher);
  v.gate = l2.gate ? std::string(bgpSkipReason(*l2.gate)) : "";
  v.pool = l2.pool;
  v.l2_pool = !l2.gate && l2.l2_pool;
  v.bgp_pool = !l2.gate && anyBgpAdvertisement(*in.config, l2.pool);
  if (v.l2_pool) {
    v.l2 = l2.election;
  }
  for (const auto* node : sortedNodes(*in.nodes)) {
    NodeVerdict n;
    n.node = node->metadata.name;
    n.live = live.contains(n.node);
    n.drain = std::string(drainReasonName(nodeDrainReason(node, in.announce.drain)));
    n.bgp = decideBgp(*in.config, n.node, node, svc, *in.slices, in.announce);
    n.bgp_reason = !n.live      ? "agentNotAlive"
                   : n.bgp.skip ? std::string(bgpSkipReason(*n.bgp.skip))
                                : "";
    if (v.l2_pool) {
      l2Node(in, l2, *node, n);
    }
    v.nodes.push_back(std::move(n));
  }
  return v;
}

}  // namespace ingot::agent
