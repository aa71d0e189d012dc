// SPDX-License-Identifier: Apache-2.0
// The agent's request economy with BGP (frr-k8s mode, node1): on the examples plus kServices more
// Services with addresses, a full pass, a re-list after 410 and a restart with nothing changed
// write no object (see economy.h); the Layer 2 counterpart is layer2_economy_test.cpp.
#include "agent/tests/integration/economy.h"

#include <boost/test/unit_test.hpp>

#include "agent/tests/support/examples.h"

using namespace ingot;
using namespace ingot::controller::testing;
using namespace ingot::agent::testing::economy;
using ingot::agent::testing::AgentProcess;
using ingot::agent::testing::bgpExamplesYaml;

namespace {

namespace res = k8s::resources;

constexpr int kServices = 20;

/// sliceJson is an EndpointSlice of Service name with one ready endpoint on node1.
std::string sliceJson(const std::string& name) {
  return R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":")" +
         name + R"(-a","namespace":"shop","labels":{"kubernetes.io/service-name":")" + name +
         R"("}},"addressType":"IPv4","endpoints":[{"addresses":["10.244.1.9"],)" +
         R"("conditions":{"ready":true},"nodeName":"node1"}]})";
}

/// setUp applies the examples and kServices more Services in shop with the addresses the
/// controller would give them.
void setUp(Cluster& cluster) {
  const std::string file = cluster.server->dir() + "/examples.yaml";
  BOOST_REQUIRE(writeWholeFile(file, bgpExamplesYaml()).has_value());
  cluster.kubectlOk("apply -f " + file);
  for (int i = 0; i <= kServices; ++i) {
    const std::string name = i == 0 ? "checkout" : "svc-" + std::to_string(i);
    if (i > 0) {
      cluster.createService("shop", name);
      cluster.create(res::kEndpointSlices, "shop", sliceJson(name));
    }
    auto st =
        cluster.api->patchStatus(res::kServices, "shop", name, k8s::PatchType::Merge,
                                 R"({"status":{"loadBalancer":{"ingress":[{"ip":"198.51.100.)" +
                                     std::to_string(i) + R"("}]}}})");
    BOOST_REQUIRE_MESSAGE(st.has_value(), why(st));
  }
}

std::unique_ptr<AgentProcess> startAgent(Cluster& cluster) {
  auto started = AgentProcess::start(cluster.server->kubeconfig(), cluster.server->dir(),
                                     {"--node-name=node1", "--kube-api-qps=0"});
  BOOST_REQUIRE_MESSAGE(started.has_value(), why(started));
  BOOST_REQUIRE_MESSAGE((*started)->waitReady(Millis(30000)), (*started)->log());
  return std::move(*started);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(economy)

BOOST_AUTO_TEST_CASE(full_pass_relist_after_410_and_restart_write_no_object) {
  Cluster cluster(kEconomyServerArgs);
  setUp(cluster);
  Economy e{cluster, "shop", [&] { return startAgent(cluster); }, startAgent(cluster)};
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(60000),
                                [&] {
                                  const Versions v = e.snapshot();
                                  return count(v, "servicebgpstatuses") == kServices + 1 &&
                                         count(v, "frrconfigurations") == 1 &&
                                         count(v, "configurationstates") == 1 &&
                                         count(v, "events") >= kServices + 1 && idle(*e.agent);
                                }),
                        "not converged:\n" + e.agent->log());
  e.check();
}

BOOST_AUTO_TEST_SUITE_END()
