// SPDX-License-Identifier: Apache-2.0
// Builders shared by the Layer 2 election tests: a one-pool cluster as the agents see it.
#pragma once

#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/core/election.h"
#include "common/json/value.h"

namespace ingot::agent::testing {

/// sourceDir is the repository root (CTest sets INGOT_SOURCE_DIR).
inline std::string sourceDir() {
  const char* dir = std::getenv("INGOT_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

/// strings returns a JSON array of strings as a vector.
inline std::vector<std::string> strings(const json::Value& array) {
  std::vector<std::string> out;
  for (const auto& v : array.items()) {
    out.push_back(v.text());
  }
  return out;
}

/// hex writes a digest in lower-case hex.
inline std::string hex(const L2Digest& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : d) {
    out += kHex[b >> 4];
    out += kHex[b & 0xf];
  }
  return out;
}

/// node builds a Node with labels.
inline api::Node node(const std::string& name, api::StringMap labels = {}) {
  api::Node n;
  n.metadata.name = name;
  n.metadata.labels = std::move(labels);
  return n;
}

/// endpoint builds an EndpointSlice endpoint on a node (nullopt = no nodeName).
inline api::Endpoint endpoint(std::optional<std::string> node_name,
                              std::optional<bool> ready = true,
                              std::optional<bool> serving = std::nullopt) {
  api::Endpoint e;
  e.addresses = {"10.244.0.10"};
  e.conditions.ready = ready;
  e.conditions.serving = serving;
  e.node_name = std::move(node_name);
  return e;
}

/// World is one cluster: pool "pool-a" (every address) with the L2
/// advertisements in cfg, Service web/frontend with its EndpointSlice, the Nodes, and the live
/// agents. Each case edits a copy.
struct World {
  config::Config cfg;
  api::Service service;
  api::EndpointSlice slice;
  std::vector<api::Node> nodes;
  std::set<std::string> live;
  AnnounceOptions options;

  L2Membership membership() const { return l2Membership(nodes, live, options.ignore_exclude_lb); }
  /// decide is decideL2 on node_name.
  L2Decision decide(const std::string& node_name, L2Hasher& hasher) const {
    return decideL2(cfg, node_name, service, {slice}, membership(), options, hasher);
  }
  /// elect is the Service's election (as every node computes it).
  L2Election elect(L2Hasher& hasher) const { return decide("", hasher).election; }
};

/// l2Ad builds an L2Advertisement of pool-a selecting the given nodes.
inline config::L2Advertisement l2Ad(const std::string& name, std::set<std::string> nodes) {
  config::L2Advertisement ad;
  ad.name = name;
  ad.pools = {"pool-a"};
  ad.nodes = std::move(nodes);
  return ad;
}

/// worldOf builds a World where every node is live and selected, and the Service (ETP Cluster,
/// first ingress IP ip) has one ready endpoint on the first node.
inline World worldOf(const std::vector<std::string>& names, const std::string& ip) {
  World w;
  config::Pool pool;
  pool.name = "pool-a";
  pool.cidrs = {*net::Cidr::parse("0.0.0.0/0"), *net::Cidr::parse("::/0")};
  w.cfg.pools["pool-a"] = pool;
  w.cfg.l2_advertisements.push_back(l2Ad("l2-all", {names.begin(), names.end()}));
  w.service.metadata.namespace_ = "web";
  w.service.metadata.name = "frontend";
  w.service.metadata.labels = {{"app", "frontend"}};
  w.service.spec.type = "LoadBalancer";
  w.service.spec.external_traffic_policy = "Cluster";
  w.service.status.ingress.push_back({ip, "", std::nullopt});
  w.slice.metadata.namespace_ = "web";
  w.slice.metadata.name = "frontend-abcde";
  w.slice.metadata.labels = {{"kubernetes.io/service-name", "frontend"}};
  w.slice.endpoints.push_back(endpoint(names.empty() ? std::nullopt : std::optional(names[0])));
  for (const auto& n : names) {
    w.nodes.push_back(node(n));
    w.live.insert(n);
  }
  return w;
}

}  // namespace ingot::agent::testing
