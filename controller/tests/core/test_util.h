// SPDX-License-Identifier: Apache-2.0
// Builders shared by the controller core tests: pools from CIDR text, allocator requests and
// Services with the fields convergence reads.
#pragma once

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "api/types.h"
#include "common/net/ip.h"
#include "config/config.h"
#include "controller/core/allocator.h"
#include "controller/core/go_format.h"
#include "controller/core/service.h"

namespace ingot::controller::testing {

/// ip parses an address literal; a typo in a test aborts the test loudly.
inline net::IpAddress ip(const std::string& text) {
  auto parsed = net::IpAddress::parse(text);
  BOOST_REQUIRE_MESSAGE(parsed.has_value(), "bad test address " << text);
  return *parsed;
}

inline std::vector<net::IpAddress> ips(const std::vector<std::string>& texts) {
  std::vector<net::IpAddress> out;
  out.reserve(texts.size());
  for (const auto& t : texts) {
    out.push_back(ip(t));
  }
  return out;
}

/// PoolSpec describes a pool compactly; addresses are IPAddressPool spec.addresses entries.
struct PoolSpec {
  std::string name;
  std::vector<std::string> addresses;
  bool auto_assign = true;
  bool avoid_buggy_ips = false;
  std::optional<config::ServiceAllocation> allocation = std::nullopt;
};

inline config::Pool makePool(const PoolSpec& spec) {
  config::Pool pool;
  pool.name = spec.name;
  pool.auto_assign = spec.auto_assign;
  pool.avoid_buggy_ips = spec.avoid_buggy_ips;
  pool.allocation = spec.allocation;
  for (const auto& entry : spec.addresses) {
    auto cidrs = net::parseCidrOrRange(entry);
    BOOST_REQUIRE_MESSAGE(cidrs.has_value(), "bad test pool entry " << entry);
    pool.cidrs.insert(pool.cidrs.end(), cidrs->begin(), cidrs->end());
    pool.entries.push_back(*cidrs);
  }
  return pool;
}

inline std::map<std::string, config::Pool> makePools(const std::vector<PoolSpec>& specs) {
  std::map<std::string, config::Pool> pools;
  for (const auto& s : specs) {
    pools.emplace(s.name, makePool(s));
  }
  return pools;
}

inline config::Config makeConfig(const std::vector<PoolSpec>& specs) {
  config::Config cfg;
  cfg.pools = makePools(specs);
  return cfg;
}

/// allocationIn builds a serviceAllocation: priority, namespaces (a non-empty list is a
/// namespace constraint) and service selectors given as matchLabels maps.
inline config::ServiceAllocation allocationIn(int32_t priority,
                                              std::vector<std::string> namespaces,
                                              std::vector<api::StringMap> selectors = {}) {
  config::ServiceAllocation sa;
  sa.priority = priority;
  sa.namespaces = {namespaces.begin(), namespaces.end()};
  sa.has_namespace_constraint = !namespaces.empty();
  for (auto& s : selectors) {
    api::LabelSelector sel;
    sel.match_labels = std::move(s);
    sa.service_selectors.push_back(std::move(sel));
  }
  return sa;
}

/// parsePorts reads "TCP/80,UDP/53".
inline std::vector<Port> parsePorts(const std::string& text) {
  std::vector<Port> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto slash = item.find('/');
    out.push_back(Port{item.substr(0, slash), std::stoi(item.substr(slash + 1))});
  }
  return out;
}

/// request builds an allocator request for service key "ns/name".
inline ServiceRequest request(const std::string& key,
                              const std::string& ports = "",
                              const std::string& sharing = "",
                              const std::string& backend = "",
                              const api::StringMap& labels = {}) {
  ServiceRequest r;
  r.key = key;
  r.namespace_ = key.substr(0, key.find('/'));
  r.labels = labels;
  r.ports = parsePorts(ports);
  r.sharing = AllocationKey{sharing, backend};
  return r;
}

inline FamilyRequest v4() {
  return FamilyRequest{ServiceFamily::V4, FamilyPolicy::SingleStack};
}
inline FamilyRequest v6() {
  return FamilyRequest{ServiceFamily::V6, FamilyPolicy::SingleStack};
}
inline FamilyRequest dual(FamilyPolicy policy, net::Family primary = net::Family::V4) {
  return FamilyRequest{ServiceFamily::Dual, policy, primary};
}

/// heldBy returns the addresses a service holds, as text, IPv4 first.
inline std::vector<std::string> heldBy(const Allocator& a, const std::string& key) {
  const auto alloc = a.find(key);
  return alloc ? ipStrings(alloc->ips) : std::vector<std::string>{};
}

/// SvcSpec describes a Service compactly for convergence tests.
struct SvcSpec {
  std::string ns = "default";
  std::string name = "svc";
  std::string type = "LoadBalancer";
  std::vector<std::string> cluster_ips = {"10.96.0.10"};
  std::optional<std::string> policy = std::nullopt;
  std::vector<std::string> families = {};
  api::StringMap annotations = {};
  api::StringMap labels = {};
  std::vector<std::string> status = {};
  std::string ports = "TCP/80";
  std::string etp = "Cluster";
  api::StringMap selector = {{"app", "web"}};
  std::string load_balancer_ip = "";
  std::optional<std::string> lb_class = std::nullopt;
};

inline api::Service makeService(const SvcSpec& s) {
  api::Service svc;
  svc.metadata.namespace_ = s.ns;
  svc.metadata.name = s.name;
  svc.metadata.annotations = s.annotations;
  svc.metadata.labels = s.labels;
  svc.spec.type = s.type;
  svc.spec.cluster_ips = s.cluster_ips;
  svc.spec.cluster_ip = s.cluster_ips.empty() ? "" : s.cluster_ips.front();
  svc.spec.ip_family_policy = s.policy;
  svc.spec.ip_families = s.families;
  svc.spec.external_traffic_policy = s.etp;
  svc.spec.selector = s.selector;
  svc.spec.load_balancer_ip = s.load_balancer_ip;
  svc.spec.load_balancer_class = s.lb_class;
  for (const auto& p : parsePorts(s.ports)) {
    api::ServicePort port;
    port.protocol = p.protocol;
    port.port = p.port;
    svc.spec.ports.push_back(port);
  }
  for (const auto& a : s.status) {
    api::LoadBalancerIngress ingress;
    ingress.ip = a;
    svc.status.ingress.push_back(ingress);
  }
  return svc;
}

/// withStatus returns svc with its status replaced by the given addresses.
inline api::Service withStatus(api::Service svc, const std::vector<std::string>& addresses) {
  svc.status.ingress.clear();
  for (const auto& a : addresses) {
    api::LoadBalancerIngress ingress;
    ingress.ip = a;
    svc.status.ingress.push_back(ingress);
  }
  return svc;
}

/// eventText renders each Event as "Type Reason: message" for readable comparisons.
inline std::vector<std::string> eventText(const std::vector<Event>& events) {
  std::vector<std::string> out;
  out.reserve(events.size());
  for (const auto& e : events) {
    out.push_back(std::string(eventTypeName(e.type)) + " " + e.reason + ": " + e.message);
  }
  return out;
}

}  // namespace ingot::controller::testing
