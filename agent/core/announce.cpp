// SPDX-License-Identifier: Apache-2.0
#include "agent/core/announce.h"

#include <algorithm>
#include <set>

#include "agent/core/predicates.h"
#include "agent/core/weights.h"
#include "api/selector.h"

namespace ingot::agent {

namespace {

// nodeConditionTrue reports whether the node has condition `type` with status "True".
bool nodeConditionTrue(const api::Node* node, std::string_view type) {
  if (node == nullptr) {
    return false;
  }
  for (const auto& c : node->conditions) {
    if (c.type == type) {
      return c.status == "True";
    }
  }
  return false;
}

// sliceBelongsTo reports whether a slice is one of the Service's (same namespace, label).
bool sliceBelongsTo(const api::EndpointSlice& slice, const api::Service& service) {
  if (slice.metadata.namespace_ != service.metadata.namespace_) {
    return false;
  }
  auto it = slice.metadata.labels.find(std::string(kServiceNameLabel));
  return it != slice.metadata.labels.end() && it->second == service.metadata.name;
}

// ownSlices returns the slices that are the Service's (sliceBelongsTo), in input order.
std::vector<api::EndpointSlice> ownSlices(const std::vector<api::EndpointSlice>& slices,
                                          const api::Service& service) {
  std::vector<api::EndpointSlice> own;
  for (const auto& s : slices) {
    if (sliceBelongsTo(s, service)) {
      own.push_back(s);
    }
  }
  return own;
}

// poolFor returns the pool whose CIDRs contain every ip, or null (pools never overlap).
const config::Pool* poolFor(const config::Config& config, const std::vector<net::IpAddress>& ips) {
  for (const auto& [name, pool] : config.pools) {
    bool all = std::all_of(ips.begin(), ips.end(), [&pool = pool](const net::IpAddress& ip) {
      return std::any_of(pool.cidrs.begin(), pool.cidrs.end(),
                         [&ip](const net::Cidr& c) { return c.contains(ip); });
    });
    if (all) {
      return &pool;
    }
  }
  return nullptr;
}

// serviceMatches reports whether the advertisement's serviceSelectors (empty = all) match.
bool serviceMatches(const config::BgpAdvertisement& ad, const api::Service& service) {
  return ad.service_selectors.empty() ||
         api::matchesAny(ad.service_selectors, service.metadata.labels);
}

// aggregationFor returns the advertisement's aggregation length for the address family of ip.
int aggregationFor(const config::BgpAdvertisement& ad, const net::IpAddress& ip) {
  return ip.isV4() ? ad.aggregation_length : ad.aggregation_length_v6;
}

// anyConflict reports whether two of the advertisements may give one prefix of the pool different
// LOCAL_PREFs (the parser's rule, config::compatibleLocalPref, judged on the pool's families, not
// only on the Service's: MetalLB's checkBGPAdvConflicts).
bool anyConflict(const std::vector<const config::BgpAdvertisement*>& ads,
                 const config::Pool& pool) {
  for (size_t i = 0; i < ads.size(); ++i) {
    for (size_t j = i + 1; j < ads.size(); ++j) {
      if (!config::compatibleLocalPref(*ads[i], *ads[j], pool)) {
        return true;
      }
    }
  }
  return false;
}

// sessionsOn returns the names of the BGPPeers that open a session on the node, sorted.
std::vector<std::string> sessionsOn(const config::Config& config, const std::string& node) {
  std::vector<std::string> out;
  for (const auto& [name, peer] : config.peers) {
    if (peer.nodes.contains(node)) {
      out.push_back(name);
    }
  }
  return out;
}

// resolvePeers resolves an advertisement's `peers` (empty = all) against the node's sessions.
std::vector<std::string> resolvePeers(const config::BgpAdvertisement& ad,
                                      const std::vector<std::string>& sessions) {
  if (ad.peers.empty()) {
    return sessions;
  }
  std::vector<std::string> out;
  for (const auto& s : sessions) {
    if (std::find(ad.peers.begin(), ad.peers.end(), s) != ad.peers.end()) {
      out.push_back(s);
    }
  }
  return out;
}

// sortedCommunities returns the communities sorted and without duplicates.
std::vector<config::BgpCommunity> sortedCommunities(std::vector<config::BgpCommunity> c) {
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

// advertisementSkip selects the pool's advertisements that apply to the node and the Service
// into ads, or returns why there are none usable (notOwner, noMatchingAdvertisement,
// conflictingAdvertisements, in MetalLB's order).
std::optional<BgpSkip> advertisementSkip(const config::Config& config,
                                         const std::string& node_name,
                                         const config::Pool& pool,
                                         const api::Service& service,
                                         std::vector<const config::BgpAdvertisement*>& ads) {
  for (const auto& ad : config.bgp_advertisements) {
    if (ad.pools.contains(pool.name) && ad.nodes.contains(node_name)) {
      ads.push_back(&ad);
    }
  }
  if (ads.empty()) {
    return BgpSkip::NotOwner;
  }
  std::erase_if(ads, [&service](const config::BgpAdvertisement* ad) {
    return !serviceMatches(*ad, service);
  });
  if (ads.empty()) {
    return BgpSkip::NoMatchingAdvertisement;
  }
  if (anyConflict(ads, pool)) {
    return BgpSkip::ConflictingAdvertisements;
  }
  return std::nullopt;
}

// nodeSkip applies the node and endpoint checks that follow the advertisement checks.
std::optional<BgpSkip> nodeSkip(const std::string& node_name,
                                const api::Node* node,
                                const api::Service& service,
                                const std::vector<api::EndpointSlice>& slices,
                                const AnnounceOptions& options) {
  if (nodeConditionTrue(node, "NetworkUnavailable")) {
    return BgpSkip::NodeNetworkUnavailable;
  }
  if (!options.ignore_exclude_lb && node != nullptr &&
      node->metadata.labels.contains(std::string(kExcludeBalancersLabel))) {
    return BgpSkip::NodeLabeledExcludeBalancers;
  }
  const std::vector<api::EndpointSlice> own = ownSlices(slices, service);
  if (service.spec.external_traffic_policy == "Local" && !hasServingEndpoint(own, node_name)) {
    return BgpSkip::NoLocalEndpoints;
  }
  if (!hasServingEndpoint(own, std::nullopt)) {
    return BgpSkip::NoEndpoints;
  }
  return std::nullopt;
}

// announce fills the decision's announcements (ingress IP × advertisement) and status peers.
void announce(const config::Config& config,
              const std::string& node_name,
              const api::Service& service,
              const std::vector<net::IpAddress>& ips,
              const std::vector<const config::BgpAdvertisement*>& ads,
              BgpDecision& d) {
  const auto sessions = sessionsOn(config, node_name);
  const std::string key = service.metadata.namespace_ + "/" + service.metadata.name;
  std::set<std::string> peers;
  for (const auto& ip : ips) {
    for (const auto* ad : ads) {
      Announcement a;
      a.prefix = net::Cidr(ip, aggregationFor(*ad, ip));
      a.local_pref = ad->local_pref;
      a.communities = sortedCommunities(ad->communities);
      a.peers = resolvePeers(*ad, sessions);
      a.advertisement = ad->name;
      a.service = key;
      peers.insert(a.peers.begin(), a.peers.end());
      d.announcements.push_back(std::move(a));
    }
  }
  d.peers.assign(peers.begin(), peers.end());
}

}  // namespace

std::string_view bgpSkipReason(BgpSkip skip) {
  switch (skip) {
    case BgpSkip::LoadBalancerClassFiltered:
      return "loadBalancerClassFiltered";
    case BgpSkip::NotLoadBalancer:
      return "notLoadBalancer";
    case BgpSkip::NoIpAllocated:
      return "noIPAllocated";
    case BgpSkip::InvalidIp:
      return "invalidIP";
    case BgpSkip::IpNotAllowed:
      return "ipNotAllowed";
    case BgpSkip::NotOwner:
      return "notOwner";
    case BgpSkip::NoMatchingAdvertisement:
      return "noMatchingAdvertisement";
    case BgpSkip::ConflictingAdvertisements:
      return "conflictingAdvertisements";
    case BgpSkip::NodeNetworkUnavailable:
      return "nodeNetworkUnavailable";
    case BgpSkip::NodeLabeledExcludeBalancers:
      return "nodeLabeledExcludeBalancers";
    case BgpSkip::NoLocalEndpoints:
      return "noLocalEndpoints";
    case BgpSkip::NoEndpoints:
      return "noEndpoints";
    case BgpSkip::NodeDraining:
      return "nodeDraining";
  }
  return "unknown";
}

ServiceGate gateService(const config::Config& config,
                        const api::Service& service,
                        const AnnounceOptions& options) {
  ServiceGate gate;
  const auto& cls = service.spec.load_balancer_class;
  if ((options.lb_class.empty() && cls.has_value()) ||
      (!options.lb_class.empty() && cls != options.lb_class)) {
    gate.skip = BgpSkip::LoadBalancerClassFiltered;
    return gate;
  }
  if (service.spec.type != "LoadBalancer") {
    gate.skip = BgpSkip::NotLoadBalancer;
    return gate;
  }
  if (service.status.ingress.empty()) {
    gate.skip = BgpSkip::NoIpAllocated;
    return gate;
  }
  for (const auto& ingress : service.status.ingress) {
    auto ip = net::IpAddress::parse(ingress.ip);
    if (!ip) {
      gate.skip = BgpSkip::InvalidIp;
      gate.ips.clear();
      return gate;
    }
    gate.ips.push_back(*ip);
  }
  gate.pool = poolFor(config, gate.ips);
  if (gate.pool == nullptr) {
    gate.skip = BgpSkip::IpNotAllowed;
  }
  return gate;
}

bool endpointCanServe(const api::EndpointConditions& conditions) {
  if (!conditions.ready.has_value() || *conditions.ready) {
    return true;
  }
  return conditions.serving.value_or(false);
}

bool hasServingEndpoint(const std::vector<api::EndpointSlice>& slices,
                        const std::optional<std::string>& node) {
  for (const auto& slice : slices) {
    for (const auto& ep : slice.endpoints) {
      if (node.has_value() && ep.node_name != node) {
        continue;
      }
      if (!ep.addresses.empty() && endpointCanServe(ep.conditions)) {
        return true;
      }
    }
  }
  return false;
}

BgpDecision decideBgp(const config::Config& config,
                      const std::string& node_name,
                      const api::Node* node,
                      const api::Service& service,
                      const std::vector<api::EndpointSlice>& slices,
                      const AnnounceOptions& options) {
  BgpDecision d;
  ServiceGate gate = gateService(config, service, options);
  if (gate.pool != nullptr) {
    d.pool = gate.pool->name;
  }
  if (gate.skip) {
    d.skip = gate.skip;
    return d;
  }
  std::vector<const config::BgpAdvertisement*> ads;
  d.skip = advertisementSkip(config, node_name, *gate.pool, service, ads);
  if (!d.skip) {
    d.skip = nodeSkip(node_name, node, service, slices, options);
  }
  if (d.skip) {
    return d;
  }
  announce(config, node_name, service, gate.ips, ads, d);
  const uint32_t bandwidth =
      endpointBandwidth(service, ownSlices(slices, service), node_name, options.weighted_ecmp);
  for (auto& a : d.announcements) {
    a.bandwidth = bandwidth;
  }
  return d;
}

config::Config withoutBgp(const config::Config& config) {
  config::Config out = config;
  out.peers.clear();
  out.bgp_advertisements.clear();
  out.bfd_profiles.clear();
  return out;
}

std::vector<Announcement> collectAnnouncements(const std::vector<BgpDecision>& decisions) {
  std::vector<Announcement> out;
  for (const auto& d : decisions) {
    if (d.announced()) {
      out.insert(out.end(), d.announcements.begin(), d.announcements.end());
    }
  }
  return out;
}

}  // namespace ingot::agent
