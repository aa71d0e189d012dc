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

/// L2Probe keeps the Layer 2 part of every Desired it is handed, after a full pass or alone.
struct L2Probe final : Backend {
  explicit L2Probe(std::vector<L2Announcement>& seen) : seen_(seen) {}
  std::string_view key() const override { return "probe"; }
  ReconcileKind reconcileKind() const override { return ReconcileKind::Layer2; }
  std::optional<k8s::Duration> update(const Desired& desired) override {
    seen_ = desired.l2;
    return std::nullopt;
  }
  std::optional<k8s::Duration> updateLayer2(const Desired& desired) override {
    return update(desired);
  }
  ReconcileResult apply() override { return ReconcileResult::done(); }
  std::vector<L2Announcement>& seen_;
};

/// L2Handoff is an agent on node with the cordon trigger and the examples/l2 Service (ETP
/// Cluster, every node a candidate), whose Layer 2 part an L2Probe keeps.
struct L2Handoff {
  explicit L2Handoff(const std::string& node) : name(node) {
    testing::startWithL2Service(h, R"(---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: all, namespace: metallb-system}
spec:
  ipAddressPools: [l2-pool]
)");
  }
  std::string name;
  int64_t now_ms = 1'000'000;
  std::vector<L2Announcement> seen;
  Harness h{[this] {
              ReconcilerOptions o = testing::node1();
              o.node = name;
              o.announce.drain.triggers = {DrainTrigger::Cordon};
              o.wall_clock = [this] { return now_ms; };
              return o;
            }(),
            nullptr, [this](const BackendContext&) { return std::make_unique<L2Probe>(seen); }};

  void cordon() {
    api::Node node = *h.world.nodes.get(name);
    node.unschedulable = true;
    testing::World::upsert(h.world.nodes, node, "2");
    h.queue.add(std::string(keys::kSync));
    h.drain();
  }

  /// reports puts a ServiceL2Status of node for web/frontend, as the informer would, and queues
  /// the Layer 2 backend's key as its event does.
  void reports(const std::string& node) {
    api::ServiceL2Status st;
    st.metadata.namespace_ = "metallb-system";
    st.metadata.name = "l2-" + node;
    st.metadata.labels = {
        {kNodeLabel, node}, {kServiceNameLabel, "frontend"}, {kServiceNamespaceLabel, "web"}};
    st.status.node = node;
    testing::World::upsert(h.world.l2_statuses, st);
    h.queue.add(std::string(keys::kLayer2));
    h.drain();
  }

  /// answered renders seen: "web/frontend" or "web/frontend handing off"; "" when nothing.
  std::string answered() const {
    if (seen.empty()) return "";
    return seen.front().key() + (seen.front().handing_off ? " handing off" : "");
  }
};

/// l2Winner is the node of the examples that wins web/frontend's address.
std::string l2Winner() {
  for (const std::string node : {"node1", "node2"}) {
    L2Handoff probe(node);
    if (!probe.seen.empty()) return node;
  }
  BOOST_FAIL("no node of the examples wins web/frontend");
  return "";
}

// A cordoned owner keeps answering its address, claiming nothing, until kL2HandOffSettleMs after
// the new owner's ServiceL2Status names it for the Service (the new owner writes it once it told
// its responder); its own status proves nothing.
BOOST_AUTO_TEST_CASE(cordoned_owner_answers_until_the_new_owner_reports_the_service) {
  const std::string owner = l2Winner();
  L2Handoff d(owner);
  BOOST_TEST(d.answered() == "web/frontend");
  d.cordon();
  BOOST_TEST(d.answered() == "web/frontend handing off");
  d.reports(owner);
  BOOST_TEST(d.answered() == "web/frontend handing off");
  d.reports(owner == "node1" ? "node2" : "node1");  // the other node of the examples: the winner
  BOOST_TEST(d.answered() == "web/frontend handing off");  // its responder may not answer yet
  d.now_ms += kL2HandOffSettleMs;
  d.h.queue.add(std::string(keys::kLayer2));
  d.h.drain();
  BOOST_TEST(d.answered() == "");
  BOOST_TEST(std::any_of(d.h.logs.begin(), d.h.logs.end(), [](const std::string& line) {
    return testing::contains(line, "newOwnerAnnounced");
  }));
}

// Without a report from the new owner the hand-off ends at its upper bound (2 s).
BOOST_AUTO_TEST_CASE(cordoned_owner_stops_answering_at_the_bound_without_a_report) {
  L2Handoff d(l2Winner());
  d.cordon();
  BOOST_TEST(d.answered() == "web/frontend handing off");
  d.now_ms += 2000;
  d.h.queue.add(std::string(keys::kSync));
  d.h.drain();
  BOOST_TEST(d.answered() == "");
}

}  // namespace
}  // namespace ingot::agent
