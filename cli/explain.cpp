// SPDX-License-Identifier: Apache-2.0
#include "cli/explain.h"

#include <algorithm>

#include "agent/core/predicates.h"
#include "controller/core/pool_selection.h"
#include "controller/core/pool_space.h"
#include "controller/core/service_info.h"

namespace ingot::cli {
namespace {

std::string joinedIps(const std::vector<net::IpAddress>& ips) {
  std::string out;
  for (const auto& ip : ips) {
    out += (out.empty() ? "" : ",") + ip.toString();
  }
  return out;
}

/// automaticOrder lists the pools automatic allocation tries for the Service, in the
/// controller's order, as "name (priority N)" or "name".
std::vector<std::string> automaticOrder(const config::Config& config, const api::Service& svc) {
  std::vector<controller::PoolSpace> spaces;
  for (const auto& [name, pool] : config.pools) {
    spaces.emplace_back(pool);
  }
  std::vector<std::string> out;
  for (size_t i :
       controller::automaticPoolOrder(spaces, svc.metadata.namespace_, svc.metadata.labels)) {
    const auto& pool = spaces[i].pool();
    const int32_t priority = pool.allocation ? pool.allocation->priority : 0;
    out.push_back(pool.name + (priority > 0      ? " (priority " + std::to_string(priority) + ")"
                               : pool.allocation ? " (serviceAllocation admits it)"
                                                 : ""));
  }
  return out;
}

PoolChoice poolChoice(const ExplainInputs& in) {
  PoolChoice c;
  c.pool = in.outcome->pool;
  const auto& original = *in.original;
  const std::string annotated =
      controller::annotationValue(original.metadata.annotations, controller::kAnnotationAddressPool,
                                  controller::kLegacyAnnotationAddressPool);
  auto requested = controller::requestedIps(original);
  if (in.outcome->ips.empty()) {
    c.source = "none";
    c.detail = "no address assigned (see the events)";
  } else if (!annotated.empty()) {
    c.source = "annotation";
    c.detail = "metallb.io/address-pool: " + annotated;
  } else if (requested && !requested->ips.empty()) {
    c.source = "requestedIPs";
    c.detail =
        "the Service asks for " + joinedIps(requested->ips) + ", which pool " + c.pool + " holds";
  } else if (!controller::statusIps(original).empty()) {
    c.source = "existing";
    c.detail = "the Service already had these addresses and the controller keeps them";
  } else {
    c.source = "automatic";
    c.order = automaticOrder(*in.config, original);
    c.detail = "first pool in the automatic order with a free address";
  }
  return c;
}

/// l2Exclusion is why a node is not an L2 candidate, checked in the election's own order (live
/// agent, the node filters of l2Membership, the advertisements' node selection, the Local
/// endpoint rule); "" when it is a candidate.
std::string l2Exclusion(const ExplainInputs& in,
                        const agent::L2Subject& subject,
                        const api::Node& node) {
  const std::string& name = node.metadata.name;
  if (in.dead_nodes.contains(name)) {
    return "agentNotAlive";
  }
  if (agent::nodeNetworkUnavailable(&node)) {
    return "networkUnavailable";
  }
  if (!in.announce.ignore_exclude_lb && agent::nodeExcludedFromBalancers(&node)) {
    return "excludeLabel";
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

/// explainL2Node fills the node's Layer 2 fields from the election.
void explainL2Node(const ExplainInputs& in,
                   const agent::L2Decision& d,
                   const api::Node& node,
                   NodeExplanation& n) {
  const auto& c = d.election.candidates;
  if (auto it = std::find(c.begin(), c.end(), n.node); it != c.end()) {
    n.l2_rank = static_cast<size_t>(it - c.begin());
  } else {
    n.l2_exclusion = l2Exclusion(in, d.subject, node);
  }
  const auto verdict = d.election.verdictFor(d.subject, n.node);
  n.l2_owner = n.live && verdict == agent::L2Verdict::Announce;
  n.l2_reason = n.live ? std::string(agent::l2VerdictReason(verdict)) : "agentNotAlive";
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

Explanation explainService(const ExplainInputs& in) {
  Explanation e;
  const auto& svc = *in.service;
  e.service = svc.metadata.namespace_ + "/" + svc.metadata.name;
  e.ips = in.outcome->ips;
  e.events = in.outcome->events;
  e.pool = poolChoice(in);
  e.dead_nodes.assign(in.dead_nodes.begin(), in.dead_nodes.end());
  std::set<std::string> live;
  for (const auto& n : *in.nodes) {
    if (!in.dead_nodes.contains(n.metadata.name)) {
      live.insert(n.metadata.name);
    }
  }
  const auto membership = agent::l2Membership(*in.nodes, live, in.announce.ignore_exclude_lb);
  agent::L2Hasher hasher;
  const auto l2 = agent::decideL2(*in.config, "", svc, *in.slices, membership, in.announce, hasher);
  e.gate = l2.gate ? std::string(agent::bgpSkipReason(*l2.gate)) : "";
  e.l2_pool = !l2.gate && l2.l2_pool;
  e.bgp_pool = !l2.gate && anyBgpAdvertisement(*in.config, l2.pool);
  if (e.l2_pool) {
    e.l2 = l2.election;
  }
  for (const auto* node : sortedNodes(*in.nodes)) {
    NodeExplanation n;
    n.node = node->metadata.name;
    n.live = live.contains(n.node);
    n.bgp = agent::decideBgp(*in.config, n.node, node, svc, *in.slices, in.announce);
    n.bgp_reason = !n.live      ? "agentNotAlive"
                   : n.bgp.skip ? std::string(agent::bgpSkipReason(*n.bgp.skip))
                                : "";
    if (e.l2_pool) {
      explainL2Node(in, l2, *node, n);
    }
    e.nodes.push_back(std::move(n));
  }
  return e;
}

}  // namespace ingot::cli
