// SPDX-License-Identifier: Apache-2.0
// Drain-awareness in the reconciler: a cordoned node re-announces its prefixes with
// GRACEFUL_SHUTDOWN, withdraws them after the delay, says so in its ConfigurationState and Node
// Events, and announces normally again once uncordoned.
#include <boost/test/unit_test.hpp>

#include "agent/tests/daemon/fixtures.h"

namespace ingot::agent {
namespace {

using testing::contains;
using testing::firstPass;
using testing::Harness;

constexpr int64_t kDelayMs = 10'000;

struct DrainHarness {
  int64_t now_ms = 1'000'000;
  Harness h{[this] {
    ReconcilerOptions o = testing::node1();
    o.announce.drain.triggers = {DrainTrigger::Cordon};
    o.announce.drain.delay_ms = kDelayMs;
    o.wall_clock = [this] { return now_ms; };
    return o;
  }()};

  void cordon(bool on) {
    api::Node node = *h.world.nodes.get("node1");
    node.unschedulable = on;
    testing::World::upsert(h.world.nodes, node, on ? "2" : "3");
    pass();
  }

  void pass() {
    h.queue.add(std::string(keys::kSync));
    h.drain();
  }

  /// communities returns the withCommunity entries of the desired FRRConfiguration's neighbors
  /// as "community prefix" texts, and prefixes the allowed prefixes.
  std::vector<std::string> communities() const {
    std::vector<std::string> out;
    for (const auto& r : h.desired()->spec.routers) {
      for (const auto& n : r.neighbors) {
        for (const auto& c : n.to_advertise.with_community) {
          for (const auto& p : c.prefixes) out.push_back(c.community + " " + p);
        }
      }
    }
    return out;
  }

  size_t prefixes() const {
    size_t count = 0;
    for (const auto& r : h.desired()->spec.routers) {
      for (const auto& n : r.neighbors) count += n.to_advertise.allowed_prefixes.size();
    }
    return count;
  }

  std::vector<std::string> drainEvents() const {
    std::vector<std::string> out;
    for (const auto& e : h.events.events) {
      if (e.object.kind == "Node" && e.reason.starts_with("Drain")) out.push_back(e.reason);
    }
    return out;
  }

  size_t count(const std::string& reason) const {
    return static_cast<size_t>(std::count_if(h.events.events.begin(), h.events.events.end(),
                                             [&](const auto& e) { return e.reason == reason; }));
  }

  bool stateSays(const std::string& text) const {
    const auto patches = h.writes("patchStatus");
    return std::any_of(patches.begin(), patches.end(), [&](const auto& w) {
      return w.name == "speaker-node1" && contains(w.body, text);
    });
  }
};

bool hasGshut(const std::vector<std::string>& communities) {
  return std::any_of(communities.begin(), communities.end(),
                     [](const std::string& c) { return c.starts_with("65535:0 "); });
}

BOOST_AUTO_TEST_CASE(cordon_shuts_down_gracefully_withdraws_after_the_delay_and_uncordon_restores) {
  DrainHarness d;
  firstPass(d.h);
  BOOST_REQUIRE(d.h.desired().has_value());
  const size_t serving = d.prefixes();
  BOOST_REQUIRE(serving > 0u);
  BOOST_TEST(!hasGshut(d.communities()));
  const size_t assigned = d.count("nodeAssigned");

  d.cordon(true);
  BOOST_TEST(hasGshut(d.communities()));
  BOOST_TEST(d.prefixes() == serving);  // still announced, to the same sessions
  BOOST_TEST((d.drainEvents() == std::vector<std::string>{"DrainStarted"}));
  BOOST_TEST(d.stateSays(R"("type":"draining")"));
  BOOST_TEST(d.stateSays("draining (cordoned)"));

  d.now_ms += kDelayMs - 1;  // not yet
  d.pass();
  BOOST_TEST(d.prefixes() == serving);
  d.now_ms += 1;
  d.pass();
  BOOST_TEST(d.prefixes() == 0u);
  BOOST_TEST(d.stateSays(R"("reason":"Withdrawn")"));

  d.cordon(false);
  BOOST_TEST(d.prefixes() == serving);
  BOOST_TEST(!hasGshut(d.communities()));
  BOOST_TEST((d.drainEvents() ==
              std::vector<std::string>{"DrainStarted", "DrainWithdrawn", "DrainEnded"}));
  // Re-announced with other attributes and back: no Service Event; after the withdrawal the
  // announcement is a new assignment again.
  BOOST_TEST(d.count("nodeAssigned") == assigned * 2);
}

// Off by default: a cordoned node announces as MetalLB's speaker does.
BOOST_AUTO_TEST_CASE(without_triggers_a_cordoned_node_announces_as_before) {
  Harness h(testing::node1());
  firstPass(h);
  const auto before = h.desired();
  api::Node node = *h.world.nodes.get("node1");
  node.unschedulable = true;
  testing::World::upsert(h.world.nodes, node, "2");
  h.queue.add(std::string(keys::kSync));
  h.drain();
  BOOST_TEST((h.desired() == before));
  BOOST_TEST(std::none_of(h.events.events.begin(), h.events.events.end(),
                          [](const auto& e) { return e.reason.starts_with("Drain"); }));
}

}  // namespace
}  // namespace ingot::agent
