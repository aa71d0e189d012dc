// SPDX-License-Identifier: Apache-2.0
// The agent's request economy with Layer 2 (see economy.h): node1's agent answers ARP for the
// Services whose endpoints are on node1 and has their ServiceL2Status objects; the Services whose
// endpoints are only on node2 are node2's (its ServiceL2Status, made by the test, stands for
// node2's agent). A full pass, a re-list after 410 and a restart with nothing changed write no
// ServiceL2Status and touch node2's. The responder answers on a veth inside network namespaces
// the test creates, so it needs root. Its own test binary, like layer2_test.cpp: the API client's
// worker threads are born at the first request and stay in that thread's namespace.
#define BOOST_TEST_MODULE ingot_agent_layer2_economy_test
#include <boost/test/unit_test.hpp>

#include "agent/tests/integration/economy.h"
#include "agent/tests/l2/netns.h"
#include "agent/tests/support/examples.h"

using namespace ingot;
using namespace ingot::controller::testing;
using namespace ingot::agent::testing::economy;
using ingot::agent::l2::test::InNetns;
using ingot::agent::l2::test::VethLab;
using ingot::agent::testing::AgentProcess;

namespace {

namespace res = k8s::resources;

constexpr int kLocal = 5;   ///< Services with their endpoint on node1: node1 answers
constexpr int kRemote = 2;  ///< Services with their endpoint on node2 only: node2's

boost::test_tools::assertion_result isRoot(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result ok(geteuid() == 0);
  ok.message() << "skipped: creating network namespaces needs root";
  return ok;
}

std::string serviceName(int i) {
  return i < kLocal ? "local-" + std::to_string(i) : "remote-" + std::to_string(i - kLocal);
}

/// world is the pool, the L2Advertisement on n0, the nodes and kLocal + kRemote Services with
/// externalTrafficPolicy Local, each with one ready endpoint.
std::string world() {
  std::string y = R"(apiVersion: v1
kind: Namespace
metadata: {name: web}
---
)" + std::string(agent::testing::kL2PoolYaml);
  for (const char* node : {"node1", "node2"}) {
    y += std::string("---\napiVersion: v1\nkind: Node\nmetadata:\n  name: ") + node +
         "\n  labels: {kubernetes.io/hostname: " + node + "}\n";
  }
  for (int i = 0; i < kLocal + kRemote; ++i) {
    const std::string name = serviceName(i);
    y += "---\napiVersion: v1\nkind: Service\nmetadata: {name: " + name +
         ", namespace: web}\nspec:\n  type: LoadBalancer\n  externalTrafficPolicy: Local\n"
         "  ports: [{name: http, protocol: TCP, port: 80, targetPort: 8080}]\n";
    y += "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: " + name +
         "-a\n  namespace: web\n  labels: {kubernetes.io/service-name: " + name +
         "}\naddressType: IPv4\nendpoints:\n  - addresses: [10.244.1." + std::to_string(i + 1) +
         "]\n    conditions: {ready: true}\n    nodeName: " + (i < kLocal ? "node1" : "node2") +
         "\nports: [{name: http, protocol: TCP, port: 8080}]\n";
  }
  return y;
}

/// setUp applies the world, gives every Service its address as the controller would, and
/// creates node2's ServiceL2Status for each of its Services.
void setUp(Cluster& cluster) {
  const std::string file = cluster.server->dir() + "/l2.yaml";
  BOOST_REQUIRE(writeWholeFile(file, world()).has_value());
  cluster.kubectlOk("apply -f " + file);
  for (int i = 0; i < kLocal + kRemote; ++i) {
    const std::string name = serviceName(i);
    auto st = cluster.api->patchStatus(res::kServices, "web", name, k8s::PatchType::Merge,
                                       R"({"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.)" +
                                           std::to_string(100 + i) + R"("}]}}})");
    BOOST_REQUIRE_MESSAGE(st.has_value(), why(st));
    if (i < kLocal) {
      continue;
    }
    cluster.create(res::kServiceL2Statuses, "metallb-system",
                   R"({"apiVersion":"metallb.io/v1beta1","kind":"ServiceL2Status","metadata":)"
                   R"({"name":"l2-node2-)" +
                       name +
                       R"(","namespace":"metallb-system","labels":)"
                       R"({"metallb.io/node":"node2","metallb.io/service-name":")" +
                       name + R"(","metallb.io/service-namespace":"web"}}})");
    auto s = cluster.api->patchStatus(
        res::kServiceL2Statuses, "metallb-system", "l2-node2-" + name, k8s::PatchType::Merge,
        R"({"status":{"node":"node2","serviceName":")" + name +
            R"(","serviceNamespace":"web","interfaces":[{"name":"n0"}]}})");
    BOOST_REQUIRE_MESSAGE(s.has_value(), why(s));
  }
}

std::unique_ptr<AgentProcess> startAgent(Cluster& cluster) {
  auto started =
      AgentProcess::start(cluster.server->kubeconfig(), cluster.server->dir(),
                          {"--node-name=node1", "--kube-api-qps=0",
                           "--excludel2-path=" + cluster.server->dir() + "/no-excludel2.yaml"});
  BOOST_REQUIRE_MESSAGE(started.has_value(), why(started));
  BOOST_REQUIRE_MESSAGE((*started)->waitReady(Millis(30000)), (*started)->log());
  return std::move(*started);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(layer2_economy, *boost::unit_test::precondition(isRoot))

BOOST_AUTO_TEST_CASE(full_pass_relist_after_410_and_restart_write_no_service_l2_status) {
  VethLab lab;
  lab.in(lab.node, "ip link set lo up");
  // An IPv4 address besides loopback: the API client's resolver asks for configured families.
  lab.in(lab.node, "ip addr add 192.0.2.1/24 dev n0");
  // Everything below (API server, kubectl, agent) runs in the node's namespace.
  InNetns in(lab.node);
  Cluster cluster(kEconomyServerArgs);
  setUp(cluster);
  Economy e{cluster, "web", [&] { return startAgent(cluster); }, startAgent(cluster)};
  // Converged: node1's kLocal statuses (after the conflict probes) next to node2's, and the
  // nodeAssigned Events of node1's Services.
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(60000),
                                [&] {
                                  const Versions v = e.snapshot();
                                  return count(v, "servicel2statuses") == kLocal + kRemote &&
                                         count(v, "configurationstates") == 1 &&
                                         count(v, "events") >= kLocal && idle(*e.agent);
                                }),
                        "not converged:\n" + e.agent->log());
  e.check();
}

BOOST_AUTO_TEST_SUITE_END()
