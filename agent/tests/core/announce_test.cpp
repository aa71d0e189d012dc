// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_agent_core
#include "agent/core/announce.h"

#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/core/election.h"
#include "agent/tests/core/endpoint_fixtures.h"

using ingot::agent::BgpDecision;
using ingot::agent::BgpSkip;
using ingot::agent::bgpSkipReason;
using ingot::agent::decideBgp;
namespace api = ingot::api;
namespace config = ingot::config;
namespace net = ingot::net;

using ingot::agent::testing::endpointOn;
using ingot::agent::testing::serviceSlice;

namespace {

net::Cidr cidr(const std::string& s) {
  return *net::Cidr::parse(s);
}

// World is one cluster as node1's agent sees it. Each case edits a copy.
struct World {
  config::Config cfg;
  std::string node_name = "node1";
  std::optional<api::Node> node;
  api::Service service;
  std::vector<api::EndpointSlice> slices;
  ingot::agent::AnnounceOptions options;

  BgpDecision decide() const {
    return decideBgp(cfg, node_name, node ? &*node : nullptr, service, slices, options);
  }
};

config::Peer peer(const std::string& name, const std::string& addr, std::set<std::string> nodes) {
  config::Peer p;
  p.name = name;
  p.my_asn = 64512;
  p.peer_asn = 64513;
  p.address = *net::IpAddress::parse(addr);
  p.nodes = std::move(nodes);
  return p;
}

config::BgpAdvertisement ad(const std::string& name) {
  config::BgpAdvertisement a;
  a.name = name;
  a.pools = {"pool-a"};
  a.nodes = {"node1", "node2"};
  return a;
}

World baseWorld() {
  World w;
  config::Pool a;
  a.name = "pool-a";
  a.cidrs = {cidr("192.168.10.0/24"), cidr("fd00:10::/64")};
  config::Pool b;
  b.name = "pool-b";
  b.cidrs = {cidr("172.16.0.0/24")};
  w.cfg.pools = {{"pool-a", a}, {"pool-b", b}};
  w.cfg.peers = {{"tor1", peer("tor1", "10.0.0.1", {"node1", "node2"})},
                 {"tor2", peer("tor2", "fd00::1", {"node1"})},
                 {"tor3", peer("tor3", "10.0.0.3", {"node2"})}};
  w.cfg.bgp_advertisements = {ad("ad-all")};
  w.node = api::Node{};
  w.node->metadata.name = "node1";
  w.node->metadata.labels = {{"kubernetes.io/hostname", "node1"}};
  w.service.metadata.name = "web";
  w.service.metadata.namespace_ = "default";
  w.service.metadata.labels = {{"app", "web"}};
  w.service.spec.type = "LoadBalancer";
  w.service.spec.external_traffic_policy = "Cluster";
  w.service.status.ingress = {api::LoadBalancerIngress{"192.168.10.5", "", std::nullopt}};
  w.slices = {serviceSlice(
      "web", {endpointOn("10.244.1.5", "node1", true), endpointOn("10.244.2.5", "node2", true)})};
  return w;
}

// summary renders the announcements as "prefix lp=N c=[..] peers=[..]; ..." for comparison.
std::string summary(const BgpDecision& d) {
  std::ostringstream out;
  for (const auto& a : d.announcements) {
    out << a.prefix.toString() << " lp=" << a.local_pref << " c=[";
    for (size_t i = 0; i < a.communities.size(); ++i) {
      const auto& c = a.communities[i];
      out << (i ? "," : "") << (c.large ? "L" : "") << c.a << ":" << c.b;
      if (c.large) {
        out << ":" << c.c;
      }
    }
    out << "] peers=[";
    for (size_t i = 0; i < a.peers.size(); ++i) {
      out << (i ? "," : "") << a.peers[i];
    }
    out << "] from=" << a.advertisement << "; ";
  }
  return out.str();
}

std::string skipText(const std::optional<BgpSkip>& s) {
  return s ? std::string(bgpSkipReason(*s)) : std::string("announce");
}

void setIngress(World& w, std::vector<std::string> ips) {
  w.service.status.ingress.clear();
  for (auto& ip : ips) {
    w.service.status.ingress.push_back(api::LoadBalancerIngress{ip, "", std::nullopt});
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(announce)

BOOST_AUTO_TEST_CASE(every_reason_string_matches_metallb) {
  struct Case {
    BgpSkip skip;
    std::string want;
  };
  const std::vector<Case> cases = {
      {BgpSkip::LoadBalancerClassFiltered, "loadBalancerClassFiltered"},
      {BgpSkip::NotLoadBalancer, "notLoadBalancer"},
      {BgpSkip::NoIpAllocated, "noIPAllocated"},
      {BgpSkip::InvalidIp, "invalidIP"},
      {BgpSkip::IpNotAllowed, "ipNotAllowed"},
      {BgpSkip::NotOwner, "notOwner"},
      {BgpSkip::NoMatchingAdvertisement, "noMatchingAdvertisement"},
      {BgpSkip::ConflictingAdvertisements, "conflictingAdvertisements"},
      {BgpSkip::NodeNetworkUnavailable, "nodeNetworkUnavailable"},
      {BgpSkip::NodeLabeledExcludeBalancers, "nodeLabeledExcludeBalancers"},
      {BgpSkip::NoLocalEndpoints, "noLocalEndpoints"},
      {BgpSkip::NoEndpoints, "noEndpoints"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.want) {
      BOOST_TEST(bgpSkipReason(c.skip) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(decides_each_reason_and_announcement) {
  struct Case {
    std::string desc;
    std::function<void(World&)> edit;
    std::string want_skip;  ///< reason string or "announce"
    std::string want;       ///< summary() of the announcements when announced
  };
  const std::string v4_default = "192.168.10.5/32 lp=0 c=[] peers=[tor1,tor2] from=ad-all; ";
  const std::vector<Case> cases = {
      {"announces to every session of the node", [](World&) {}, "announce", v4_default},
      {"service with a class is ignored by a classless agent",
       [](World& w) { w.service.spec.load_balancer_class = "other"; }, "loadBalancerClassFiltered",
       ""},
      {"service without a class is ignored by an agent with --lb-class",
       [](World& w) { w.options.lb_class = "ingot"; }, "loadBalancerClassFiltered", ""},
      {"service of the agent's class is handled",
       [](World& w) {
         w.options.lb_class = "ingot";
         w.service.spec.load_balancer_class = "ingot";
       },
       "announce", v4_default},
      {"cluster ip service is not a load balancer",
       [](World& w) { w.service.spec.type = "ClusterIP"; }, "notLoadBalancer", ""},
      {"no ingress means no ip allocated", [](World& w) { setIngress(w, {}); }, "noIPAllocated",
       ""},
      {"hostname only ingress is an invalid ip", [](World& w) { setIngress(w, {""}); }, "invalidIP",
       ""},
      {"garbage ingress ip is invalid",
       [](World& w) {
         setIngress(w, {"192.168.10.5", "nope"});
       },
       "invalidIP", ""},
      {"ip outside every pool is not allowed", [](World& w) { setIngress(w, {"10.9.9.9"}); },
       "ipNotAllowed", ""},
      {"ips split across two pools are not allowed",
       [](World& w) {
         setIngress(w, {"192.168.10.5", "172.16.0.5"});
       },
       "ipNotAllowed", ""},
      {"pool without bgp advertisement is not owned",
       [](World& w) { setIngress(w, {"172.16.0.5"}); }, "notOwner", ""},
      {"advertisement not selecting this node is not owned",
       [](World& w) { w.cfg.bgp_advertisements[0].nodes = {"node2"}; }, "notOwner", ""},
      {"not owner is reported before the node conditions",
       [](World& w) {
         w.cfg.bgp_advertisements[0].nodes = {"node2"};
         w.node->conditions = {{"NetworkUnavailable", "True", "", ""}};
       },
       "notOwner", ""},
      {"service selector that does not match gives no matching advertisement",
       [](World& w) {
         w.cfg.bgp_advertisements[0].service_selectors = {api::LabelSelector{{{"app", "db"}}, {}}};
       },
       "noMatchingAdvertisement", ""},
      {"service selector that matches announces",
       [](World& w) {
         w.cfg.bgp_advertisements[0].service_selectors = {api::LabelSelector{{{"app", "db"}}, {}},
                                                          api::LabelSelector{{{"app", "web"}}, {}}};
       },
       "announce", v4_default},
      {"two advertisements with different local pref on one prefix conflict",
       [](World& w) {
         auto b = ad("ad-pref");
         b.local_pref = 200;
         w.cfg.bgp_advertisements.push_back(b);
       },
       "conflictingAdvertisements", ""},
      {"local pref conflict with a peer subset still conflicts",
       [](World& w) {
         auto b = ad("ad-pref");
         b.local_pref = 200;
         b.peers = {"tor1"};
         w.cfg.bgp_advertisements.push_back(b);
       },
       "conflictingAdvertisements", ""},
      {"different local pref with disjoint peers does not conflict",
       [](World& w) {
         w.cfg.bgp_advertisements[0].peers = {"tor2"};
         auto b = ad("ad-pref");
         b.local_pref = 200;
         b.peers = {"tor1"};
         w.cfg.bgp_advertisements.push_back(b);
       },
       "announce",
       "192.168.10.5/32 lp=0 c=[] peers=[tor2] from=ad-all; "
       "192.168.10.5/32 lp=200 c=[] peers=[tor1] from=ad-pref; "},
      {"in a dual-stack pool an IPv4-only service conflicts when only the IPv4 length differs",
       [](World& w) {
         w.cfg.bgp_advertisements[0].local_pref = 300;
         w.cfg.bgp_advertisements[0].service_selectors = {api::LabelSelector{{{"app", "web"}}, {}}};
         auto b = ad("ad-agg");
         b.local_pref = 100;
         b.aggregation_length = 24;
         w.cfg.bgp_advertisements.push_back(b);
       },
       "conflictingAdvertisements", ""},
      {"in a dual-stack pool both aggregation lengths differing makes them compatible",
       [](World& w) {
         auto b = ad("ad-agg");
         b.local_pref = 200;
         b.aggregation_length = 24;
         b.aggregation_length_v6 = 64;
         w.cfg.bgp_advertisements.push_back(b);
       },
       "announce", v4_default + "192.168.10.0/24 lp=200 c=[] peers=[tor1,tor2] from=ad-agg; "},
      {"in an IPv4-only pool a different IPv4 length makes them compatible",
       [](World& w) {
         setIngress(w, {"172.16.0.5"});
         w.cfg.bgp_advertisements[0].pools = {"pool-b"};
         auto b = ad("ad-agg");
         b.pools = {"pool-b"};
         b.local_pref = 200;
         b.aggregation_length = 24;
         w.cfg.bgp_advertisements.push_back(b);
       },
       "announce",
       "172.16.0.5/32 lp=0 c=[] peers=[tor1,tor2] from=ad-all; "
       "172.16.0.0/24 lp=200 c=[] peers=[tor1,tor2] from=ad-agg; "},
      {"advertisement not matching the service does not take part in the conflict check",
       [](World& w) {
         auto b = ad("ad-pref");
         b.local_pref = 200;
         b.service_selectors = {api::LabelSelector{{{"app", "db"}}, {}}};
         w.cfg.bgp_advertisements.push_back(b);
       },
       "announce", v4_default},
      {"network unavailable node does not announce",
       [](World& w) {
         w.node->conditions = {{"NetworkUnavailable", "True", "", ""}};
       },
       "nodeNetworkUnavailable", ""},
      {"network available node announces",
       [](World& w) {
         w.node->conditions = {{"NetworkUnavailable", "False", "", ""}};
       },
       "announce", v4_default},
      {"network unavailable is reported before missing endpoints",
       [](World& w) {
         w.node->conditions = {{"NetworkUnavailable", "True", "", ""}};
         w.slices.clear();
       },
       "nodeNetworkUnavailable", ""},
      {"node with the exclude label does not announce",
       [](World& w) {
         w.node->metadata.labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "";
       },
       "nodeLabeledExcludeBalancers", ""},
      {"exclude label is ignored with --ignore-exclude-lb",
       [](World& w) {
         w.node->metadata.labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "x";
         w.options.ignore_exclude_lb = true;
       },
       "announce", v4_default},
      {"unknown node object applies no node gate", [](World& w) { w.node.reset(); }, "announce",
       v4_default},
      {"local traffic policy without a local endpoint does not announce",
       [](World& w) {
         w.service.spec.external_traffic_policy = "Local";
         w.slices = {serviceSlice("web", {endpointOn("10.244.2.5", "node2", true)})};
       },
       "noLocalEndpoints", ""},
      {"local traffic policy with a local endpoint announces",
       [](World& w) { w.service.spec.external_traffic_policy = "Local"; }, "announce", v4_default},
      {"local traffic policy ignores an unready local endpoint",
       [](World& w) {
         w.service.spec.external_traffic_policy = "Local";
         w.slices = {serviceSlice("web", {endpointOn("10.244.1.5", "node1", false),
                                          endpointOn("10.244.2.5", "node2", true)})};
       },
       "noLocalEndpoints", ""},
      {"no endpoint slices means no endpoints", [](World& w) { w.slices.clear(); }, "noEndpoints",
       ""},
      {"slices of another service are ignored",
       [](World& w) {
         w.slices = {serviceSlice("other", {endpointOn("10.244.1.5", "node1", true)})};
       },
       "noEndpoints", ""},
      {"slices in another namespace are ignored",
       [](World& w) { w.slices[0].metadata.namespace_ = "prod"; }, "noEndpoints", ""},
      {"unready and not serving endpoints are not endpoints",
       [](World& w) {
         w.slices = {serviceSlice("web", {endpointOn("10.244.1.5", "node1", false, false)})};
       },
       "noEndpoints", ""},
      {"terminating but serving endpoint counts",
       [](World& w) {
         w.slices = {serviceSlice("web", {endpointOn("10.244.1.5", "node1", false, true)})};
       },
       "announce", v4_default},
      {"endpoint with no ready condition counts",
       [](World& w) {
         w.slices = {serviceSlice("web", {endpointOn("10.244.1.5", "node1", std::nullopt)})};
       },
       "announce", v4_default},
      {"an address listed ready once and unready once is served (v0.16 rule)",
       [](World& w) {
         w.slices = {serviceSlice("web", {endpointOn("10.244.1.5", "node1", true)}),
                     serviceSlice("web", {endpointOn("10.244.1.5", "node1", false)})};
       },
       "announce", v4_default},
      {"the unready copy listed first does not cancel the ready one either",
       [](World& w) {
         w.service.spec.external_traffic_policy = "Local";
         w.slices = {serviceSlice("web", {endpointOn("10.244.1.5", "node1", false),
                                          endpointOn("10.244.1.5", "node1", true)})};
       },
       "announce", v4_default},
      {"a serving endpoint without addresses is no endpoint",
       [](World& w) {
         w.slices = {serviceSlice("web", {endpointOn("10.244.1.5", "node1", true)})};
         w.slices[0].endpoints[0].addresses.clear();
       },
       "noEndpoints", ""},
      {"a ready local endpoint without addresses is no local endpoint",
       [](World& w) {
         w.service.spec.external_traffic_policy = "Local";
         w.slices[0].endpoints[0].addresses.clear();
       },
       "noLocalEndpoints", ""},
      {"aggregation lengths apply per family of a dual stack service",
       [](World& w) {
         setIngress(w, {"192.168.10.5", "fd00:10::5"});
         w.cfg.bgp_advertisements[0].aggregation_length = 24;
         w.cfg.bgp_advertisements[0].aggregation_length_v6 = 64;
       },
       "announce",
       "192.168.10.0/24 lp=0 c=[] peers=[tor1,tor2] from=ad-all; "
       "fd00:10::/64 lp=0 c=[] peers=[tor1,tor2] from=ad-all; "},
      {"peers list restricts the sessions",
       [](World& w) {
         w.cfg.bgp_advertisements[0].peers = {"tor2", "nonexistent"};
       },
       "announce", "192.168.10.5/32 lp=0 c=[] peers=[tor2] from=ad-all; "},
      {"peers list naming only another node's session announces to nobody",
       [](World& w) { w.cfg.bgp_advertisements[0].peers = {"tor3"}; }, "announce",
       "192.168.10.5/32 lp=0 c=[] peers=[] from=ad-all; "},
      {"communities are sorted and deduplicated with the local pref",
       [](World& w) {
         auto& a = w.cfg.bgp_advertisements[0];
         a.local_pref = 150;
         a.communities = {{true, 1, 2, 3},
                          {false, 64512, 200, 0},
                          {false, 64512, 100, 0},
                          {false, 64512, 200, 0}};
       },
       "announce",
       "192.168.10.5/32 lp=150 c=[64512:100,64512:200,L1:2:3] peers=[tor1,tor2] "
       "from=ad-all; "},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      World w = baseWorld();
      c.edit(w);
      BgpDecision d = w.decide();
      BOOST_TEST(skipText(d.skip) == c.want_skip);
      BOOST_TEST(summary(d) == c.want);
      BOOST_TEST(d.announced() == (c.want_skip == "announce"));
    }
  }
}

BOOST_AUTO_TEST_CASE(decision_reports_pool_and_status_peers) {
  World w = baseWorld();
  w.cfg.bgp_advertisements[0].peers = {"tor2"};
  auto b = ad("ad-two");
  b.peers = {"tor1"};
  w.cfg.bgp_advertisements.push_back(b);
  BgpDecision d = w.decide();
  BOOST_TEST(d.pool == "pool-a");
  BOOST_TEST(d.peers == (std::vector<std::string>{"tor1", "tor2"}),
             boost::test_tools::per_element());
  BOOST_TEST(d.announcements.at(0).service == "default/web");
}

BOOST_AUTO_TEST_CASE(collect_keeps_only_announced_decisions) {
  World w = baseWorld();
  BgpDecision yes = w.decide();
  w.slices.clear();
  BgpDecision no = w.decide();
  BOOST_TEST(!no.announced());
  BOOST_TEST(no.announcements.empty());
  auto all = ingot::agent::collectAnnouncements({yes, no, yes});
  BOOST_TEST(all.size() == 2u);
}

BOOST_AUTO_TEST_CASE(gate_parses_ips_in_ingress_order) {
  World w = baseWorld();
  setIngress(w, {"fd00:10::7", "192.168.10.7"});
  auto gate = ingot::agent::gateService(w.cfg, w.service, w.options);
  BOOST_TEST(!gate.skip.has_value());
  BOOST_TEST(gate.ips.size() == 2u);
  BOOST_TEST(gate.ips[0].toString() == "fd00:10::7");
  BOOST_TEST(gate.pool->name == "pool-a");
}

// Without a BGP backend the agent decides BGP with no peer and no advertisement (nothing is
// announced, notOwner) and every Layer 2 decision stays the one the full configuration gives.
BOOST_AUTO_TEST_CASE(without_bgp_nothing_is_announced_over_bgp_and_layer2_is_unchanged) {
  World w = baseWorld();
  config::L2Advertisement l2;
  l2.name = "l2-all";
  l2.pools = {"pool-a"};
  l2.nodes = {"node1", "node2"};
  w.cfg.l2_advertisements = {l2};
  w.cfg.bfd_profiles["fast"] = config::BfdProfile{};
  const config::Config off = ingot::agent::withoutBgp(w.cfg);
  BOOST_TEST(off.peers.empty());
  BOOST_TEST(off.bgp_advertisements.empty());
  BOOST_TEST(off.bfd_profiles.empty());
  BOOST_TEST((off.pools == w.cfg.pools));
  BOOST_TEST((off.l2_advertisements == w.cfg.l2_advertisements));

  BOOST_TEST(w.decide().announced());
  const BgpDecision d = decideBgp(off, w.node_name, &*w.node, w.service, w.slices, w.options);
  BOOST_TEST(!d.announced());
  BOOST_TEST(skipText(d.skip) == "notOwner");
  BOOST_TEST(d.announcements.empty());

  api::Node node2 = *w.node;
  node2.metadata.name = "node2";
  node2.metadata.labels = {{"kubernetes.io/hostname", "node2"}};
  const auto members = ingot::agent::l2Membership({*w.node, node2}, {"node1", "node2"}, false);
  for (const std::string name : {"node1", "node2"}) {
    ingot::agent::L2Hasher full_hasher;
    ingot::agent::L2Hasher off_hasher;
    const auto full =
        ingot::agent::decideL2(w.cfg, name, w.service, w.slices, members, w.options, full_hasher);
    const auto without =
        ingot::agent::decideL2(off, name, w.service, w.slices, members, w.options, off_hasher);
    BOOST_TEST(full.l2_pool);
    BOOST_TEST(full.election.winner.has_value());
    BOOST_TEST((without.election.winner == full.election.winner));
    BOOST_TEST(without.announced() == full.announced());
  }
}

BOOST_AUTO_TEST_SUITE_END()
