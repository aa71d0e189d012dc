// SPDX-License-Identifier: Apache-2.0
// ingot-agent answering ARP for a Layer 2 Service: the test creates two network namespaces joined
// by a veth pair and runs the test API server, kubectl and the agent inside the node's one; a
// peer namespace arpings the Service address. Skipped unless root with arping installed. It runs in
// its own test binary (layer2_fixture.h says why).
#include <algorithm>

#include <boost/test/unit_test.hpp>

#include "agent/tests/integration/layer2_fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;
using namespace ingot::agent::testing::layer2;
using ingot::agent::l2::test::count;
using ingot::agent::l2::test::InNetns;
using ingot::agent::l2::test::lower;
using ingot::agent::l2::test::VethLab;
using ingot::agent::testing::AgentProcess;

BOOST_AUTO_TEST_SUITE(layer2, *boost::unit_test::precondition(canRun))

BOOST_AUTO_TEST_CASE(agent_answers_arp_for_its_service_and_reports_it) {
  VethLab lab;
  lab.in(lab.node, "ip link set lo up");
  // An IPv4 address besides loopback: the API client's resolver asks for configured families.
  lab.in(lab.node, "ip addr add 192.0.2.1/24 dev n0");
  const std::string n0 = mac(lab, lab.node, "n0");
  // Everything below (API server, kubectl, agent) runs in the node's namespace.
  InNetns in(lab.node);
  Cluster cluster;
  auto& api = *cluster.api;
  applyWithAddress(cluster, kObjects);
  const auto started = startReady(cluster);
  auto& agent = *started;
  auto arping = [&](int n, int wait_s) {
    return lower(lab.in(
        lab.peer,
        "arping -c " + std::to_string(n) + " -w " + std::to_string(wait_s) + " -I p0 192.0.2.100",
        false));
  };
  BOOST_REQUIRE_MESSAGE(
      waitFor(Millis(20000), [&] { return count(arping(1, 1), "reply from") > 0; }), agent.log());
  // Every request gets exactly one reply, with n0's MAC.
  const std::string replies = arping(3, 10);
  BOOST_TEST(count(replies, "reply from 192.0.2.100 [" + n0 + "]") == 3u, replies);
  BOOST_TEST(count(replies, "reply from") == 3u, replies);

  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto s = l2Statuses(api);
    return s.size() == 1 && s[0].metadata.name.rfind("l2-", 0) == 0 &&
           s[0].metadata.labels["metallb.io/node"] == "node1" &&
           s[0].metadata.labels["metallb.io/service-name"] == "frontend" &&
           s[0].metadata.labels["metallb.io/service-namespace"] == "web" &&
           s[0].status == api::ServiceL2StatusStatus{"node1", "frontend", "web", {"n0"}};
  }));
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto ev = eventsFor(api, "web", "frontend");
    return ev && std::find(ev->begin(), ev->end(),
                           "Normal nodeAssigned metallb-speaker: announcing from node \"node1\" "
                           "with protocol \"layer2\"") != ev->end();
  }));
  BOOST_TEST(agent.metric(R"(metallb_speaker_announced{ip="192.0.2.100",node="node1",)"
                          R"(protocol="layer2",service="web/frontend"})") == 1);
  BOOST_TEST(agent.metric(R"(metallb_layer2_responses_sent{ip="192.0.2.100"})") >= 3);

  // The Service goes: no more answers, the ServiceL2Status is deleted.
  BOOST_REQUIRE(removeRetrying(api, res::kServices, "web", "frontend").has_value());
  BOOST_TEST(waitFor(Millis(15000), [&] { return l2Statuses(api).empty(); }), agent.log());
  BOOST_TEST(waitFor(Millis(15000), [&] { return count(arping(1, 1), "reply from") == 0; }));
  BOOST_TEST(agent.metric(R"(metallb_speaker_announced{ip="192.0.2.100",node="node1",)"
                          R"(protocol="layer2",service="web/frontend"})") == -1);

  const auto code = agent.process().terminate(Millis(15000));
  BOOST_REQUIRE_MESSAGE(code.has_value(), "agent did not stop on SIGTERM:\n" + agent.log());
  BOOST_TEST(*code == 0);
}

BOOST_AUTO_TEST_SUITE_END()
