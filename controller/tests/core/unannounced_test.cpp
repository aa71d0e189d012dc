// SPDX-License-Identifier: Apache-2.0
// Tests of the "nobody announces this address" decision: the finding and its one-line message
// for each way a Service can end up unannounced (on a three-node cluster from testdata/), the
// grace period, and the condition list edit.
#define BOOST_TEST_MODULE ingot_controller_unannounced
#include "controller/core/unannounced.h"

#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "api/manifest.h"
#include "config/config.h"

namespace {

using namespace ingot;
using namespace ingot::controller;
using namespace std::chrono_literals;

/// Cluster is the testdata file, parsed.
struct Cluster {
  config::Inputs inputs;
  config::ConfigSharedPtr config;
  std::vector<api::EndpointSlice> slices;
  std::vector<api::Service> services;

  Cluster() {
    const std::string path = std::string(std::getenv("INGOT_SOURCE_DIR")) +
                             "/controller/tests/core/testdata/unannounced.yaml";
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto set = api::loadManifestText(text.str(), path);
    BOOST_TEST_REQUIRE(set.problems.empty());
    for (auto& o : set.objects) {
      std::visit([this](auto& obj) { keep(obj); }, o.object);
    }
    auto parsed = config::parse(inputs, {});
    BOOST_TEST_REQUIRE(parsed.errors.empty());
    config = parsed.config;
  }
  void keep(api::Node& n) { inputs.nodes.push_back(n); }
  void keep(api::IPAddressPool& p) { inputs.pools.push_back(p); }
  void keep(api::L2Advertisement& a) { inputs.l2_advertisements.push_back(a); }
  void keep(api::BGPAdvertisement& a) { inputs.bgp_advertisements.push_back(a); }
  void keep(api::BGPPeer& p) { inputs.peers.push_back(p); }
  void keep(api::EndpointSlice& s) { slices.push_back(s); }
  void keep(api::Service& s) { services.push_back(s); }
  template <typename T>
  void keep(T&) {
    BOOST_FAIL("unexpected kind in testdata");
  }

  const api::Service& service(const std::string& name) const {
    for (const auto& s : services) {
      if (s.metadata.name == name) {
        return s;
      }
    }
    BOOST_FAIL("no Service " << name);
    return services.front();
  }

