// SPDX-License-Identifier: Apache-2.0
#include <boost/test/unit_test.hpp>

#include "config/tests/fixtures.h"

namespace ingot::config::testing {
namespace {

constexpr char kL2[] = "L2Advertisement";

/// cluster has three pools (two labelled) and four nodes.
Inputs cluster() {
  Inputs in;
  in.pools = {pool("gold", {"10.0.0.0/24"}, {{"tier", "gold"}}),
              pool("silver", {"10.0.1.0/24"}, {{"tier", "silver"}}),
              pool("plain", {"10.0.2.0/24"})};
  in.nodes = {node("edge-a", {{"role", "edge"}, {"zone", "a"}}),
              node("edge-b", {{"role", "edge"}, {"zone", "b"}}),
              node("worker-a", {{"role", "worker"}, {"zone", "a"}}),
              node("worker-b", {{"role", "worker"}})};
  return in;
}

Inputs withAd(api::L2Advertisement ad) {
  Inputs in = cluster();
  in.l2_advertisements = {std::move(ad)};
  return in;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(l2_advertisements)

BOOST_AUTO_TEST_CASE(pools_are_resolved_from_names_and_selectors) {
  struct Case {
    std::string desc;
    std::vector<std::string> names;
    std::vector<api::LabelSelector> selectors;
    std::set<std::string> want;
  };
  const std::vector<Case> cases = {
      {"neither names nor selectors selects every pool", {}, {}, {"gold", "plain", "silver"}},
      {"named pools", {"plain", "gold"}, {}, {"gold", "plain"}},
      {"unknown names are ignored", {"gold", "bronze"}, {}, {"gold"}},
      {"only unknown names select nothing", {"bronze"}, {}, {}},
      {"selector on pool labels", {}, {sel({{"tier", "silver"}})}, {"silver"}},
      {"selectors are ORed",
       {},
       {sel({{"tier", "silver"}}), sel({{"tier", "gold"}})},
       {"gold", "silver"}},
      {"names and selectors form a union",
       {"plain"},
       {expr("tier", "In", {"gold"})},
       {"gold", "plain"}},
      {"selector matching nothing selects nothing", {}, {sel({{"tier", "lead"}})}, {}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const Config cfg = parseOk(withAd(with(
          l2("ad", c.names), [&](auto& a) { a.spec.ip_address_pool_selectors = c.selectors; })));
      BOOST_REQUIRE(cfg.l2_advertisements.size() == 1u);
      BOOST_TEST(cfg.l2_advertisements[0].pools == c.want, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(nodes_interfaces_and_service_selectors_are_resolved) {
  struct Case {
    std::string desc;
    std::vector<api::LabelSelector> node_selectors;
    std::set<std::string> want;
  };
  const std::vector<Case> cases = {
      {"no node selectors selects all nodes", {}, {"edge-a", "edge-b", "worker-a", "worker-b"}},
      {"selector by role", {sel({{"role", "edge"}})}, {"edge-a", "edge-b"}},
      {"selectors are ORed",
       {sel({{"role", "edge"}}), sel({{"zone", "a"}})},
       {"edge-a", "edge-b", "worker-a"}},
      {"DoesNotExist", {expr("zone", "DoesNotExist", {})}, {"worker-b"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const Config cfg = parseOk(withAd(with(l2("ad"), [&](auto& a) {
        a.spec.node_selectors = c.node_selectors;
        a.spec.interfaces = {"eth1", "eth0"};
        a.spec.service_selectors = {sel({{"app", "web"}})};
      })));
      const auto& ad = cfg.l2_advertisements.at(0);
      BOOST_TEST(ad.nodes == c.want, boost::test_tools::per_element());
      BOOST_TEST(ad.interfaces == (std::vector<std::string>{"eth1", "eth0"}),
                 boost::test_tools::per_element());
      BOOST_TEST(ad.service_selectors.size() == 1u);
    }
  }
}

BOOST_AUTO_TEST_CASE(preferred_node_selectors_only_score_eligible_nodes) {
  struct Case {
    std::string desc;
    std::vector<api::LabelSelector> node_selectors;
    std::vector<api::PreferredNodeSelector> preferred;
    std::vector<PreferredNodes> want;
  };
  const std::vector<Case> cases = {
      {"no preferences", {}, {}, {}},
      {"one preference over all nodes",
       {},
       {{100, sel({{"role", "edge"}})}},
       {{100, {"edge-a", "edge-b"}}}},
      {"preferences keep spec order and weights",
       {},
       {{60, sel({{"zone", "a"}})}, {50, sel({{"role", "edge"}})}},
       {{60, {"edge-a", "worker-a"}}, {50, {"edge-a", "edge-b"}}}},
      {"ineligible nodes are not preferred",
       {sel({{"role", "edge"}})},
       {{100, sel({{"zone", "a"}})}},
       {{100, {"edge-a"}}}},
      {"empty preference matches every eligible node",
       {sel({{"zone", "b"}}), sel({{"role", "worker"}})},
       {{10, api::LabelSelector{}}},
       {{10, {"edge-b", "worker-a", "worker-b"}}}},
      {"preference matching nothing is kept empty", {}, {{5, sel({{"gpu", "yes"}})}}, {{5, {}}}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const Config cfg = parseOk(withAd(with(l2("ad"), [&](auto& a) {
        a.spec.node_selectors = c.node_selectors;
        a.spec.preferred_node_selectors = c.preferred;
      })));
      const auto& got = cfg.l2_advertisements.at(0).preferred_nodes;
      BOOST_REQUIRE(got.size() == c.want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        BOOST_TEST(got[i].weight == c.want[i].weight);
        BOOST_TEST(got[i].nodes == c.want[i].nodes, boost::test_tools::per_element());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(l2_advertisement_errors) {
  auto ad = [](auto f) { return withAd(with(l2("ad"), f)); };
  const std::vector<ErrorCase> cases = {
      {"duplicate pool name",
       ad([](auto& a) {
         a.spec.ip_address_pools = {"gold", "gold"};
       }),
       {{kL2, "ad", "spec.ipAddressPools[1]", R"(duplicate definition of ipAddressPools "gold")"}}},
      {"duplicate pool selector",
       ad([](auto& a) {
         a.spec.ip_address_pool_selectors = {sel({{"tier", "gold"}}), sel({{"tier", "gold"}})};
       }),
       {{kL2, "ad", "spec.ipAddressPoolSelectors[1]",
         R"(duplicate definition of ipAddressPoolSelectors "tier=gold")"}}},
      {"duplicate node selector",
       ad([](auto& a) {
         a.spec.node_selectors = {api::LabelSelector{}, api::LabelSelector{}};
       }),
       {{kL2, "ad", "spec.nodeSelectors[1]", R"(duplicate definition of nodeSelectors "")"}}},
      {"duplicate service selector",
       ad([](auto& a) {
         a.spec.service_selectors = {sel({{"a", "1"}}), sel({{"a", "1"}})};
       }),
       {{kL2, "ad", "spec.serviceSelectors[1]",
         R"(duplicate definition of serviceSelectors "a=1")"}}},
      {"invalid node selector key",
       ad([](auto& a) {
         a.spec.node_selectors = {sel({{"-bad", "x"}})};
       }),
       {{kL2, "ad", "spec.nodeSelectors[0]",
         R"(invalid label selector: invalid label key "-bad" in matchLabels)"}}},
      {"weight zero",
       ad([](auto& a) {
         a.spec.preferred_node_selectors = {{0, {}}};
       }),
       {{kL2, "ad", "spec.preferredNodeSelectors[0].weight",
         "invalid weight 0, must be in 1-100 range"}}},
      {"weight above 100",
       ad([](auto& a) {
         a.spec.preferred_node_selectors = {{1, {}}, {101, {}}};
       }),
       {{kL2, "ad", "spec.preferredNodeSelectors[1].weight",
         "invalid weight 101, must be in 1-100 range"}}},
      {"invalid preference",
       ad([](auto& a) {
         a.spec.preferred_node_selectors = {{10, expr("x", "Bad", {})}};
       }),
       {{kL2, "ad", "spec.preferredNodeSelectors[0].preference",
         R"(invalid label selector: "Bad" is not a valid label selector operator (key "x"))"}}},
      {"duplicate advertisement name",
       [] {
         Inputs in = cluster();
         in.l2_advertisements = {l2("ad"), l2("ad", {"gold"})};
         return in;
       }(),
       {{kL2, "ad", "metadata.name", R"(duplicate definition of l2advertisement "ad")"}}},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(advertisements_are_sorted_by_name) {
  Inputs in = cluster();
  in.l2_advertisements = {l2("zeta"), l2("alpha"), l2("mid")};
  const Config cfg = parseOk(in);
  BOOST_REQUIRE(cfg.l2_advertisements.size() == 3u);
  BOOST_TEST(cfg.l2_advertisements[0].name == "alpha");
  BOOST_TEST(cfg.l2_advertisements[1].name == "mid");
  BOOST_TEST(cfg.l2_advertisements[2].name == "zeta");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config::testing
