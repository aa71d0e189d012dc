// SPDX-License-Identifier: Apache-2.0
// Small builders for Config values and Kubernetes objects used by the frrgen tests; their merge.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "api/frrk8s.h"
#include "api/types.h"
#include "common/net/ip.h"
#include "config/config.h"
#include "frrgen/merge.h"

namespace ingot::frrgen::testing {

inline net::IpAddress ip(const std::string& s) {
  return *net::IpAddress::parse(s);
}
inline net::Cidr cidr(const std::string& s) {
  return *net::Cidr::parse(s);
}

inline config::Peer peer(const std::string& name,
                         const std::string& address,
                         uint32_t my_asn,
                         uint32_t peer_asn,
                         std::set<std::string> nodes = {"node1", "node2"}) {
  config::Peer p;
  p.name = name;
  p.my_asn = my_asn;
  p.peer_asn = peer_asn;
  if (!address.empty()) p.address = ip(address);
  p.nodes = std::move(nodes);
  return p;
}

inline config::Pool pool(const std::string& name, const std::vector<std::string>& cidrs) {
  config::Pool p;
  p.name = name;
  for (const auto& c : cidrs) {
    p.cidrs.push_back(cidr(c));
    p.entries.push_back({cidr(c)});
  }
  return p;
}

inline config::BgpAdvertisement ad(const std::string& name,
                                   std::set<std::string> pools,
                                   std::set<std::string> nodes = {"node1", "node2"}) {
  config::BgpAdvertisement a;
  a.name = name;
  a.pools = std::move(pools);
  a.nodes = std::move(nodes);
  return a;
}

inline config::BgpCommunity community(uint32_t a, uint32_t b) {
  return {false, a, b, 0};
}
inline config::BgpCommunity large(uint32_t a, uint32_t b, uint32_t c) {
  return {true, a, b, c};
}

inline api::Service service(const std::string& name,
                            const std::vector<std::string>& ips,
                            api::StringMap labels = {}) {
  api::Service s;
  s.metadata.name = name;
  s.metadata.namespace_ = "default";
  s.metadata.labels = std::move(labels);
  s.spec.type = "LoadBalancer";
  s.spec.external_traffic_policy = "Cluster";
  for (const auto& i : ips) s.status.ingress.push_back({i, "", std::nullopt});
  return s;
}

inline api::EndpointSlice readySlice(const std::string& service, const std::string& node) {
  api::EndpointSlice s;
  s.metadata.name = service + "-" + node;
  s.metadata.namespace_ = "default";
  s.metadata.labels = {{"kubernetes.io/service-name", service}};
  api::Endpoint e;
  e.addresses = {"10.244.0." + std::to_string(service.size())};
  e.node_name = node;
  e.conditions.ready = true;
  s.endpoints.push_back(e);
  return s;
}

inline api::Node node(const std::string& name) {
  api::Node n;
  n.metadata.name = name;
  n.metadata.labels = {{"kubernetes.io/hostname", name}};
  return n;
}

inline api::Duration apiSeconds(int64_t s) {
  return {s * 1'000'000'000, std::to_string(s) + "s"};
}

inline api::Secret basicAuth(const std::string& name, const std::string& password_b64) {
  api::Secret s;
  s.metadata.name = name;
  s.metadata.namespace_ = "metallb-system";
  s.type = "kubernetes.io/basic-auth";
  s.data = {{"password", password_b64}};
  return s;
}

/// mustMerge returns the merged model of the objects; a merge error fails the test.
inline Model mustMerge(const std::vector<api::FRRConfiguration>& configs,
                       const std::vector<api::Secret>& secrets = {}) {
  auto m = merge(configs, secrets);
  BOOST_TEST_REQUIRE(m.has_value(), (m ? "" : m.error().message));
  return *m;
}

}  // namespace ingot::frrgen::testing