  AnnounceFinding find(const std::string& name,
                       const std::set<std::string>& dead,
                       const AnnounceTruth& truth) const {
    const api::Service& svc = service(name);
    const auto verdicts =
        agent::serviceVerdicts({&*config, &inputs.nodes, &slices, &svc, {}, dead});
    return findUnannounced(svc, verdicts, truth);
  }
};

const Cluster& cluster() {
  static const Cluster kCluster;
  return kCluster;
}

constexpr const char* kExcluded =
    "excluded by node.kubernetes.io/exclude-from-external-load-balancers";

struct FindingCase {
  std::string service;
  std::set<std::string> dead;
  AnnounceTruth truth;
  AnnounceState state;
  std::string message;  // for Unannounced
  size_t expected;      // for Expected: how many nodes should announce
};

BOOST_AUTO_TEST_CASE(findings_and_messages) {
  const std::string local_nodes = std::string("node1: no local endpoint (ETP Local); node2: ") +
                                  kExcluded + "; node3: no local endpoint (ETP Local)";
  const std::vector<FindingCase> cases = {
      // ETP Local, the only endpoint on the excluded node.
      {"local",
       {},
       {},
       AnnounceState::Unannounced,
       "no node announces 192.0.2.10: " + local_nodes,
       0},
      {"local",
       {"node3"},
       {},
       AnnounceState::Unannounced,
       std::string("no node announces 192.0.2.10: node1: no local endpoint (ETP Local); node2: ") +
           kExcluded + "; node3: agent not alive",
       0},
      // What the agents report wins over the decision: announced is announced.
      {"local", {}, {{"node1"}, {}}, AnnounceState::Announced, "", 0},
      {"local", {}, {{}, {"node3"}}, AnnounceState::Announced, "", 0},
      // A winner exists: nobody reports yet, but one node should (not a false alarm).
      {"cluster", {}, {}, AnnounceState::Expected, "", 1},
      {"cluster",
       {"node1", "node3"},
       {},
       AnnounceState::Unannounced,
       std::string("no node announces 192.0.2.11: node1: agent not alive; node2: ") + kExcluded +
           "; node3: agent not alive",
       0},
      {"noeps",
       {},
       {},
       AnnounceState::Unannounced,
       std::string("no node announces 192.0.2.12: node1: no serving endpoint; node2: ") +
           kExcluded + "; node3: no serving endpoint",
       0},
      {"noeps",
       {"node1", "node2", "node3"},
       {},
       AnnounceState::Unannounced,
       "no node announces 192.0.2.12: all 3 nodes: agent not alive",
       0},
      // BGP: the agent's decideBgp reasons in words.
      {"routed-local",
       {},
       {},
       AnnounceState::Unannounced,
       "no node announces 203.0.113.5: " + local_nodes,
       0},
      // A pool no advertisement names only manages addresses: not reported.
      {"bare", {}, {}, AnnounceState::NoAddress, "", 0},
      {"foreign",
       {},
       {},
       AnnounceState::Unannounced,
       "no node announces 10.200.0.1: no IPAddressPool holds all its addresses",
       0},
      {"pending", {}, {}, AnnounceState::NoAddress, "", 0},
      {"classed", {}, {}, AnnounceState::NoAddress, "", 0},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.service << " dead=" << c.dead.size()) {
      const auto f = cluster().find(c.service, c.dead, c.truth);
      BOOST_TEST(static_cast<int>(f.state) == static_cast<int>(c.state));
      BOOST_TEST(f.message == c.message);
      BOOST_TEST(f.expected.size() == c.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(expected_node_is_the_election_winner) {
  const auto f = cluster().find("cluster", {}, {});
  BOOST_TEST_REQUIRE(f.expected.size() == 1U);
  BOOST_TEST(f.expected[0] != "node2");
  // With the winner dead, the other candidate is expected instead.
  const auto g = cluster().find("cluster", {f.expected[0]}, {});
  BOOST_TEST_REQUIRE(g.expected.size() == 1U);
  BOOST_TEST(g.expected[0] != f.expected[0]);
  BOOST_TEST(g.expected[0] != "node2");
}

struct Observation {
  int at_seconds;
  AnnounceState state;
  std::string addresses;
  bool report;
  int recheck_seconds;  // -1 = none
  size_t reported;      // tracker.reported() afterwards
};

BOOST_AUTO_TEST_CASE(grace_period) {
  const std::vector<Observation> steps = {
      {0, AnnounceState::Unannounced, "a", false, 20, 0},
      {5, AnnounceState::Unannounced, "a", false, 15, 0},
      {20, AnnounceState::Unannounced, "a", true, -1, 1},
      {21, AnnounceState::Unannounced, "a", true, -1, 1},
      // An announcement clears it; unannounced again starts a new grace period.
      {22, AnnounceState::Announced, "a", false, -1, 0},
      {23, AnnounceState::Unannounced, "a", false, 20, 0},
      // An agent expected to announce resets it too.
      {30, AnnounceState::Expected, "a", false, -1, 0},
      {31, AnnounceState::Unannounced, "a", false, 20, 0},
      // New addresses restart the grace period.
      {45, AnnounceState::Unannounced, "b", false, 20, 0},
      {64, AnnounceState::Unannounced, "b", false, 1, 0},
      {65, AnnounceState::Unannounced, "b", true, -1, 1},
      {70, AnnounceState::NoAddress, "", false, -1, 0},
  };
  UnannouncedTracker tracker(20s);
  const auto start = std::chrono::steady_clock::time_point{} + 1000s;
  for (const auto& s : steps) {
    BOOST_TEST_CONTEXT("t=" << s.at_seconds) {
      AnnounceFinding f;
      f.state = s.state;
      const auto step = tracker.observe("apps/web", f, s.addresses, start + s.at_seconds * 1s);
      BOOST_TEST(step.report == s.report);
      BOOST_TEST(step.recheck_after.has_value() == (s.recheck_seconds >= 0));
      if (step.recheck_after && s.recheck_seconds >= 0) {
        BOOST_TEST(std::chrono::duration_cast<std::chrono::seconds>(*step.recheck_after).count() ==
                   s.recheck_seconds);
      }
      BOOST_TEST(tracker.reported() == s.reported);
    }
  }
  tracker.forget("apps/web");
  BOOST_TEST(tracker.reported() == 0U);
  // A report that survived a restart is not held back for a second grace period.
  AnnounceFinding f;
  f.state = AnnounceState::Unannounced;
  BOOST_TEST(tracker.observe("apps/web", f, "a", start, true).report);
  BOOST_TEST(!tracker.observe("apps/other", f, "a", start, false).report);
  BOOST_TEST(tracker.reported() == 1U);
}

api::Condition condition(std::string type, std::string status, std::string time) {
  api::Condition c;
  c.type = std::move(type);
  c.status = std::move(status);
  c.last_transition_time = std::move(time);
  return c;
}

BOOST_AUTO_TEST_CASE(conditions_edit_keeps_other_writers) {
  const auto other = condition("example.com/Other", "True", "t0");
  const auto ours_old = condition(kAnnouncedCondition, "False", "t1");
  auto ours_new = condition(kAnnouncedCondition, "False", "t2");
  ours_new.message = "new reason";
  // Replaced in place, transition time kept while the status stays False.
  auto edited = conditionsWith({other, ours_old}, ours_new);
  BOOST_TEST_REQUIRE(edited.size() == 2U);
  BOOST_TEST((edited[0] == other));
  BOOST_TEST(edited[1].message == "new reason");
  BOOST_TEST(edited[1].last_transition_time == "t1");
  // A status change takes the new transition time.
  edited = conditionsWith({ours_old, other}, condition(kAnnouncedCondition, "True", "t3"));
  BOOST_TEST_REQUIRE(edited.size() == 2U);
  BOOST_TEST(edited[0].last_transition_time == "t3");
  BOOST_TEST((edited[1] == other));
  // Added at the end; removed leaving the others.
  edited = conditionsWith({other}, ours_new);
  BOOST_TEST_REQUIRE(edited.size() == 2U);
  BOOST_TEST(edited[1].last_transition_time == "t2");
  edited = conditionsWith({other, ours_old}, std::nullopt);
  BOOST_TEST_REQUIRE(edited.size() == 1U);
  BOOST_TEST((edited[0] == other));
  api::Service svc;
  svc.status.conditions = {other, ours_old};
  BOOST_TEST_REQUIRE(announcedCondition(svc) != nullptr);
  BOOST_TEST(announcedCondition(svc)->last_transition_time == "t1");
  svc.status.conditions = {other};
  BOOST_TEST(announcedCondition(svc) == nullptr);
}

}  // namespace
