// SPDX-License-Identifier: Apache-2.0
// Realistic, fully populated objects of every kind, valid under validateObject. Tests copy and
// mutate them.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "api/object.h"

namespace ingot::api::testing {

inline ObjectMeta meta(const std::string& name, const std::string& ns = "metallb-system") {
  ObjectMeta m;
  m.name = name;
  m.namespace_ = ns;
  m.uid = "0b5f8c3e-6a1d-4c2e-9f00-" + std::string(12 - std::min<size_t>(12, name.size()), '0') +
          name.substr(0, 12);
  m.resource_version = "12345";
  m.generation = 3;
  m.creation_timestamp = "2026-01-02T03:04:05Z";
  m.labels = {{"app.kubernetes.io/part-of", "ingot"}, {"zone", "a"}};
  m.annotations = {{"note", "multi\nline \"quoted\" \xc3\xa9"}};
  return m;
}

inline LabelSelector selector(const std::string& key, const std::string& value) {
  LabelSelector s;
  s.match_labels = {{key, value}};
  s.match_expressions = {{"kubernetes.io/os", "In", {"linux"}}, {"spot", "DoesNotExist", {}}};
  return s;
}

inline Duration duration(int64_t ns, const std::string& text) {
  return Duration{ns, text};
}

inline IPAddressPool pool() {
  IPAddressPool p;
  p.metadata = meta("production");
  p.spec.addresses = {"192.168.10.0/24", "192.168.9.1-192.168.9.5", "fc00:f853:ccd:e799::/124"};
  p.spec.auto_assign = false;
  p.spec.avoid_buggy_ips = true;
  ServiceAllocation a;
  a.priority = 50;
  a.namespaces = {"web", "api"};
  a.namespace_selectors = {selector("team", "blue")};
  a.service_selectors = {selector("exposed", "true")};
  p.spec.service_allocation = a;
  p.status = IPAddressPoolStatus{3, 1, 256, 15};
  return p;
}

inline L2Advertisement l2Advertisement() {
  L2Advertisement a;
  a.metadata = meta("l2-east");
  a.spec.ip_address_pools = {"production", "staging"};
  a.spec.ip_address_pool_selectors = {selector("pool-tier", "gold")};
  a.spec.node_selectors = {selector("kubernetes.io/hostname", "worker-1")};
  a.spec.interfaces = {"eth0", "bond0.100"};
  a.spec.service_selectors = {selector("l2", "yes")};
  a.spec.preferred_node_selectors = {{100, selector("rack", "r1")}, {1, LabelSelector{}}};
  return a;
}

inline BGPAdvertisement bgpAdvertisement() {
  BGPAdvertisement a;
  a.metadata = meta("bgp-ads");
  a.spec.aggregation_length = 24;
  a.spec.aggregation_length_v6 = 64;
  a.spec.local_pref = 4294967295u;
  a.spec.communities = {"65535:65282", "large:4294967295:1:2", "no-export"};
  a.spec.ip_address_pools = {"production"};
  a.spec.ip_address_pool_selectors = {selector("pool-tier", "gold")};
  a.spec.node_selectors = {selector("bgp", "on")};
  a.spec.peers = {"tor-a", "tor-b"};
  return a;
}

inline BGPPeer bgpPeer() {
  BGPPeer p;
  p.metadata = meta("tor-a");
  auto& s = p.spec;
  s.my_asn = 4200000000u;
  s.peer_asn = 4294967295u;
  s.local_asn = 65001;
  s.peer_address = "fd00::1";
  s.source_address = "fd00::10";
  s.peer_port = 1179;
  s.hold_time = duration(90000000000, "1m30s");
  s.keepalive_time = duration(30000000000, "30s");
  s.connect_time = duration(5000000000, "5000ms");
  s.router_id = "10.0.0.1";
  s.node_selectors = {selector("bgp", "on")};
  s.password_secret = SecretReference{"bgp-auth", "metallb-system"};
  s.bfd_profile = "fast";
  s.enable_graceful_restart = true;
  s.ebgp_multi_hop = true;
  s.vrf = "red";
  s.disable_mp = true;
  s.dual_stack_address_family = true;
  return p;
}

inline BGPPeerV1beta1 bgpPeerV1beta1() {
  BGPPeerV1beta1 p;
  p.metadata = meta("old-peer");
  auto& s = p.spec;
  s.my_asn = 64512;
  s.peer_asn = 64513;
  s.peer_address = "172.18.0.5";
  s.source_address = "172.18.0.2";
  s.peer_port = 0;
  s.hold_time = duration(180000000000, "180s");
  s.keepalive_time = duration(60000000000, "60s");
  s.router_id = "172.18.0.2";
  s.node_selectors = {selector("bgp", "on")};
  s.password = "md5-secret";
  s.bfd_profile = "slow";
  s.ebgp_multi_hop = true;
  return p;
}

inline BFDProfile bfdProfile() {
  BFDProfile p;
  p.metadata = meta("fast");
  p.spec = BFDProfileSpec{10, 60000, 255, 50, true, false, 254};
  return p;
}

inline Community community() {
  Community c;
  c.metadata = meta("communities");
  c.communities = {{"no-export", "65535:65281"}, {"vpn", "large:64512:1:2"}};
  return c;
}

inline ServiceL2Status serviceL2Status() {
  ServiceL2Status s;
  s.metadata = meta("");
  s.metadata.generate_name = "l2-";
  s.metadata.labels = {{"metallb.io/node", "worker-1"}, {"metallb.io/service-name", "web"}};
  s.metadata.owner_references = {
      {"v1", "Pod", "speaker-x7k2p", "2d6c8a1e-0000-4000-8000-000000000001", true, false}};
  s.status = {"worker-1", "web", "default", {"eth0", "eth1"}};
  return s;
}

inline ServiceBGPStatus serviceBgpStatus() {
  ServiceBGPStatus s;
  s.metadata = meta("bgp-abcde");
  s.status = {"worker-2", "api", "prod", {"tor-a", "tor-b"}};
  return s;
}

inline ConfigurationState configurationState() {
  ConfigurationState c;
  c.metadata = meta("speaker-worker-1");
  c.metadata.finalizers = {"metallb.io/cleanup"};
  c.status.conditions = {{"configReconcilerValid", "False", "ConfigurationError",
                          "configuration error: pool has no prefixes defined",
                          "2026-01-02T03:04:05Z", 7}};
  c.status.result = "Invalid";
  c.status.error_summary = "pool has no prefixes defined";
  return c;
}

inline FRRConfiguration frrConfiguration() {
  FRRConfiguration f;
  f.metadata = meta("metallb-worker-1", "frr-k8s-system");
  FrrRouter r;
  r.asn = 64512;
  r.id = "10.0.0.1";
  r.prefixes = {"192.168.10.0/24", "192.168.10.7/32", "fc00::/64"};
  FrrNeighbor n;
  n.asn = 64513;
  n.address = "172.18.0.5";
  n.source_address = "172.18.0.2";
  n.port = 1179;
  n.password_secret = SecretReference{"bgp-auth", "frr-k8s-system"};
  n.hold_time = duration(90000000000, "90s");
  n.keepalive_time = duration(30000000000, "30s");
  n.connect_time = duration(10000000000, "10s");
  n.ebgp_multi_hop = true;
  n.bfd_profile = "fast";
  n.enable_graceful_restart = true;
  n.local_asn = 65000;
  n.to_advertise.allowed_mode = "filtered";
  n.to_advertise.allowed_prefixes = {"192.168.10.0/24", "192.168.10.7/32"};
  n.to_advertise.with_local_pref = {{200, {"192.168.10.0/24"}}};
  n.to_advertise.with_community = {{"65535:65282", {"192.168.10.7/32"}}};
  n.to_receive.allowed_mode = "filtered";
  n.to_receive.allowed_prefixes = {{"10.0.0.0/8", 32, 24}, {"fd00::/48", std::nullopt, 64}};
  n.dual_stack_address_family = true;
  r.neighbors = {n};
  FrrRouter red;
  red.asn = 64512;
  red.vrf = "red";
  red.prefixes = {"10.10.0.0/16"};
  red.imports = {"default"};
  f.spec.routers = {r, red};
  f.spec.bfd_profiles = {{"fast", 10, 10, 3, 50, true, false, 1}};
  f.spec.raw = FrrRawConfig{10, "router bgp 64512\n bgp graceful-restart\n"};
  f.spec.node_selector.match_labels = {{"kubernetes.io/hostname", "worker-1"}};
  return f;
}

inline Service service() {
  Service s;
  s.metadata = meta("web", "default");
  s.metadata.annotations = {{"metallb.io/address-pool", "production"},
                            {"metallb.io/allow-shared-ip", "web"}};
  auto& spec = s.spec;
  spec.type = "LoadBalancer";
  spec.cluster_ip = "10.96.0.10";
  spec.cluster_ips = {"10.96.0.10", "fd00:10:96::a"};
  spec.ip_families = {"IPv4", "IPv6"};
  spec.ip_family_policy = "PreferDualStack";
  spec.load_balancer_ip = "";
  spec.load_balancer_class = "metallb.io/metallb";
  spec.external_traffic_policy = "Local";
  spec.selector = {{"app", "web"}};
  spec.ports = {{"http", "TCP", 80, "8080", 30080},
                {"dns", "UDP", 53, "dns", 0},
                {"padded", "SCTP", 9000, "09000", 0}};
  s.status.ingress = {{"192.168.10.3", "", "VIP"}, {"fc00:f853:ccd:e799::3", "", std::nullopt}};
  return s;
}

inline EndpointSlice endpointSlice() {
  EndpointSlice e;
  e.metadata = meta("web-abc12", "default");
  e.metadata.labels = {{"kubernetes.io/service-name", "web"}};
  e.address_type = "IPv4";
  e.endpoints = {{{"10.244.1.5"}, {true, true, false}, "worker-1"},
                 {{"10.244.2.7", "10.244.2.8"}, {std::nullopt, false, true}, std::nullopt}};
  e.ports = {{"http", "TCP", 8080}, {std::nullopt, std::nullopt, std::nullopt}};
  return e;
}

inline Node node() {
  Node n;
  n.metadata = meta("worker-1", "");
  n.unschedulable = true;
  n.taints = {{"node.kubernetes.io/unschedulable", "", "NoSchedule"}};
  n.conditions = {{"Ready", "True", "KubeletReady", "kubelet is posting ready status"},
                  {"NetworkUnavailable", "False", "", ""}};
  n.addresses = {{"InternalIP", "172.18.0.2"}, {"Hostname", "worker-1"}};
  return n;
}

inline Namespace namespaceObject() {
  Namespace n;
  n.metadata = meta("web", "");
  n.metadata.labels = {{"kubernetes.io/metadata.name", "web"}, {"team", "blue"}};
  return n;
}

inline Secret secret() {
  Secret s;
  s.metadata = meta("bgp-auth");
  s.type = "kubernetes.io/basic-auth";
  s.data = {{"password", "czNjcjN0"}};
  s.string_data = {{"username", "admin"}};
  return s;
}

/// allObjects returns one fully populated object of every kind.
inline std::vector<AnyObject> allObjects() {
  return {pool(),
          l2Advertisement(),
          bgpAdvertisement(),
          bgpPeer(),
          bgpPeerV1beta1(),
          bfdProfile(),
          community(),
          serviceL2Status(),
          serviceBgpStatus(),
          configurationState(),
          frrConfiguration(),
          service(),
          endpointSlice(),
          node(),
          namespaceObject(),
          secret()};
}

}  // namespace ingot::api::testing
