// SPDX-License-Identifier: Apache-2.0
// L2Elector against electL2: after every membership change its winners, reasons and reported
// changes equal a fresh election, while it hashes only what the change requires.
#include "agent/core/election_engine.h"

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/core/hold_down.h"

namespace agent = ingot::agent;
namespace config = ingot::config;

namespace {

// Cluster is a random cluster: advertisements with random node sets, subjects using random
// subsets of them, and the eligible nodes.
struct Cluster {
  std::vector<std::string> nodes;
  std::vector<config::L2Advertisement> ads;
  std::map<std::string, agent::L2Subject> subjects;
  std::set<std::string> eligible;

  agent::L2Membership membership() const { return {{eligible.begin(), eligible.end()}}; }
};

Cluster randomCluster(std::mt19937& rng, int nodes, int services) {
  Cluster c;
  for (int i = 0; i < nodes; ++i) {
    c.nodes.push_back("node-" + std::to_string(i));
  }
  std::bernoulli_distribution half(0.5);
  std::bernoulli_distribution rare(0.1);
  c.ads.resize(4);
  for (size_t a = 0; a < c.ads.size(); ++a) {
    c.ads[a].name = "ad-" + std::to_string(a);
    for (const auto& n : c.nodes) {
      if (a == 0 || half(rng)) {
        c.ads[a].nodes.insert(n);
      }
    }
  }
  std::uniform_int_distribution<int> octet(0, 255);
  std::uniform_int_distribution<size_t> pick(0, c.nodes.size() - 1);
  for (int s = 0; s < services; ++s) {
    agent::L2Subject sub;
    sub.ip = "10.1." + std::to_string(octet(rng)) + "." + std::to_string(octet(rng));
    for (const auto& ad : c.ads) {
      if (!rare(rng) && half(rng)) {
        sub.ads.push_back(&ad);
      }
    }
    sub.active_endpoint = !rare(rng);
    sub.local = rare(rng) || rare(rng);
    for (int e = 0; sub.local && e < 3; ++e) {
      sub.endpoint_nodes.insert(c.nodes[pick(rng)]);
    }
    c.subjects["ns/svc-" + std::to_string(s)] = std::move(sub);
  }
  for (const auto& n : c.nodes) {
    if (half(rng)) {
      c.eligible.insert(n);
    }
  }
  return c;
}

// expectAgrees checks every subject's winner and reason against a fresh electL2 and returns
// the fresh winners.
std::map<std::string, std::optional<std::string>> expectAgrees(const Cluster& c,
                                                               const agent::L2Elector& engine) {
  agent::L2Hasher hasher;
  std::map<std::string, std::optional<std::string>> winners;
  const auto m = c.membership();
  for (const auto& [key, sub] : c.subjects) {
    const auto e = agent::electL2(sub, m, hasher);
    BOOST_TEST_CONTEXT(key) {
      BOOST_TEST(engine.winner(key).value_or("-") == e.winner.value_or("-"));
      BOOST_TEST(agent::l2ReasonName(engine.reason(key)) == agent::l2ReasonName(e.reason));
    }
    winners[key] = e.winner;
  }
  return winners;
}

// expectHeldAgrees checks every subject's winner against a fresh electL2 with the hold-down
// owner rule applied, and returns those winners.
std::map<std::string, std::optional<std::string>> expectHeldAgrees(
    const Cluster& c, const std::set<std::string>& held, const agent::L2Elector& engine) {
  agent::L2Hasher hasher;
  std::map<std::string, std::optional<std::string>> winners;
  const auto m = c.membership();
  for (const auto& [key, sub] : c.subjects) {
    const auto e = agent::electL2(sub, m, hasher);
    std::optional<std::string> want;
    if (e.reason == agent::L2Reason::None) {
      want = agent::holdDownOwner(e.candidates, held);
    }
    BOOST_TEST_CONTEXT(key) {
      BOOST_TEST(engine.winner(key).value_or("-") == want.value_or("-"));
      BOOST_TEST(agent::l2ReasonName(engine.reason(key)) == agent::l2ReasonName(e.reason));
    }
    winners[key] = want;
  }
  return winners;
}

// changedKeys lists the keys whose winner differs between two snapshots.
std::vector<std::string> changedKeys(const std::map<std::string, std::optional<std::string>>& a,
                                     const std::map<std::string, std::optional<std::string>>& b) {
  std::vector<std::string> out;
  for (const auto& [key, w] : b) {
    if (a.at(key) != w) {
      out.push_back(key);
    }
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(election_engine)

BOOST_AUTO_TEST_CASE(held_winners_equal_the_hold_down_rule_over_a_fresh_election) {
  std::mt19937 rng(20261202);
  for (size_t keep : {1U, 2U, 8U}) {
    Cluster c = randomCluster(rng, 24, 120);
    agent::L2Elector engine(keep);
    engine.setMembership(c.membership());
    for (const auto& [key, sub] : c.subjects) {
      engine.setService(key, sub);
    }
    std::set<std::string> held;
    auto before = expectHeldAgrees(c, held, engine);
    std::uniform_int_distribution<size_t> pick(0, c.nodes.size() - 1);
    std::bernoulli_distribution membership_step(0.5);
    for (int step = 0; step < 120; ++step) {
      BOOST_TEST_CONTEXT("keep " << keep << ", step " << step) {
        // Half the steps flip a node's eligibility, half its hold-down (up to most nodes held,
        // so that every cached candidate of some Services is held).
        std::set<std::string>& flipped = membership_step(rng) ? c.eligible : held;
        const auto& n = c.nodes[pick(rng)];
        if (!flipped.erase(n)) {
          flipped.insert(n);
        }
        const auto changed =
            &flipped == &held ? engine.setHeld(held) : engine.setMembership(c.membership());
        const auto after = expectHeldAgrees(c, held, engine);
        BOOST_TEST(changed == changedKeys(before, after), boost::test_tools::per_element());
        before = after;
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(hold_down_moves_only_what_a_held_node_wins) {
  config::L2Advertisement ad;
  ad.nodes = {"a", "b", "c"};
  agent::L2Elector engine(1);  // one cached candidate: a held winner forces a wider election
  engine.setMembership({{"a", "b", "c"}});
  agent::L2Subject sub;
  sub.ip = "10.0.0.1";
  sub.ads = {&ad};
  sub.active_endpoint = true;
  engine.setService("ns/x", sub);
  const std::string first = *engine.winner("ns/x");
  BOOST_TEST(engine.setHeld({"z"}).empty());  // not a candidate
  BOOST_TEST(engine.setHeld({first}) == std::vector<std::string>{"ns/x"},
             boost::test_tools::per_element());
  const std::string second = *engine.winner("ns/x");
  BOOST_TEST(second != first);
  BOOST_TEST(engine.setHeld({"a", "b", "c"}) == std::vector<std::string>{"ns/x"},
             boost::test_tools::per_element());
  BOOST_TEST(*engine.winner("ns/x") == first);  // all held: the normal winner, never nobody
  BOOST_TEST(engine.setHeld({}).empty());
  BOOST_TEST(*engine.winner("ns/x") == first);
}

BOOST_AUTO_TEST_CASE(incremental_winners_equal_a_fresh_election) {
  std::mt19937 rng(20240611);
  for (size_t keep : {1U, 2U, 8U}) {
    Cluster c = randomCluster(rng, 40, 150);
    agent::L2Elector engine(keep);
    engine.setMembership(c.membership());
    for (const auto& [key, sub] : c.subjects) {
      engine.setService(key, sub);
    }
    auto before = expectAgrees(c, engine);
    std::uniform_int_distribution<size_t> pick(0, c.nodes.size() - 1);
    std::uniform_int_distribution<int> flips(1, 3);
    for (int step = 0; step < 100; ++step) {
      BOOST_TEST_CONTEXT("keep " << keep << ", step " << step) {
        for (int f = flips(rng); f > 0; --f) {
          const auto& n = c.nodes[pick(rng)];
          if (!c.eligible.erase(n)) {
            c.eligible.insert(n);
          }
        }
        const auto changed = engine.setMembership(c.membership());
        const auto after = expectAgrees(c, engine);
        std::vector<std::string> want;
        for (const auto& [key, w] : after) {
          if (before.at(key) != w) {
            want.push_back(key);
          }
        }
        BOOST_TEST(changed == want, boost::test_tools::per_element());
        before = after;
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(membership_changes_reuse_cached_digests) {
  std::vector<std::string> nodes;
  nodes.reserve(100);
  for (int i = 0; i < 100; ++i) {
    nodes.push_back("worker-" + std::to_string(i));
  }
  config::L2Advertisement ad;
  ad.nodes = {nodes.begin(), nodes.end()};
  agent::L2Elector engine(8);
  agent::L2Membership all{nodes};
  engine.setMembership(all);
  std::vector<std::string> keys;
  for (int s = 0; s < 50; ++s) {
    agent::L2Subject sub;
    sub.ip = "192.168.0." + std::to_string(s);
    sub.ads = {&ad};
    sub.active_endpoint = true;
    keys.push_back("ns/s" + std::to_string(s));
    engine.setService(keys.back(), sub);
  }
  BOOST_TEST(engine.hashes() == 50U * 100U);  // cold: each (node, ip) once
  // Pick a node that wins no Service: its departure needs no digest and changes nothing.
  std::set<std::string> winners;
  for (const auto& k : keys) {
    winners.insert(*engine.winner(k));
  }
  std::string idle;
  for (const auto& n : nodes) {
    if (!winners.contains(n)) {
      idle = n;
      break;
    }
  }
  agent::L2Membership without = all;
  std::erase(without.eligible, idle);
  BOOST_TEST(engine.setMembership(without).empty());
  BOOST_TEST(engine.hashes() == 50U * 100U);
  // Its return costs one digest per Service.
  BOOST_TEST(engine.setMembership(all).empty());
  BOOST_TEST(engine.hashes() == 50U * 100U + 50U);
  // A winner leaving moves its Services to their cached runner-up without hashing.
  const std::string w = *engine.winner(keys[0]);
  agent::L2Membership no_winner = all;
  std::erase(no_winner.eligible, w);
  const auto changed = engine.setMembership(no_winner);
  BOOST_TEST(!changed.empty());
  BOOST_TEST(engine.hashes() == 50U * 100U + 50U);
  BOOST_TEST(*engine.winner(keys[0]) != w);
}

BOOST_AUTO_TEST_CASE(removed_and_unknown_services_have_no_winner) {
  config::L2Advertisement ad;
  ad.nodes = {"a", "b"};
  agent::L2Elector engine;
  engine.setMembership({{"a", "b"}});
  agent::L2Subject sub;
  sub.ip = "10.0.0.1";
  sub.ads = {&ad};
  sub.active_endpoint = true;
  engine.setService("ns/x", sub);
  BOOST_TEST(engine.winner("ns/x").has_value());
  engine.removeService("ns/x");
  BOOST_TEST(!engine.winner("ns/x").has_value());
  BOOST_TEST(!engine.winner("ns/never").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
