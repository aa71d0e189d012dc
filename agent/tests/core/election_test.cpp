// SPDX-License-Identifier: Apache-2.0
// The Layer 2 election's ordering: Go's address text, the golden vectors produced by MetalLB's
// own function, the hashing discipline, and an N-node simulation with exactly one owner.
#define BOOST_TEST_MODULE ingot_election
#include "agent/core/election.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/core/election_engine.h"
#include "agent/tests/core/election_fixtures.h"
#include "common/json/json.h"

namespace agent = ingot::agent;
namespace json = ingot::json;
using namespace ingot::agent::testing;

BOOST_AUTO_TEST_SUITE(go_ip_string)

// Each row is a spelling MetalLB's controller could write into status, and the text Go's
// net.IP.String() gives for it (and so the text every MetalLB speaker hashes).
BOOST_AUTO_TEST_CASE(formats_addresses_as_go_does) {
  struct Case {
    std::string in;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"192.168.1.10", "192.168.1.10"},
      {"0.0.0.0", "0.0.0.0"},
      {"::ffff:1.2.3.4", "1.2.3.4"},                     // IPv4-mapped → dotted quad
      {"::FFFF:C000:0201", "192.0.2.1"},                 // mapped, written in hex
      {"::192.0.2.1", "::c000:201"},                     // IPv4-compatible: hex, no dotted tail
      {"64:ff9b::192.0.2.1", "64:ff9b::c000:201"},       // NAT64 prefix: hex as well
      {"2001:DB8::ABCD", "2001:db8::abcd"},              // lower-case hex
      {"2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"},  // a single zero group stays
      {"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},     // tie: the first run is compressed
      {"2001:0:0:1:0:0:0:1", "2001:0:0:1::1"},           // the longer run wins
      {"0:0:0:0:0:0:0:0", "::"},
      {"0:0:0:0:0:0:0:1", "::1"},
      {"1:0:0:0:0:0:0:0", "1::"},
      {"fe80:0000:0000:0000:0000:0000:0000:0001", "fe80::1"},  // leading zeros dropped
      {"2001:db8:1:2:3:4:5:6", "2001:db8:1:2:3:4:5:6"},
      {"::ffff:0:0", "0.0.0.0"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.in) {
      auto got = agent::goIpString(c.in);
      BOOST_TEST_REQUIRE(got.has_value());
      BOOST_TEST(*got == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_what_go_rejects_naming_the_text) {
  for (const std::string bad : {"", "1.2.3", "010.0.0.1", "1.2.3.4/32", "fe80::1%eth0", "x::1",
                                "1:2:3:4:5:6:7:8:9", " 1.2.3.4"}) {
    BOOST_TEST_CONTEXT(bad) {
      auto got = agent::goIpString(bad);
      BOOST_TEST_REQUIRE(!got.has_value());
      BOOST_TEST(got.error().message.find("\"" + bad + "\"") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(election_order)

namespace {

/// loadVectors reads the MetalLB election vectors (testdata/README.md).
std::optional<json::Value> loadVectors() {
  std::ifstream in(sourceDir() + "/agent/tests/core/testdata/l2-election-vectors.json");
  std::stringstream text;
  text << in.rdbuf();
  auto doc = json::parse(text.str());
  BOOST_TEST_REQUIRE(doc.has_value());
  return std::optional<json::Value>(std::move(*doc));
}

}  // namespace

// The vectors were produced by MetalLB's own election function; `order` is its full candidate
// order, winner first.
BOOST_AUTO_TEST_CASE(matches_metallb_golden_vectors) {
  const auto doc = loadVectors();
  BOOST_TEST_REQUIRE(doc->size() == 20U);
  agent::L2Hasher hasher;
  for (const auto& v : doc->items()) {
    const std::string ip = v.find("ip")->text();
    BOOST_TEST_CONTEXT(ip) {
      // The vector's text is already Go's; formatting it again must not change it.
      BOOST_TEST(agent::goIpString(ip).value() == ip);
      World w = worldOf(strings(*v.find("nodes")), ip);
      const auto e = w.elect(hasher);
      BOOST_TEST(e.candidates == strings(*v.find("order")), boost::test_tools::per_element());
      BOOST_TEST_REQUIRE(e.winner.has_value());
      BOOST_TEST(*e.winner == strings(*v.find("order")).front());
    }
  }
}

// Sorting must not hash in its comparator: n candidates cost exactly n digests.
BOOST_AUTO_TEST_CASE(hashes_each_candidate_once) {
  std::vector<std::string> nodes;
  nodes.reserve(500);
  for (int i = 0; i < 500; ++i) {
    nodes.push_back("worker-" + std::to_string(i));
  }
  agent::L2Hasher hasher;
  const auto order = agent::rankL2(nodes, "10.0.0.1", hasher);
  BOOST_TEST(hasher.count() == 500U);
  BOOST_TEST(order.size() == 500U);
  for (size_t i = 1; i < order.size(); ++i) {
    BOOST_TEST_REQUIRE(hasher.digest(order[i - 1], "10.0.0.1") <
                       hasher.digest(order[i], "10.0.0.1"));
  }
}

BOOST_AUTO_TEST_CASE(digest_is_sha256_of_node_hash_ip) {
  agent::L2Hasher hasher;
  // printf 'a#10.96.0.10' | sha256sum
  const auto d = hasher.digest("a", "10.96.0.10");
  BOOST_TEST(hex(d) == "431691f735fd5ba7f094f2b9ab4a6956d639bc9c9db645c390c545ebb6f49a86");
}

// Every node runs the same function on the same inputs; exactly one may announce, and only
// when the Service has a winner (MetalLB's TestShouldAnnounceEPSlices, with N nodes).
BOOST_AUTO_TEST_CASE(n_node_simulation_has_exactly_one_owner) {
  agent::L2Hasher hasher;
  for (int n = 1; n <= 40; ++n) {
    std::vector<std::string> nodes;
    nodes.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      nodes.push_back("node-" + std::to_string(i));
    }
    for (const std::string ip : {"192.168.10.1", "2001:db8::7", "10.0.0.255"}) {
      BOOST_TEST_CONTEXT(n << " nodes, " << ip) {
        World w = worldOf(nodes, ip);
        int owners = 0;
        std::string owner;
        for (const auto& node : nodes) {
          const auto d = w.decide(node, hasher);
          if (d.announced()) {
            ++owners;
            owner = node;
          } else {
            BOOST_TEST(d.reason() == "notOwner");
          }
        }
        BOOST_TEST(owners == 1);
        BOOST_TEST(owner == agent::rankL2(nodes, ip, hasher).front());
      }
    }
  }
}

// The candidate filter merges sorted lists when it can; any membership order gives one result.
BOOST_AUTO_TEST_CASE(membership_order_does_not_change_the_election) {
  agent::L2Hasher hasher;
  std::vector<std::string> nodes = {"d", "a", "c", "b", "e"};
  World w = worldOf(nodes, "10.0.0.7");
  w.cfg.l2_advertisements[0].nodes = {"a", "c", "e"};
  w.cfg.l2_advertisements.push_back(agent::testing::l2Ad("more", {"b"}));
  const auto d = w.decide("a", hasher);
  const auto sorted = agent::electL2(d.subject, {{"a", "b", "c", "d", "e"}}, hasher);
  const auto shuffled = agent::electL2(d.subject, {nodes}, hasher);
  const auto want = agent::rankL2({"a", "b", "c", "e"}, "10.0.0.7", hasher);
  BOOST_TEST(sorted.candidates == want, boost::test_tools::per_element());
  BOOST_TEST(shuffled.candidates == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(first_ingress_ip_is_the_election_key) {
  agent::L2Hasher hasher;
  std::vector<std::string> nodes;
  nodes.reserve(16);
  for (int i = 0; i < 16; ++i) {
    nodes.push_back("n" + std::to_string(i));
  }
  World w = worldOf(nodes, "192.168.10.1");
  w.service.status.ingress.push_back({"2001:db8::1", "", std::nullopt});
  BOOST_TEST(w.elect(hasher).candidates == agent::rankL2(nodes, "192.168.10.1", hasher));
  std::swap(w.service.status.ingress[0], w.service.status.ingress[1]);
  BOOST_TEST(w.elect(hasher).candidates == agent::rankL2(nodes, "2001:db8::1", hasher));
  // An IPv4-mapped ingress address is hashed as its dotted quad.
  w.service.status.ingress[0].ip = "::ffff:192.168.10.1";
  BOOST_TEST(w.elect(hasher).candidates == agent::rankL2(nodes, "192.168.10.1", hasher));
  w.service.status.ingress[0].ip = "2001:DB8:0:0:0:0:0:1";
  BOOST_TEST(w.elect(hasher).candidates == agent::rankL2(nodes, "2001:db8::1", hasher));
}

// A dual-stack Service is elected on its first status address, in either family order, as
// MetalLB's speaker does: with the MetalLB vectors for 203.0.113.7 and fd00::1 (same nodes,
// different winners), every node's verdict and the agent's cached election name the winner of
// the first address, and only it announces.
BOOST_AUTO_TEST_CASE(dual_stack_service_is_elected_on_its_first_status_address) {
  const auto doc = loadVectors();
  std::map<std::string, std::vector<std::string>> order;
  std::vector<std::string> nodes;
  for (const auto& v : doc->items()) {
    const std::string ip = v.find("ip")->text();
    if (ip == "203.0.113.7" || ip == "fd00::1") {
      order[ip] = strings(*v.find("order"));
      nodes = strings(*v.find("nodes"));
    }
  }
  BOOST_TEST_REQUIRE(order.size() == 2U);
  BOOST_TEST_REQUIRE(order["203.0.113.7"].front() != order["fd00::1"].front());
  struct Case {
    std::vector<std::string> status;
  };
  const std::vector<Case> cases = {{{"203.0.113.7", "fd00::1"}}, {{"fd00::1", "203.0.113.7"}}};
  agent::L2Hasher hasher;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.status[0] << " first") {
      World w = worldOf(nodes, c.status[0]);
      w.service.status.ingress.push_back({c.status[1], "", std::nullopt});
      const std::vector<std::string>& want = order[c.status[0]];
      const auto e = w.elect(hasher);
      BOOST_TEST(e.candidates == want, boost::test_tools::per_element());
      agent::L2Elector engine;
      engine.setMembership(w.membership());
      for (const auto& node : nodes) {
        const auto d = w.decide(node, hasher);
        BOOST_TEST(d.announced() == (node == want.front()), node);
        const auto cached =
            agent::decideL2Cached(w.cfg, node, w.service, {w.slice}, w.options, engine);
        BOOST_TEST(cached.election.winner.value_or("") == want.front(), node);
        BOOST_TEST(cached.announced() == d.announced(), node);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
