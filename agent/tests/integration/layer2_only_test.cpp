// SPDX-License-Identifier: Apache-2.0
// A Layer 2 only cluster: the test API server serves no frr-k8s CRD. ingot-agent in its default
// mode answers ARP (a veth pair in network namespaces the test creates, as layer2_test.cpp),
// reports the BGPPeer it cannot serve, turns BGP on when frr-k8s' CRD is installed and off when
// it is deleted, and keeps answering. Skipped unless root with arping installed; its own test
// binary (layer2_fixture.h says why).
#define BOOST_TEST_MODULE ingot_agent_layer2_only_test
#include <algorithm>
#include <cstdlib>
#include <optional>

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

namespace {

/// kBgpPeerYaml is a BGPPeer of every node, which a cluster without frr-k8s cannot serve.
const std::string kBgpPeerYaml = R"(---
apiVersion: metallb.io/v1beta2
kind: BGPPeer
metadata: {name: tor, namespace: metallb-system}
spec: {myASN: 64512, peerASN: 64513, peerAddress: 192.0.2.254}
)";

/// bgpCondition returns speaker-node1's bgpBackendValid condition message, nullopt without one
/// ("" when the object is missing too).
std::optional<std::string> bgpCondition(k8s::ApiClient& api) {
  auto raw = api.get(res::kConfigurationStates, "metallb-system", "speaker-node1");
  if (!raw) {
    return std::nullopt;
  }
  auto state = api::decodeJson<api::ConfigurationState>(*raw);
  if (!state) {
    return std::nullopt;
  }
  for (const auto& c : state->status.conditions) {
    if (c.type == "bgpBackendValid" && c.status == "False") {
      return c.message;
    }
  }
  return std::nullopt;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(layer2_only, *boost::unit_test::precondition(canRun))

// A Layer 2 only cluster: no frr-k8s CRDs at all. The agent (default frr-k8s mode) starts, answers
// ARP, reports the BGPPeer it cannot serve; BGP comes on when frr-k8s' CRD is installed and goes
// off when it is deleted, while the agent keeps answering.
BOOST_AUTO_TEST_CASE(agent_without_frr_k8s_answers_arp_and_follows_the_crd) {
  VethLab lab;
  lab.in(lab.node, "ip link set lo up");
  lab.in(lab.node, "ip addr add 192.0.2.1/24 dev n0");
  const std::string n0 = mac(lab, lab.node, "n0");
  InNetns in(lab.node);
  const std::string source = std::getenv("INGOT_SOURCE_DIR");
  Cluster cluster({"--crd-dir", source + "/crds"});  // metallb.io only
  auto& api = *cluster.api;
  BOOST_REQUIRE(!api.list(res::kFrrConfigurations, "metallb-system", {}).has_value());
  applyWithAddress(cluster, kObjects + kBgpPeerYaml);
  const auto started = startReady(cluster);
  auto& agent = *started;
  auto replies = [&] {
    return count(lower(lab.in(lab.peer, "arping -c 1 -w 1 -I p0 192.0.2.100", false)),
                 "reply from 192.0.2.100 [" + n0 + "]");
  };
  BOOST_TEST(waitFor(Millis(20000), [&] { return replies() > 0; }), agent.log());
  BOOST_TEST(waitFor(Millis(10000), [&] { return l2Statuses(api).size() == 1; }));
  // The BGPPeer is reported, not served: ConfigurationState and a Warning Event on the Node.
  BOOST_TEST(waitFor(Millis(10000),
                     [&] {
                       auto m = bgpCondition(api);
                       return m && m->find("BGPPeer tor not served: frr-k8s is not installed") !=
                                       std::string::npos;
                     }),
             agent.log());
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto ev = eventsFor(api, "default", "node1");
    return ev && std::any_of(ev->begin(), ev->end(), [](const std::string& e) {
             return e.rfind("Warning BGPNotAvailable metallb-speaker: BGPPeer tor", 0) == 0;
           });
  }));
  // No warning per informer retry: the missing resource is expected.
  BOOST_TEST(agent.log().find("could not find the requested resource\",\"level\":\"warn") ==
             std::string::npos);

  // frr-k8s installed: BGP comes on without a restart.
  cluster.kubectlOk("apply -f " + source +
                    "/e2e/kubeapi/crds/frrk8s.metallb.io_frrconfigurations.yaml");
  BOOST_TEST(
      waitFor(
          Millis(30000),
          [&] {
            return api.get(res::kFrrConfigurations, "metallb-system", "metallb-node1").has_value();
          }),
      agent.log());
  BOOST_TEST(waitFor(Millis(10000), [&] { return !bgpCondition(api).has_value(); }));

  // frr-k8s uninstalled: the agent keeps running and answering, and reports the peer again.
  cluster.kubectlOk("delete crd frrconfigurations.frrk8s.metallb.io");
  BOOST_TEST(waitFor(Millis(30000), [&] { return bgpCondition(api).has_value(); }), agent.log());
  BOOST_TEST(agent.process().running());
  BOOST_TEST(replies() > 0);

  const auto code = agent.process().terminate(Millis(15000));
  BOOST_REQUIRE_MESSAGE(code.has_value(), "agent did not stop on SIGTERM:\n" + agent.log());
  BOOST_TEST(*code == 0);
}

BOOST_AUTO_TEST_SUITE_END()
