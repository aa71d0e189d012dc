// SPDX-License-Identifier: Apache-2.0
// ingot-agent answering ARP for a Layer 2 Service: the test creates two network namespaces joined
// by a veth pair and runs the test API server, kubectl and the agent inside the node's one; a
// peer namespace arpings the Service address. Skipped unless root with arping installed. It runs in
// its own test binary: the API client's worker threads are created at its first request and stay
// in the namespace they were created in, so no request may precede entering the node's namespace.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

#include <boost/test/unit_test.hpp>

#include "agent/tests/l2/netns.h"
#include "agent/tests/support/agent_process.h"
#include "agent/tests/support/examples.h"
#include "api/codec.h"
#include "controller/tests/integration/fixture.h"
#include "kube/resources.h"

using namespace ingot;
using namespace ingot::controller::testing;
using ingot::agent::l2::test::count;
using ingot::agent::l2::test::InNetns;
using ingot::agent::l2::test::lower;
using ingot::agent::l2::test::VethLab;
using ingot::agent::testing::AgentProcess;

namespace {

namespace res = k8s::resources;

boost::test_tools::assertion_result canRun(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result ok(geteuid() == 0);
  if (!ok) {
    ok.message() << "skipped: creating network namespaces needs root";
    return ok;
  }
  ok = boost::test_tools::assertion_result(runCommand("command -v arping").exit_code == 0);
  ok.message() << "skipped: arping is not installed";
  return ok;
}

/// objects: the namespace, node1, the Layer 2 pool and advertisement, one Service and its slice.
const std::string kObjects = R"(apiVersion: v1
kind: Namespace
metadata: {name: web}
---
apiVersion: v1
kind: Node
metadata:
  name: node1
  labels: {kubernetes.io/hostname: node1}
---
)" + std::string(agent::testing::kL2PoolYaml) +
                             R"(---
apiVersion: v1
kind: Service
metadata: {name: frontend, namespace: web}
spec:
  type: LoadBalancer
  ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: frontend-a
  namespace: web
  labels: {kubernetes.io/service-name: frontend}
addressType: IPv4
endpoints:
  - addresses: [10.244.1.5]
    conditions: {ready: true}
    nodeName: node1
ports: [{name: http, protocol: TCP, port: 8080}]
)";

std::vector<api::ServiceL2Status> l2Statuses(k8s::ApiClient& api) {
  std::vector<api::ServiceL2Status> out;
  auto page = api.list(res::kServiceL2Statuses, "metallb-system", {});
  if (!page) {
    return out;
  }
  for (const auto& item : page->items) {
    if (auto s = api::decodeJson<api::ServiceL2Status>(item)) {
      out.push_back(*s);
    }
  }
  return out;
}

/// mac returns an interface's MAC, lower case.
std::string mac(const VethLab& lab, const std::string& ns, const std::string& link) {
  const std::string out = lower(lab.in(ns, "cat /sys/class/net/" + link + "/address"));
  return out.substr(0, out.find('\n'));
}

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

/// applyWithAddress applies yaml (kObjects and more) with kubectl and gives web/frontend the
/// address 192.0.2.100, as the controller would.
void applyWithAddress(Cluster& cluster, const std::string& yaml) {
  const std::string file = cluster.server->dir() + "/l2.yaml";
  BOOST_REQUIRE(writeWholeFile(file, yaml).has_value());
  cluster.kubectlOk("apply -f " + file);
  auto st =
      cluster.api->patchStatus(res::kServices, "web", "frontend", k8s::PatchType::Merge,
                               R"({"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.100"}]}}})");
  BOOST_REQUIRE_MESSAGE(st.has_value(), why(st));
}

/// startReady starts the agent of node1 (no excluded interface) and waits until it is ready.
std::unique_ptr<AgentProcess> startReady(Cluster& cluster) {
  auto started = AgentProcess::start(
      cluster.server->kubeconfig(), cluster.server->dir(),
      {"--node-name=node1", "--excludel2-path=" + cluster.server->dir() + "/no-excludel2.yaml"});
  BOOST_REQUIRE_MESSAGE(started.has_value(), why(started));
  BOOST_REQUIRE_MESSAGE((*started)->waitReady(Millis(30000)), (*started)->log());
  return std::move(*started);
}

}  // namespace

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
