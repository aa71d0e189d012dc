// SPDX-License-Identifier: Apache-2.0
// An agent that cannot serve BGP: Layer 2 only (--bgp-mode=none, NoBgpBackend) or frr-k8s not
// installed (FrrK8sBackend finds FRRConfiguration not served). Nothing is announced over BGP,
// the BGPPeers of the node are reported (ConfigurationState, Event), Layer 2 is unchanged, and
// frr-k8s appearing or going away switches BGP on or off without a restart.
#include <boost/test/unit_test.hpp>

#include "agent/tests/daemon/fixtures.h"

namespace ingot::agent {
namespace {

using testing::contains;
using testing::DesiredProbe;
using testing::Harness;
using testing::node1;
using testing::startWithL2Service;

/// kNode1Ad is an L2Advertisement of examples/l2's pool for every node.
const std::string kNode1Ad = R"(---
apiVersion: metallb.io/v1beta1
kind: L2Advertisement
metadata: {name: all, namespace: metallb-system}
spec:
  ipAddressPools: [l2-pool]
)";

const Error kNotServed{ErrorCode::NotFound,
                       "list frrconfigurations: the server could not find the requested resource"};

/// writesOf returns the fake client's creates and updates whose body holds kind.
std::vector<k8s::testing::Write> writesOf(const Harness& h, const std::string& kind) {
  std::vector<k8s::testing::Write> out;
  for (const auto& w : h.api.writes()) {
    if ((w.verb == "create" || w.verb == "update") &&
        contains(w.body, "\"kind\":\"" + kind + "\"")) {
      out.push_back(w);
    }
  }
  return out;
}

/// lastState returns the body of the last ConfigurationState status patch ("" when none).
std::string lastState(const Harness& h) {
  std::string out;
  for (const auto& w : h.writes("patchStatus")) {
    if (w.name == "speaker-node1") out = w.body;
  }
  return out;
}

/// bgpEvents returns the BGPNotAvailable Events.
std::vector<testing::RecordedEvent> bgpEvents(const Harness& h) {
  std::vector<testing::RecordedEvent> out;
  for (const auto& e : h.events.events) {
    if (e.reason == "BGPNotAvailable") out.push_back(e);
  }
  return out;
}

const std::string kFalseCondition = R"("type":"bgpBackendValid","status":"False")";

BOOST_AUTO_TEST_CASE(a_bgp_agent_announces_the_examples_over_bgp) {
  // The baseline the cases below differ from: the same objects with BGP.
  Harness h(node1());
  startWithL2Service(h, kNode1Ad);
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(writesOf(h, "FRRConfiguration").size() == 1u);
  BOOST_TEST(!writesOf(h, "ServiceBGPStatus").empty());
  BOOST_TEST(!contains(lastState(h), "bgpBackendValid"));
  BOOST_TEST(bgpEvents(h).empty());
}

BOOST_AUTO_TEST_CASE(a_layer2_only_agent_reports_its_bgp_peers_and_answers_layer2) {
  std::vector<L2Announcement> seen;
  Harness h(
      node1(), nullptr,
      [&seen](const BackendContext&) { return std::make_unique<DesiredProbe>(seen); },
      [](const BackendContext&) { return std::make_unique<NoBgpBackend>("Layer 2 only"); });
  startWithL2Service(h, kNode1Ad);
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  // Layer 2 is decided as with BGP: node1 answers for web/frontend.
  BOOST_REQUIRE_EQUAL(seen.size(), 1u);
  BOOST_TEST(seen[0].key() == "web/frontend");
  // Nothing is announced or reported as announced over BGP.
  BOOST_TEST(writesOf(h, "FRRConfiguration").empty());
  BOOST_TEST(writesOf(h, "ServiceBGPStatus").empty());
  for (const auto& e : h.events.events) {
    BOOST_TEST(!(e.reason == "nodeAssigned" && contains(e.message, "\"bgp\"")), e.message);
  }
  // tor1 selects node1: it is reported, once, in the ConfigurationState and on the Node.
  const std::string state = lastState(h);
  BOOST_TEST(contains(state, kFalseCondition), state);
  BOOST_TEST(contains(state, R"("reason":"BGPNotAvailable")"), state);
  BOOST_TEST(contains(state, "BGPPeer tor1 not served: Layer 2 only"), state);
  BOOST_TEST(contains(state, "BGP needs frr-k8s"), state);
  BOOST_TEST(contains(state, R"("result":"Valid")"), state);
  auto events = bgpEvents(h);
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST((events[0].type == k8s::EventType::Warning));
  BOOST_TEST(events[0].object.kind == "Node");
  BOOST_TEST(events[0].object.name == "node1");
  BOOST_TEST(contains(events[0].message, "BGPPeer tor1"));
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  BOOST_TEST(bgpEvents(h).size() == 1u);  // the same report is not repeated
}

BOOST_AUTO_TEST_CASE(a_layer2_only_agent_without_bgp_peers_reports_nothing) {
  Harness h(node1(), nullptr, nullptr,
            [](const BackendContext&) { return std::make_unique<NoBgpBackend>("Layer 2 only"); });
  const std::string dir = testing::sourceDir() + "/examples/";
  testing::firstPass(h, testing::readFile(dir + "l2/pool.yaml") + "\n---\n" +
                            testing::readFile(dir + "cluster/nodes.yaml"));
  BOOST_TEST(!lastState(h).empty());
  BOOST_TEST(!contains(lastState(h), "bgpBackendValid"));
  BOOST_TEST(bgpEvents(h).empty());
}

BOOST_AUTO_TEST_CASE(frr_k8s_missing_turns_bgp_off_until_it_is_installed_and_after_it_goes) {
  Harness h(node1());
  h.api.lists = {kNotServed};
  h.reconciler.startBackends();  // the agent's start-up probe: not served
  startWithL2Service(h, kNode1Ad);
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(writesOf(h, "FRRConfiguration").empty());
  BOOST_TEST(writesOf(h, "ServiceBGPStatus").empty());
  BOOST_TEST(contains(lastState(h), kFalseCondition));
  BOOST_TEST(contains(lastState(h), "frr-k8s is not installed"), lastState(h));
  BOOST_TEST(bgpEvents(h).size() == 1u);

  // Still missing at the next probe: nothing written, asked again later.
  h.api.lists = {kNotServed};
  h.clock.advance(std::chrono::seconds(10));
  h.drain();
  BOOST_TEST(writesOf(h, "FRRConfiguration").empty());
  BOOST_TEST(h.api.lists.empty());  // the probe ran

  // frr-k8s installed: the next probe finds the resource and BGP is on, without a restart.
  h.api.lists = {k8s::ListPage{{}, "5", ""}};
  h.clock.advance(std::chrono::seconds(10));
  h.drain();
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(writesOf(h, "FRRConfiguration").size() == 1u);
  BOOST_TEST(!writesOf(h, "ServiceBGPStatus").empty());
  BOOST_TEST(!contains(lastState(h), "bgpBackendValid"), lastState(h));

  // frr-k8s uninstalled (its CRD deleted): the next write finds no resource, the probe says so,
  // BGP is off again and its ServiceBGPStatus objects go; the key is not retried in a loop.
  const size_t removes = h.writes("remove").size();
  h.api.write_results = {Error{ErrorCode::NotFound,
                               "the server could not find the requested "
                               "resource"}};
  h.api.lists = {kNotServed};
  h.queue.add(std::string(keys::kBgp));
  h.drain();
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(contains(lastState(h), "frr-k8s is not installed"), lastState(h));
  BOOST_TEST(bgpEvents(h).size() == 2u);
  BOOST_TEST(h.writes("remove").size() > removes);  // the ServiceBGPStatus objects
  BOOST_TEST(h.results[std::string(keys::kBgp)].ok());
}

BOOST_AUTO_TEST_CASE(a_404_of_the_frrconfiguration_watch_makes_the_backend_ask_again) {
  Harness h(node1());
  startWithL2Service(h, kNode1Ad);  // not probed: FRRConfiguration counts as served
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(writesOf(h, "FRRConfiguration").size() == 1u);
  // The informer's list or watch got a 404 (the CRD was deleted): the backend asks.
  h.api.lists = {kNotServed};
  h.queue.add(std::string(keys::kRecheck));
  h.drain();
  BOOST_TEST(contains(lastState(h), "frr-k8s is not installed"), lastState(h));
  // ...and asks again later on its own: frr-k8s is back, so is BGP.
  h.api.lists = {k8s::ListPage{{}, "9", ""}};
  h.clock.advance(std::chrono::seconds(10));
  h.drain();
  h.clock.advance(std::chrono::seconds(1));
  h.drain();
  BOOST_TEST(!contains(lastState(h), "bgpBackendValid"), lastState(h));
  BOOST_TEST(writesOf(h, "FRRConfiguration").size() == 2u);
}

}  // namespace
}  // namespace ingot::agent
