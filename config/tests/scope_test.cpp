// SPDX-License-Identifier: Apache-2.0
#include "config/scope.h"

#include <boost/test/unit_test.hpp>

#include "config/tests/fixtures.h"

namespace ingot::config::testing {
namespace {

/// twoRacks is two nodes in different racks, one pool, one peer and one advertisement for every
/// node: a configuration every agent accepts.
Inputs twoRacks() {
  Inputs in;
  in.nodes = {node("n1", {{"rack", "1"}}), node("n2", {{"rack", "2"}})};
  in.pools = {pool("p", {"10.0.0.0/24", "fc00::/120"})};
  in.peers = {peer("tor", 64500, 64501, "10.1.0.1")};
  in.bgp_advertisements = {bgp("all", {"p"})};
  return in;
}

api::BGPAdvertisement onRack(api::BGPAdvertisement ad, const std::string& rack) {
  ad.spec.node_selectors = {sel({{"rack", rack}})};
  return ad;
}

api::BGPPeer onRack(api::BGPPeer p, const std::string& rack) {
  p.spec.node_selectors = {sel({{"rack", rack}})};
  return p;
}

api::BGPAdvertisement withAlias(api::BGPAdvertisement ad, const std::string& alias) {
  ad.spec.communities = {alias};
  return ad;
}

/// verdicts renders each node's outcome as "node: ok" or "node: Kind/name field: message".
std::vector<std::string> verdicts(const std::vector<NodeGroup>& groups) {
  std::vector<std::string> out;
  for (const auto& g : groups) {
    for (const auto& n : g.nodes) {
      if (g.outcome.errors.empty()) {
        out.push_back(n + ": ok");
      }
      for (const auto& l : errorLines(g.outcome.errors)) {
        out.push_back(n + ": " + l);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

const char kMissingAlias[] =
    "invalid community \"no-such\" in BGP advertisement: invalid community format: no-such (no "
    "Community alias with this name either)";

}  // namespace

BOOST_AUTO_TEST_SUITE(scope)

// Rows follow MetalLB's filterByNode (internal/k8s/controllers/config_controller.go), which both
// filterBGPPeersByNode and filterBGPAdvertisementsByNode call.
BOOST_AUTO_TEST_CASE(selects_node_follows_filter_by_node) {
  struct Case {
    std::string desc;
    std::vector<api::LabelSelector> selectors;
    bool want;
  };
  const api::StringMap labels = {{"rack", "1"}, {"zone", "a"}};
  const std::vector<Case> cases = {
      {"filterByNode: no nodeSelectors selects every node", {}, true},
      {"filterByNode: a matching selector selects", {sel({{"rack", "1"}})}, true},
      {"filterByNode: a selector that does not match drops", {sel({{"rack", "2"}})}, false},
      {"filterByNode: selectors are ORed", {sel({{"rack", "2"}}), sel({{"zone", "a"}})}, true},
      {"filterByNode: matchExpressions count", {expr("rack", "NotIn", {"1"})}, false},
      {"filterByNode: the empty selector matches every node", {api::LabelSelector{}}, true},
      // MetalLB's filter fails the reconcile of every speaker on a selector that does not
      // convert; keeping the object makes every agent's parse report it instead.
      {"filterByNode: an invalid selector is kept for the parse to report",
       {sel({{"rack", "2"}}), expr("rack", "Bogus", {"1"})},
       true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(selectsNode(c.selectors, labels) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(for_node_drops_only_peers_and_bgp_advertisements) {
  // filterBGPPeersByNode / filterBGPAdvertisementsByNode: the speaker filters these two kinds
  // and no other ("we deliberately do not filter L2Advertisements").
  Inputs in = twoRacks();
  in.peers.push_back(onRack(peer("rack2", 64500, 64502, "10.1.0.2"), "2"));
  in.bgp_advertisements.push_back(onRack(bgp("rack2-only", {"p"}), "2"));
  auto l2 = testing::l2("l2-rack2", {"p"});
  l2.spec.node_selectors = {sel({{"rack", "2"}})};
  in.l2_advertisements = {l2};
  in.communities = {community("c", {{"x", "1:1"}})};
  in.bfd_profiles = {bfd("b")};

  const Inputs n1 = forNode(in, in.nodes[0]);
  BOOST_TEST(n1.peers.size() == 1U);
  BOOST_TEST(n1.peers[0].metadata.name == "tor");
  BOOST_TEST(n1.bgp_advertisements.size() == 1U);
  BOOST_TEST(n1.bgp_advertisements[0].metadata.name == "all");
  BOOST_TEST(n1.l2_advertisements.size() == 1U);
  BOOST_TEST(n1.pools.size() == 1U);
  BOOST_TEST(n1.communities.size() == 1U);
  BOOST_TEST(n1.bfd_profiles.size() == 1U);
  BOOST_TEST(n1.nodes.size() == 2U);  // selectors still resolve against every node

  const Inputs n2 = forNode(in, in.nodes[1]);
  BOOST_TEST(n2.peers.size() == 2U);
  BOOST_TEST(n2.bgp_advertisements.size() == 2U);
}

// Each row is a configuration and what every node's agent makes of it. The MetalLB function named
// is the one whose per-node behaviour the row checks.
BOOST_AUTO_TEST_CASE(parse_per_node_rejects_only_where_objects_apply) {
  struct Case {
    std::string desc;
    Inputs in;
    std::vector<std::string> want;  ///< sorted "node: ok" / "node: error"
  };
  const std::string bad_ad = "BGPAdvertisement/broken spec.communities[0]: ";
  const std::vector<Case> cases = {
      {"filterBGPAdvertisementsByNode: an undefined alias selecting no node breaks nothing",
       with(twoRacks(),
            [](Inputs& in) {
              in.bgp_advertisements.push_back(
                  withAlias(onRack(bgp("broken", {"p"}), "9"), "no-such"));
            }),
       {"n1: ok", "n2: ok"}},
      {"filterBGPAdvertisementsByNode: an undefined alias breaks only the nodes selected",
       with(twoRacks(),
            [](Inputs& in) {
              in.bgp_advertisements.push_back(
                  withAlias(onRack(bgp("broken", {"p"}), "1"), "no-such"));
            }),
       {"n1: " + bad_ad + kMissingAlias + " [transient]", "n2: ok"}},
      {"filterBGPAdvertisementsByNode: without nodeSelectors every node rejects it",
       with(twoRacks(),
            [](Inputs& in) {
              in.bgp_advertisements.push_back(withAlias(bgp("broken", {"p"}), "no-such"));
            }),
       {"n1: " + bad_ad + kMissingAlias + " [transient]",
        "n2: " + bad_ad + kMissingAlias + " [transient]"}},
      {"filterBGPPeersByNode: a missing BFD profile breaks only the nodes the peer selects",
       with(twoRacks(),
            [](Inputs& in) {
              in.peers.push_back(with(onRack(peer("tor2", 64500, 64502, "10.1.0.2"), "2"),
                                      [](auto& p) { p.spec.bfd_profile = "gone"; }));
            }),
       {"n1: ok",
        "n2: BGPPeer/tor2 spec.bfdProfile: peer tor2 referencing non existing bfd profile gone "
        "[transient]"}},
      {"filterBGPPeersByNode: a peer's own error follows its nodeSelectors",
       with(twoRacks(),
            [](Inputs& in) {
              in.peers.push_back(with(onRack(peer("tor2", 64500, 64502, "10.1.0.2"), "2"),
                                      [](auto& p) { p.spec.peer_port = 0; }));
            }),
       {"n1: ok", "n2: BGPPeer/tor2 spec.peerPort: invalid peerPort 0, must be in 1-16384 range"}},
      {"validateConfig: BFD echo peer and IPv6 advertisement on different nodes never meet",
       with(twoRacks(),
            [](Inputs& in) {
              in.bfd_profiles = {with(bfd("echo"), [](auto& b) { b.spec.echo_mode = true; })};
              in.peers = {with(onRack(peer("tor", 64500, 64501, "10.1.0.1"), "2"),
                               [](auto& p) { p.spec.bfd_profile = "echo"; })};
              in.bgp_advertisements = {onRack(bgp("all", {"p"}), "1")};
            }),
       {"n1: ok", "n2: ok"}},
      {"validateConfig: BFD echo peer and IPv6 advertisement on the same node are refused there",
       with(twoRacks(),
            [](Inputs& in) {
              in.bfd_profiles = {with(bfd("echo"), [](auto& b) { b.spec.echo_mode = true; })};
              in.peers = {with(onRack(peer("tor", 64500, 64501, "10.1.0.1"), "1"),
                               [](auto& p) { p.spec.bfd_profile = "echo"; })};
              in.bgp_advertisements = {bgp("all", {"p"})};
            }),
       {"n1: BGPAdvertisement/all spec.peers: pool p has bgpadvertisement all which references "
        "peer tor which has bfd echo enabled, which is not possible",
        "n2: ok"}},
      {"setL2AdvertisementsToPools: L2Advertisements are not filtered, every node rejects one",
       with(twoRacks(),
            [](Inputs& in) {
              auto l2 = testing::l2("l2", {"p"});
              l2.spec.node_selectors = {sel({{"rack", "9"}}), sel({{"rack", "9"}})};
              in.l2_advertisements = {l2};
            }),
       {"n1: L2Advertisement/l2 spec.nodeSelectors[1]: duplicate definition of nodeSelectors "
        "\"rack=9\"",
        "n2: L2Advertisement/l2 spec.nodeSelectors[1]: duplicate definition of nodeSelectors "
        "\"rack=9\""}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto groups = parsePerNode(c.in, ParseOptions{});
      BOOST_TEST(joined(verdicts(groups)) == joined(c.want));
    }
  }
}

BOOST_AUTO_TEST_CASE(parse_per_node_groups_nodes_that_select_the_same_objects) {
  Inputs in = twoRacks();
  in.nodes.push_back(node("n3", {{"rack", "1"}}));
  in.bgp_advertisements.push_back(onRack(bgp("rack1", {"p"}), "1"));
  const auto groups = parsePerNode(in, ParseOptions{});
  BOOST_REQUIRE(groups.size() == 2U);
  BOOST_TEST(groups[0].nodes == (std::vector<std::string>{"n1", "n3"}));
  BOOST_TEST(groups[0].bgp_advertisements == (std::vector<std::string>{"all", "rack1"}));
  BOOST_TEST(groups[1].nodes == (std::vector<std::string>{"n2"}));
  BOOST_TEST(groups[1].bgp_advertisements == (std::vector<std::string>{"all"}));
  BOOST_TEST(groups[1].peers == (std::vector<std::string>{"tor"}));
  BOOST_TEST(parsePerNode(Inputs{}, ParseOptions{}).empty());
}

// MetalLB's PoolReconciler hands config.For only pools, Communities and Namespaces.
BOOST_AUTO_TEST_CASE(allocation_inputs_follow_the_pool_reconciler) {
  struct Case {
    std::string desc;
    Inputs in;
    std::vector<Want> want;
  };
  const std::vector<Case> cases = {
      {"PoolReconciler: a broken advertisement and peer are not the controller's concern",
       with(twoRacks(),
            [](Inputs& in) {
              in.bgp_advertisements.push_back(withAlias(bgp("broken", {"p"}), "no-such"));
              in.peers.push_back(
                  with(peer("bad", 0, 64501, "10.9.0.1"), [](auto& p) { p.spec.vrf = "x"; }));
            }),
       {}},
      {"PoolReconciler: communitiesFromCrs still rejects a malformed Community",
       with(twoRacks(),
            [](Inputs& in) {
              in.communities = {community("c", {{"bad", "1:x"}})};
            }),
       {{"Community", "c", "spec.communities[0].value",
         "parsing community \"bad\": invalid community value: invalid section \"x\" of community "
         "\"1:x\", err: \"strconv.ParseUint: parsing \\\"x\\\": invalid syntax\""}}},
      {"PoolReconciler: poolsFor still rejects overlapping pools",
       with(twoRacks(), [](Inputs& in) { in.pools.push_back(pool("q", {"10.0.0.128/25"})); }),
       {{"IPAddressPool", "q", "spec.addresses[0]",
         "CIDR \"10.0.0.128/25\" in pool \"q\" overlaps with already defined CIDR "
         "\"10.0.0.0/24\""}}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const Inputs only = allocationInputs(c.in);
      BOOST_TEST(only.peers.empty());
      BOOST_TEST(only.bgp_advertisements.empty());
      BOOST_TEST(only.l2_advertisements.empty());
      BOOST_TEST(only.nodes.empty());
      const auto out = run(only);
      BOOST_TEST(joined(errorLines(out.errors)) == joined(wantLines(c.want)));
    }
  }
}

BOOST_AUTO_TEST_CASE(combine_keeps_each_object_on_the_nodes_that_accepted_it) {
  Inputs in = twoRacks();
  in.nodes.push_back(node("n3", {{"rack", "3"}}));
  in.peers.push_back(onRack(peer("tor2", 64500, 64502, "10.1.0.2"), "2"));
  // n1 rejects its configuration: nothing of it may count as announced from n1.
  in.bgp_advertisements.push_back(withAlias(onRack(bgp("broken", {"p"}), "1"), "no-such"));
  const auto groups = parsePerNode(in, ParseOptions{});
  const auto merged = combine(groups);
  BOOST_REQUIRE(merged != nullptr);
  BOOST_TEST(merged->pools.size() == 1U);
  BOOST_REQUIRE(merged->peers.size() == 2U);
  BOOST_TEST(merged->peers.at("tor").nodes == (std::set<std::string>{"n2", "n3"}));
  BOOST_TEST(merged->peers.at("tor2").nodes == (std::set<std::string>{"n2"}));
  BOOST_REQUIRE(merged->bgp_advertisements.size() == 1U);
  BOOST_TEST(merged->bgp_advertisements[0].name == "all");
  BOOST_TEST(merged->bgp_advertisements[0].nodes == (std::set<std::string>{"n2", "n3"}));

  // Every node valid: the merge is the whole-cluster parse.
  const auto valid = twoRacks();
  const auto whole = parse(valid, ParseOptions{});
  BOOST_REQUIRE(whole.config != nullptr);
  BOOST_TEST((*combine(parsePerNode(valid, ParseOptions{})) == *whole.config));

  in.bgp_advertisements[0] = withAlias(in.bgp_advertisements[0], "no-such");  // every node now
  BOOST_TEST(combine(parsePerNode(in, ParseOptions{})) == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config::testing
