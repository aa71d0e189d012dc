// SPDX-License-Identifier: Apache-2.0
// End-to-end golden scenarios: Config + Services → agent announce → build (golden
// build.<case>.golden, the FRRConfiguration as YAML) → select + merge with any user objects →
// YANG validation → render (golden render.<case>.golden, the frr.conf, also fed to real FRR by
// ingot_frrgen_frr_test). Together they cover every BGPPeer and BGPAdvertisement option.
#include <chrono>
#include <functional>

#include <boost/test/unit_test.hpp>

#include "agent/core/announce.h"
#include "frrgen/build.h"
#include "frrgen/compact.h"
#include "frrgen/merge.h"
#include "frrgen/render.h"
#include "frrgen/tests/fixtures.h"
#include "frrgen/tests/golden.h"
#include "frrgen/yaml.h"
#include "frrgen/yang_validate.h"

namespace ingot::frrgen {
namespace {

using namespace ingot::frrgen::testing;
using std::chrono::seconds;

struct Scenario {
  config::Config cfg;
  std::string node = "node1";
  std::vector<api::Node> nodes = {testing::node("node1"), testing::node("node2")};
  std::vector<api::Service> services;
  std::vector<api::EndpointSlice> slices;
  BuildOptions build;
  std::vector<api::FRRConfiguration> user_configs;  ///< merged with the built one
  std::vector<api::Secret> secrets;                 ///< of the frr-k8s namespace
  RenderOptions render;
};

// basic is one eBGP IPv4 peer, one pool with a v4 and a v6 range, one default advertisement.
Scenario basic() {
  Scenario s;
  s.cfg.pools = {{"pool-a", pool("pool-a", {"192.168.10.0/24", "fd00:10::/64"})}};
  auto p = peer("tor", "10.0.0.1", 64512, 64513);
  p.router_id = ip("10.0.0.11");
  s.cfg.peers = {{"tor", p}};
  s.cfg.bgp_advertisements = {ad("default", {"pool-a"})};
  s.services = {service("web", {"192.168.10.5"})};
  s.slices = {readySlice("web", "node1")};
  return s;
}

Scenario ibgpLocalPrefCommunities() {
  Scenario s = basic();
  s.cfg.peers.at("tor").peer_asn = 64512;  // iBGP: LOCAL_PREF is sent
  auto& a = s.cfg.bgp_advertisements[0];
  a.local_pref = 200;
  a.communities = {community(64512, 100), large(64512, 1, 2)};
  s.services.push_back(service("api", {"192.168.10.6"}));
  s.slices.push_back(readySlice("api", "node2"));
  s.services.push_back(service("idle", {"192.168.10.7"}));  // no endpoints: not announced
  return s;
}

Scenario multihopTimersPortSource() {
  Scenario s = basic();
  auto& p = s.cfg.peers.at("tor");
  p.ebgp_multi_hop = true;
  p.hold_time = seconds(90);
  p.keepalive_time = seconds(30);
  p.connect_time = seconds(5);
  p.port = 1179;
  p.source_address = ip("10.0.0.11");
  p.password = "s3cr3t";
  return s;
}

Scenario gracefulRestartBfd() {
  Scenario s = basic();
  auto& p = s.cfg.peers.at("tor");
  p.enable_graceful_restart = true;
  p.bfd_profile = "fast";
  s.cfg.bfd_profiles = {
      {"fast", {"fast", 100, 120, 5, 60, true, true, 200}},
      {"defaults", {"defaults", 300, 300, 3, std::nullopt, false, false, std::nullopt}},
      {"unused",
       {"unused", std::nullopt, std::nullopt, std::nullopt, std::nullopt, false, false,
        std::nullopt}},
  };
  return s;
}

Scenario vrf() {
  Scenario s = basic();
  auto red = peer("tor-red", "10.1.0.1", 64512, 64520);
  red.vrf = "red";
  red.router_id = ip("10.0.0.11");
  s.cfg.peers.emplace("tor-red", red);
  s.services.push_back(service("db", {"192.168.10.9"}));
  s.slices.push_back(readySlice("db", "node1"));
  return s;
}

Scenario unnumberedDynamicAsn() {
  Scenario s = basic();
  auto p = peer("fabric", "", 64512, 0);
  p.interface = "eth1";
  p.dynamic_asn = config::DynamicAsn::External;
  s.cfg.peers = {{"fabric", p}};
  s.services = {service("web", {"192.168.10.5", "fd00:10::5"})};
  return s;
}

Scenario localAsnDynamicInternal() {
  Scenario s = basic();
  s.cfg.peers.at("tor").local_asn = 65000;
  auto rr = peer("route-reflector", "10.0.0.2", 64512, 0);
  rr.dynamic_asn = config::DynamicAsn::Internal;
  rr.router_id = ip("10.0.0.11");  // MetalLB requires one router id per node
  s.cfg.peers.emplace("route-reflector", rr);
  return s;
}

// passwordSecret: the speaker and frr-k8s share a namespace, so the reference passes through
// and frr-k8s (merge) resolves it from the Secret.
Scenario passwordSecretPassthrough() {
  Scenario s = basic();
  auto& p = s.cfg.peers.at("tor");
  p.password_secret = api::SecretReference{"bgp-auth", "metallb-system"};
  p.secret_password = "from-secret";
  s.secrets = {basicAuth("bgp-auth", "ZnJvbS1zZWNyZXQ=")};  // "from-secret"
  return s;
}

// frr-k8s in its own namespace without passthrough: the speaker writes the plain password.
Scenario passwordSecretConverted() {
  Scenario s = passwordSecretPassthrough();
  s.build.frrk8s_namespace = "frr-k8s-system";
  s.secrets.clear();
  return s;
}

Scenario aggregationIpv6() {
  Scenario s = basic();
  auto v6 = peer("tor6", "fd00::1", 64512, 64513);
  v6.router_id = ip("10.0.0.11");
  s.cfg.peers.emplace("tor6", v6);
  auto& a = s.cfg.bgp_advertisements[0];
  a.aggregation_length = 28;
  a.aggregation_length_v6 = 120;
  s.services = {service("web", {"192.168.10.5", "fd00:10::5"}),
                service("api", {"192.168.10.20", "fd00:10::1:5"})};
  s.slices.push_back(readySlice("api", "node1"));
  return s;
}

Scenario peersSelection() {
  Scenario s = basic();
  auto b = peer("tor-b", "10.0.0.2", 64512, 64513);
  b.router_id = ip("10.0.0.11");
  s.cfg.peers.emplace("tor-b", b);
  auto only_b = ad("only-b", {"pool-a"});
  only_b.peers = {"tor-b"};
  only_b.communities = {community(65000, 1)};
  s.cfg.bgp_advertisements.push_back(only_b);
  return s;
}

Scenario nodeSelectors() {
  Scenario s = basic();
  s.cfg.bgp_advertisements[0].nodes = {"node2"};
  auto rack1 = ad("rack1", {"pool-a"}, {"node1"});
  rack1.communities = {community(65000, 11)};
  s.cfg.bgp_advertisements.push_back(rack1);
  auto other = peer("tor-rack2", "10.0.2.1", 64512, 64513, {"node2"});  // not this node's session
  s.cfg.peers.emplace("tor-rack2", other);
  return s;
}

Scenario serviceSelectors() {
  Scenario s = basic();
  auto web = ad("web-only", {"pool-a"});
  web.service_selectors = {api::LabelSelector{{{"app", "web"}}, {}}};
  web.communities = {community(65000, 80)};
  s.cfg.bgp_advertisements.push_back(web);
  s.services = {service("web", {"192.168.10.5"}, {{"app", "web"}}),
                service("db", {"192.168.10.6"}, {{"app", "db"}})};
  s.slices.push_back(readySlice("db", "node1"));
  return s;
}

Scenario dualStackAddressFamily() {
  Scenario s = aggregationIpv6();
  s.cfg.bgp_advertisements[0].aggregation_length = 32;
  s.cfg.bgp_advertisements[0].aggregation_length_v6 = 128;
  s.cfg.peers.at("tor").dual_stack_address_family = true;
  return s;
}

Scenario noSessions() {
  Scenario s = gracefulRestartBfd();
  s.cfg.peers.clear();
  return s;
}

// A user FRRConfiguration extends MetalLB's: accepts routes from the ToR, adds a monitoring
// neighbor with receive selectors and a raw snippet. Objects in other namespaces or for other
// nodes are ignored.
Scenario mergedWithUserConfig() {
  Scenario s = basic();
  api::FRRConfiguration user;
  user.metadata.name = "receive-from-tor";
  user.metadata.namespace_ = "metallb-system";
  api::FrrRouter r;
  r.asn = 64512;
  api::FrrNeighbor tor;
  tor.address = "10.0.0.1";
  tor.asn = 64513;
  tor.to_receive.allowed_mode = "all";
  api::FrrNeighbor mon;
  mon.address = "10.0.0.99";
  mon.asn = 64599;
  mon.to_receive.allowed_prefixes = {{"10.100.0.0/16", 24, 20}, {"fd00:99::/48", 64, std::nullopt}};
  r.neighbors = {tor, mon};
  user.spec.routers = {r};
  user.spec.raw = api::FrrRawConfig{10, "ip route 10.200.0.0/16 blackhole"};
  api::FRRConfiguration elsewhere = user;
  elsewhere.metadata.namespace_ = "other";
  api::FRRConfiguration other_node;
  other_node.metadata.name = "node2-only";
  other_node.metadata.namespace_ = "metallb-system";
  other_node.spec.node_selector.match_labels = {{"kubernetes.io/hostname", "node2"}};
  other_node.spec.raw = api::FrrRawConfig{0, "! node2 only"};
  s.user_configs = {user, elsewhere, other_node};
  return s;
}

// changeBefore / changeAfter are one change of a node with 20 services: the first service goes
// away, a new one sorts first, and one service gains a community. frr-reload.py must touch only
// the lines of those prefixes (checked by ingot_frrgen_frr_test).
Scenario changeBase(int first, int last) {
  Scenario s = basic();
  s.services.clear();
  s.slices.clear();
  for (int i = first; i <= last; ++i) {
    const std::string name = "svc" + std::to_string(i);
    s.services.push_back(
        service(name, {"192.168.10." + std::to_string(i)}, {{"idx", std::to_string(i)}}));
    s.slices.push_back(readySlice(name, "node1"));
  }
  return s;
}
Scenario changeBefore() {
  return changeBase(10, 29);
}
Scenario changeAfter() {
  Scenario s = changeBase(11, 29);
  s.services.push_back(service("svc5", {"192.168.10.5"}, {{"idx", "5"}}));
  s.slices.push_back(readySlice("svc5", "node1"));
  auto tagged = ad("tagged", {"pool-a"});
  tagged.service_selectors = {api::LabelSelector{{{"idx", "20"}}, {}}};
  tagged.communities = {community(65000, 20)};
  s.cfg.bgp_advertisements.push_back(tagged);
  return s;
}

std::vector<agent::Announcement> announce(const Scenario& s) {
  const api::Node* me = nullptr;
  for (const auto& n : s.nodes) {
    if (n.metadata.name == s.node) me = &n;
  }
  std::vector<agent::BgpDecision> decisions;
  for (const auto& svc : s.services) {
    decisions.push_back(agent::decideBgp(s.cfg, s.node, me, svc, s.slices, {}));
  }
  return agent::collectAnnouncements(decisions);
}

const YangValidator& scenarioValidator() {
  static YangValidatorPtr v = [] {
    auto r = YangValidator::load(kFrrYangDir);
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    return std::move(*r);
  }();
  return *v;
}

void runScenario(const std::string& name, const Scenario& s) {
  auto built = build(s.cfg, s.node, announce(s), s.build);
  BOOST_TEST_REQUIRE(built.has_value(), (built ? "" : built.error().message));
  testing::checkGolden("build", name, toYaml(*built));
  std::vector<api::FRRConfiguration> all = s.user_configs;
  all.insert(all.begin(), *built);
  auto selected =
      selectForNode(all, s.build.frrk8s_namespace, testing::node(s.node).metadata.labels);
  BOOST_TEST_REQUIRE(selected.has_value());
  auto model = merge(*selected, s.secrets);
  BOOST_TEST_REQUIRE(model.has_value(), (model ? "" : model.error().message));
  auto valid = scenarioValidator().validate(*model);
  BOOST_TEST(valid.has_value(), (valid ? "" : valid.error().message));
  auto text = render(*model, s.render);
  BOOST_TEST_REQUIRE(text.has_value(), (text ? "" : text.error().message));
  testing::checkGolden("render", name, *text);
  auto compacted = compact(*model);
  BOOST_TEST_REQUIRE(compacted.has_value(), (compacted ? "" : compacted.error().message));
  auto compact_text = renderCompact(*compacted, s.render);
  BOOST_TEST_REQUIRE(compact_text.has_value());
  testing::checkGolden("compact", name, *compact_text);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scenario)

BOOST_AUTO_TEST_CASE(every_peer_and_advertisement_option_matches_its_goldens) {
  struct Case {
    std::string name;
    std::function<Scenario()> make;
  };
  const std::vector<Case> cases = {
      {"ebgp_ipv4", basic},
      {"ibgp_localpref_communities", ibgpLocalPrefCommunities},
      {"multihop_timers_port_source_password", multihopTimersPortSource},
      {"graceful_restart_bfd", gracefulRestartBfd},
      {"vrf", vrf},
      {"unnumbered_dynamic_asn", unnumberedDynamicAsn},
      {"local_asn_dynamic_internal", localAsnDynamicInternal},
      {"password_secret_passthrough", passwordSecretPassthrough},
      {"password_secret_converted", passwordSecretConverted},
      {"aggregation_ipv6", aggregationIpv6},
      {"peers_selection", peersSelection},
      {"node_selectors", nodeSelectors},
      {"service_selectors", serviceSelectors},
      {"dual_stack_address_family", dualStackAddressFamily},
      {"no_sessions", noSessions},
      {"merged_with_user_config", mergedWithUserConfig},
      {"change_before", changeBefore},
      {"change_after", changeAfter},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      runScenario(c.name, c.make());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
