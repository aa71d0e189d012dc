// SPDX-License-Identifier: Apache-2.0
#include "frrgen/build.h"

#include <chrono>

#include <boost/test/unit_test.hpp>

#include "frrgen/tests/fixtures.h"

namespace ingot::frrgen {
namespace {

using namespace ingot::frrgen::testing;

config::Announcement announce(const std::string& prefix,
                              std::vector<std::string> peers,
                              uint32_t local_pref = 0,
                              std::vector<config::BgpCommunity> communities = {}) {
  config::Announcement a;
  a.prefix = cidr(prefix);
  a.peers = std::move(peers);
  a.local_pref = local_pref;
  a.communities = std::move(communities);
  return a;
}

api::FRRConfiguration mustBuild(const config::Config& cfg,
                                const std::vector<config::Announcement>& anns,
                                const BuildOptions& options = {}) {
  auto r = build(cfg, "node1", anns, options);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
  return *r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(build_suite)

BOOST_AUTO_TEST_CASE(go_duration_text_matches_go) {
  struct Case {
    int64_t ns;
    std::string want;
  };
  const std::vector<Case> cases = {
      {0, "0s"},
      {1, "1ns"},
      {1'500, "1.5\u00b5s"},
      {1'000'000, "1ms"},
      {1'500'000, "1.5ms"},
      {100'000'000, "100ms"},
      {999'999'999, "999.999999ms"},
      {1'000'000'000, "1s"},
      {1'500'000'000, "1.5s"},
      {90'000'000'000, "1m30s"},
      {3'600'000'000'000, "1h0m0s"},
      {3'661'000'000'000, "1h1m1s"},
      {-90'000'000'000, "-1m30s"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.want) {
      BOOST_TEST(goDurationText(c.ns) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(community_text_uses_frrk8s_spelling) {
  BOOST_TEST(communityText(community(64512, 100)) == "64512:100");
  BOOST_TEST(communityText(large(4294967295u, 0, 7)) == "large:4294967295:0:7");
  BOOST_TEST(configName("worker-1") == "metallb-worker-1");
}

BOOST_AUTO_TEST_CASE(object_identity_and_node_selector) {
  config::Config cfg;
  BuildOptions o;
  o.frrk8s_namespace = "frr-k8s-system";
  auto c = mustBuild(cfg, {}, o);
  BOOST_TEST(c.metadata.name == "metallb-node1");
  BOOST_TEST(c.metadata.namespace_ == "frr-k8s-system");
  BOOST_TEST(c.spec.node_selector.match_labels.at("kubernetes.io/hostname") == "node1");
  BOOST_TEST(c.spec.routers.empty());
  BOOST_TEST(!c.spec.raw.has_value());
}

BOOST_AUTO_TEST_CASE(routers_are_keyed_and_sorted_by_asn_router_id_and_vrf) {
  config::Config cfg;
  auto a = peer("a", "10.0.0.1", 64512, 64513);
  auto b = peer("b", "10.0.0.2", 4200000000u, 64513);
  auto c = peer("c", "10.0.0.3", 64512, 64513);
  c.vrf = "blue";
  auto d = peer("d", "10.0.0.4", 64512, 64514);  // same router as a
  cfg.peers = {{"a", a}, {"b", b}, {"c", c}, {"d", d}};
  auto out = mustBuild(cfg, {});
  // String order of "myASN@routerID@vrf": "4200000000@@" < "64512@@" < "64512@@blue".
  BOOST_TEST_REQUIRE(out.spec.routers.size() == 3u);
  BOOST_TEST(out.spec.routers[0].asn == 4200000000u);
  BOOST_TEST(out.spec.routers[1].vrf == "");
  BOOST_TEST(out.spec.routers[1].neighbors.size() == 2u);
  BOOST_TEST(out.spec.routers[2].vrf == "blue");
}

BOOST_AUTO_TEST_CASE(neighbors_are_sorted_by_session_key) {
  config::Config cfg;
  auto dyn = peer("dyn", "10.0.0.1", 64512, 0);
  dyn.dynamic_asn = config::DynamicAsn::External;
  cfg.peers = {{"x", peer("x", "10.0.0.9", 64512, 64600)},
               {"y", peer("y", "10.0.0.2", 64512, 64513)},
               {"dyn", dyn}};
  auto out = mustBuild(cfg, {});
  const auto& n = out.spec.routers.at(0).neighbors;
  BOOST_TEST_REQUIRE(n.size() == 3u);
  BOOST_TEST(n[0].address == "10.0.0.2");  // "64513@..."
  BOOST_TEST(n[1].address == "10.0.0.9");  // "64600@..."
  BOOST_TEST(n[2].address == "10.0.0.1");  // "external@..."
  BOOST_TEST(n[2].dynamic_asn == "external");
  BOOST_TEST(!n[2].asn.has_value());
}

BOOST_AUTO_TEST_CASE(only_sessions_of_this_node_are_written) {
  config::Config cfg;
  cfg.peers = {{"here", peer("here", "10.0.0.1", 64512, 64513, {"node1"})},
               {"there", peer("there", "10.0.0.2", 64512, 64513, {"node2"})}};
  auto out = mustBuild(cfg, {announce("192.168.1.1/32", {"here", "there"})});
  BOOST_TEST_REQUIRE(out.spec.routers.size() == 1u);
  BOOST_TEST(out.spec.routers[0].neighbors.size() == 1u);
  BOOST_TEST(out.spec.routers[0].neighbors[0].address == "10.0.0.1");
}

BOOST_AUTO_TEST_CASE(prefixes_are_filtered_by_session_family) {
  struct Case {
    std::string desc;
    std::string address;
    std::string interface;
    bool dual;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"ipv4 session gets ipv4 prefixes", "10.0.0.1", "", false, {"192.168.1.1/32"}},
      {"ipv6 session gets ipv6 prefixes", "fd00::1", "", false, {"fd00:1::1/128"}},
      {"dual stack session gets both", "10.0.0.1", "", true, {"192.168.1.1/32", "fd00:1::1/128"}},
      {"unnumbered session gets both", "", "eth0", false, {"192.168.1.1/32", "fd00:1::1/128"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      config::Config cfg;
      auto p = peer("p", c.address, 64512, 64513);
      p.interface = c.interface;
      p.dual_stack_address_family = c.dual;
      cfg.peers = {{"p", p}};
      auto out =
          mustBuild(cfg, {announce("192.168.1.1/32", {"p"}), announce("fd00:1::1/128", {"p"})});
      const auto& r = out.spec.routers.at(0);
      BOOST_TEST(r.neighbors.at(0).to_advertise.allowed_prefixes == c.want,
                 boost::test_tools::per_element());
      BOOST_TEST(r.prefixes == c.want, boost::test_tools::per_element());
      BOOST_TEST(r.neighbors.at(0).interface == c.interface);
    }
  }
}

BOOST_AUTO_TEST_CASE(advertisements_are_grouped_sorted_and_deduplicated) {
  config::Config cfg;
  cfg.peers = {{"a", peer("a", "10.0.0.1", 64512, 64512)},
               {"b", peer("b", "10.0.0.2", 64512, 64513)}};
  auto out = mustBuild(
      cfg,
      {
          announce("192.168.1.9/32", {"a"}, 300, {community(64512, 100), large(1, 2, 3)}),
          announce("192.168.1.10/32", {"a", "b"}, 100, {community(64512, 20)}),
          announce("192.168.1.10/32", {"a"}, 100, {community(64512, 100)}),  // second advertisement
          announce("192.168.1.11/32", {"a"}, 0, {}),
          announce("192.168.1.12/32", {"c"}, 0, {}),  // no such session
      });
  const auto& r = out.spec.routers.at(0);
  const auto& a = r.neighbors.at(0).to_advertise;
  BOOST_TEST(a.allowed_prefixes ==
                 (std::vector<std::string>{"192.168.1.10/32", "192.168.1.11/32", "192.168.1.9/32"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(a.with_community.size() == 3u);
  // Sorted by the community string, as MetalLB does: "64512:100" < "64512:20" < "large:1:2:3".
  BOOST_TEST(a.with_community[0].community == "64512:100");
  BOOST_TEST(a.with_community[0].prefixes ==
                 (std::vector<std::string>{"192.168.1.10/32", "192.168.1.9/32"}),
             boost::test_tools::per_element());
  BOOST_TEST(a.with_community[1].community == "64512:20");
  BOOST_TEST(a.with_community[2].community == "large:1:2:3");
  BOOST_TEST_REQUIRE(a.with_local_pref.size() == 2u);
  BOOST_TEST(a.with_local_pref[0].local_pref == 100u);
  BOOST_TEST(a.with_local_pref[1].local_pref == 300u);
  BOOST_TEST(a.allowed_mode.empty());
  BOOST_TEST(r.neighbors.at(1).to_advertise.allowed_prefixes ==
                 (std::vector<std::string>{"192.168.1.10/32"}),
             boost::test_tools::per_element());
  BOOST_TEST(r.prefixes.size() == 3u);
}

BOOST_AUTO_TEST_CASE(session_fields_are_copied_with_the_two_fixes) {
  config::Config cfg;
  auto p = peer("p", "10.0.0.1", 64512, 64513);
  p.source_address = ip("10.0.0.11");
  p.local_asn = 65001;
  p.port = 1179;
  p.hold_time = std::chrono::seconds(90);
  p.keepalive_time = std::chrono::seconds(30);
  p.connect_time = std::chrono::milliseconds(5500);
  p.bfd_profile = "fast";
  p.enable_graceful_restart = true;
  p.ebgp_multi_hop = true;
  p.disable_mp = true;
  cfg.peers = {{"p", p}};
  cfg.bfd_profiles = {
      {"fast", {"fast", 100, std::nullopt, std::nullopt, std::nullopt, false, true, std::nullopt}}};
  auto out = mustBuild(cfg, {});
  const auto& n = out.spec.routers.at(0).neighbors.at(0);
  BOOST_TEST(n.source_address == "10.0.0.11");
  BOOST_TEST(*n.local_asn == 65001u);
  BOOST_TEST(*n.port == 1179);
  BOOST_TEST(n.hold_time->text == "1m30s");
  BOOST_TEST(n.keepalive_time->nanoseconds == 30'000'000'000);
  BOOST_TEST(n.connect_time->text == "5.5s");
  BOOST_TEST(n.bfd_profile == "fast");
  BOOST_TEST(n.enable_graceful_restart);
  BOOST_TEST(n.ebgp_multi_hop);
  BOOST_TEST(n.disable_mp);
  BOOST_TEST_REQUIRE(out.spec.bfd_profiles.size() == 1u);
  BOOST_TEST(*out.spec.bfd_profiles[0].echo_mode == false);  // always explicit
  BOOST_TEST(*out.spec.bfd_profiles[0].passive_mode == true);
  BOOST_TEST(!out.spec.bfd_profiles[0].transmit_interval.has_value());
}

BOOST_AUTO_TEST_CASE(password_handling_follows_the_secret_mode) {
  struct Case {
    std::string desc;
    std::string password;
    bool secret;
    std::string frrk8s_ns;
    bool passthrough;
    std::string want_password;
    bool want_ref;
    bool want_error;
  };
  const std::vector<Case> cases = {
      {"plain password passes through", "pw", false, "metallb-system", false, "pw", false, false},
      {"secret reference passes through in one namespace", "", true, "metallb-system", false, "",
       true, false},
      {"secret is converted for another namespace", "", true, "frr-k8s-system", false,
       "from-secret", false, false},
      {"passthrough flag keeps the reference", "", true, "frr-k8s-system", true, "", true, false},
      {"password and secret together are an error", "pw", true, "metallb-system", false, "", false,
       true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      config::Config cfg;
      auto p = peer("p", "10.0.0.1", 64512, 64513);
      p.password = c.password;
      if (c.secret) {
        p.password_secret = api::SecretReference{"bgp-auth", "metallb-system"};
        p.secret_password = "from-secret";
      }
      cfg.peers = {{"p", p}};
      BuildOptions o;
      o.frrk8s_namespace = c.frrk8s_ns;
      o.secret_passthrough = c.passthrough;
      auto out = build(cfg, "node1", {}, o);
      BOOST_TEST(out.has_value() == !c.want_error);
      if (!out) {
        BOOST_TEST(out.error().message.find(
                       "BGPPeer p: invalid session with password and secret set") == 0u);
        continue;
      }
      const auto& n = out->spec.routers.at(0).neighbors.at(0);
      BOOST_TEST(n.password == c.want_password);
      BOOST_TEST(n.password_secret.has_value() == c.want_ref);
      if (c.want_ref) BOOST_TEST(n.password_secret->name == "bgp-auth");
    }
  }
}

BOOST_AUTO_TEST_CASE(more_than_63_communities_are_rejected) {
  config::Config cfg;
  cfg.peers = {{"p", peer("p", "10.0.0.1", 64512, 64513)}};
  std::vector<config::BgpCommunity> many;
  for (uint32_t i = 0; i < 64; ++i) many.push_back(community(64512, i));
  auto a = announce("192.168.1.1/32", {"p"}, 0, many);
  a.advertisement = "lots";
  auto r = build(cfg, "node1", {a}, {});
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message == "BGPAdvertisement lots: max supported communities is 63, got 64");
  a.communities.pop_back();
  BOOST_TEST(build(cfg, "node1", {a}, {}).has_value());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
