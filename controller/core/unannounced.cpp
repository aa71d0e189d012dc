// SPDX-License-Identifier: Apache-2.0
#include "controller/core/unannounced.h"

#include <algorithm>
#include <utility>

#include "agent/core/predicates.h"

namespace ingot::controller {
namespace {

const std::string kExcluded = "excluded by " + std::string(agent::kExcludeBalancersLabel);

/// bgpText puts a decideBgp skip reason (bgpSkipReason's names) into words.
std::string bgpText(const std::string& reason) {
  static const std::map<std::string, std::string, std::less<>> kTexts = {
      {"notOwner", "no BGPAdvertisement selects the node"},
      {"noMatchingAdvertisement", "no BGPAdvertisement matches the Service's labels"},
      {"conflictingAdvertisements", "BGPAdvertisements give conflicting LOCAL_PREFs"},
      {"nodeNetworkUnavailable", "node NetworkUnavailable"},
      {"nodeLabeledExcludeBalancers", kExcluded},
      {"noLocalEndpoints", "no local endpoint (ETP Local)"},
      {"noEndpoints", "no serving endpoint"},
      {"agentNotAlive", "agent not alive"},
      {"nodeDraining", "node draining (announcements withdrawn)"},
  };
  const auto it = kTexts.find(reason);
  return it != kTexts.end() ? it->second : reason;
}

/// l2Text puts a node's Layer 2 exclusion or verdict into words.
std::string l2Text(const agent::ServiceVerdicts& v, const agent::NodeVerdict& n) {
  static const std::map<std::string, std::string, std::less<>> kExclusions = {
      {"agentNotAlive", "agent not alive"},
      {"networkUnavailable", "node NetworkUnavailable"},
      {"excludeLabel", kExcluded},
      {"draining", "node draining"},
      {"notSelectedByAdvertisement", "no L2Advertisement selects the node"},
      {"noLocalEndpoint", "no local endpoint (ETP Local)"},
  };
  if (!n.l2_exclusion.empty()) {
    const auto it = kExclusions.find(n.l2_exclusion);
    return it != kExclusions.end() ? it->second : n.l2_exclusion;
  }
  if (n.l2_reason == "noMatchingAdvertisement") {
    return "no L2Advertisement matches the Service's labels";
  }
  if (v.l2 && v.l2->reason == agent::L2Reason::NoActiveEndpoint) {
    return "no serving endpoint";
  }
  if (v.l2 && v.l2->winner && *v.l2->winner != n.node) {
    return "Layer 2 owner is " + *v.l2->winner;
  }
  return n.l2_reason.empty() ? "not elected" : n.l2_reason;
}

std::string joinedIps(const api::Service& svc) {
  std::string out;
  for (const auto& i : svc.status.ingress) {
    out += (out.empty() ? "" : ", ") + (i.ip.empty() ? i.hostname : i.ip);
  }
  return out;
}

/// perNode renders "node1: reason; node2: reason", or "all N nodes: reason" when every node
/// has the same reason; at most kMaxListedNodes are named.
std::string perNode(const agent::ServiceVerdicts& v) {
  std::vector<std::pair<std::string, std::string>> reasons;
  for (const auto& n : v.nodes) {
    reasons.emplace_back(n.node, nodeReasonText(v, n));
  }
  if (reasons.empty()) {
    return "no nodes";
  }
  const bool same = std::all_of(reasons.begin(), reasons.end(),
                                [&](const auto& r) { return r.second == reasons[0].second; });
  if (same && reasons.size() > 1) {
    return "all " + std::to_string(reasons.size()) + " nodes: " + reasons[0].second;
  }
  std::string out;
  for (size_t i = 0; i < reasons.size() && i < kMaxListedNodes; ++i) {
    out += (out.empty() ? "" : "; ") + reasons[i].first + ": " + reasons[i].second;
  }
  if (reasons.size() > kMaxListedNodes) {
    out += "; and " + std::to_string(reasons.size() - kMaxListedNodes) + " more nodes";
  }
  return out;
}

/// gateText is why the common gate withdraws the Service's addresses, for the gate reasons
/// that leave an address nobody announces.
std::string gateText(const std::string& gate) {
  if (gate == "ipNotAllowed") {
    return "no IPAddressPool holds all its addresses";
  }
  if (gate == "invalidIP") {
    return "an ingress address does not parse";
  }
  return gate;
}

/// serviceKey is a Service's cache key, "namespace/name" ("" without a name).
std::string serviceKey(const std::string& ns, const std::string& name) {
  if (name.empty()) {
    return "";
  }
  return ns.empty() ? name : ns + "/" + name;
}

}  // namespace

std::string nodeReasonText(const agent::ServiceVerdicts& v, const agent::NodeVerdict& n) {
  if (!n.live) {
    return "agent not alive";
  }
  std::string l2 = v.l2_pool ? l2Text(v, n) : "";
  std::string bgp = v.bgp_pool ? bgpText(n.bgp_reason) : "";
  if (l2.empty() || bgp.empty() || l2 == bgp) {
    return l2.empty() ? bgp : l2;
  }
  return "L2: " + l2 + ", BGP: " + bgp;
}

AnnounceFinding findUnannounced(const api::Service& svc,
                                const agent::ServiceVerdicts& verdicts,
                                const AnnounceTruth& truth) {
  AnnounceFinding f;
  const std::string& gate = verdicts.gate;
  if (svc.status.ingress.empty() || gate == "loadBalancerClassFiltered" ||
      gate == "notLoadBalancer" || gate == "noIPAllocated") {
    return f;
  }
  if (!truth.empty()) {
    f.state = AnnounceState::Announced;
    return f;
  }
  // A pool no advertisement announces is address management only: something other than the
  // agents may announce its addresses, so there is nothing to report.
  if (gate.empty() && !verdicts.l2_pool && !verdicts.bgp_pool) {
    return f;
  }
  for (const auto& n : verdicts.nodes) {
    if (gate.empty() && n.announces()) {
      f.expected.push_back(n.node);
    }
  }
  if (!f.expected.empty()) {
    f.state = AnnounceState::Expected;
    return f;
  }
  f.state = AnnounceState::Unannounced;
  f.message = "no node announces " + joinedIps(svc) + ": ";
  f.message += gate.empty() ? perNode(verdicts) : gateText(gate);
  return f;
}

std::string sliceServiceKey(const api::EndpointSlice& slice) {
  const auto it = slice.metadata.labels.find(std::string(agent::kServiceNameLabel));
  if (it == slice.metadata.labels.end() || it->second.empty()) {
    return "";
  }
  return serviceKey(slice.metadata.namespace_, it->second);
}

std::string l2StatusServiceKey(const api::ServiceL2Status& status) {
  return serviceKey(status.status.service_namespace, status.status.service_name);
}

std::string bgpStatusServiceKey(const api::ServiceBGPStatus& status) {
  return serviceKey(status.status.service_namespace, status.status.service_name);
}

const api::Condition* announcedCondition(const api::Service& svc) {
  for (const auto& c : svc.status.conditions) {
    if (c.type == kAnnouncedCondition) {
      return &c;
    }
  }
  return nullptr;
}

std::vector<api::Condition> conditionsWith(const std::vector<api::Condition>& current,
                                           std::optional<api::Condition> ours) {
  std::vector<api::Condition> out;
  bool placed = false;
  for (const auto& c : current) {
    if (c.type != kAnnouncedCondition) {
      out.push_back(c);
    } else if (ours && !placed) {
      if (c.status == ours->status) {
        ours->last_transition_time = c.last_transition_time;
      }
      out.push_back(*ours);
      placed = true;
    }
  }
  if (ours && !placed) {
    out.push_back(std::move(*ours));
  }
  return out;
}

UnannouncedTracker::Step UnannouncedTracker::observe(const std::string& key,
                                                     const AnnounceFinding& finding,
                                                     const std::string& addresses,
                                                     TimePoint now,
                                                     bool already_reported) {
  if (finding.state != AnnounceState::Unannounced) {
    entries_.erase(key);
    return {};
  }
  const TimePoint since = already_reported ? now - grace_ : now;
  auto [it, added] = entries_.try_emplace(key, Entry{addresses, since, false});
  Entry& e = it->second;
  if (!added && e.addresses != addresses) {
    e = Entry{addresses, now, false};
  }
  const Duration waited = now - e.since;
  if (waited >= grace_) {
    e.reported = true;
    return {true, std::nullopt};
  }
  return {false, grace_ - waited};
}

size_t UnannouncedTracker::reported() const {
  return static_cast<size_t>(std::count_if(entries_.begin(), entries_.end(),
                                           [](const auto& e) { return e.second.reported; }));
}

}  // namespace ingot::controller
