// SPDX-License-Identifier: Apache-2.0
// The agent's request economy with BGP (frr-k8s mode, node1): on the examples plus kServices more
// Services with addresses, a full pass, a re-list after 410 and a restart with nothing changed
// write no object (see economy.h); the Layer 2 counterpart is layer2_economy_test.cpp. The same
// world under a 429 storm and 504s on creates (the faults suite) converges without duplicates.
#include "agent/tests/integration/economy.h"

#include <map>

#include <boost/test/unit_test.hpp>

#include "agent/tests/support/examples.h"
#include "api/codec.h"

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

/// setFaults replaces the server's fault plan (e2e/kubeapi/kubeapi/faults.py) through its admin
/// endpoint.
void setFaults(Cluster& cluster, const std::string& plan) {
  const std::string file = cluster.server->dir() + "/faults.json";
  BOOST_REQUIRE(writeWholeFile(file, plan).has_value());
  cluster.kubectlOk("replace --raw /ingot-test/faults -f " + file);
}

/// statusesByService counts node1's ServiceBGPStatus objects per "namespace/name" of their
/// Service labels, counting only objects whose status was written.
std::map<std::string, int> statusesByService(k8s::ApiClient& api) {
  std::map<std::string, int> out;
  auto page = api.list(res::kServiceBgpStatuses, "metallb-system", {});
  BOOST_REQUIRE_MESSAGE(page.has_value(), why(page));
  for (const auto& item : page->items) {
    auto obj = api::decodeJson<api::ServiceBGPStatus>(item);
    BOOST_REQUIRE_MESSAGE(obj.has_value(), why(obj));
    auto& labels = obj->metadata.labels;
    if (labels["metallb.io/node"] != "node1") continue;
    const std::string key =
        labels["metallb.io/service-namespace"] + "/" + labels["metallb.io/service-name"];
    out[key] += obj->status.node == "node1" ? 1 : 100;  // 100: no status written yet
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(faults)

// Every request risks a 429 (Retry-After 1 s) and half the creates commit but are answered 504:
// the agent's REST client retries the 429s (counted), and a status create repeated after a 504
// meets AlreadyExists on its deterministic name instead of making a second object.
BOOST_AUTO_TEST_CASE(converges_under_a_429_storm_and_504s_with_no_duplicate_status) {
  Cluster cluster({"--seed", "11"});
  setUp(cluster);
  setFaults(cluster, R"({"throttleFraction":0.25,"retryAfter":1,"timeoutFraction":0.5,)"
                     R"("timeoutVerbs":["create"]})");
  auto agent = startAgent(cluster);
  auto converged = [&] {
    const auto by_service = statusesByService(*cluster.api);
    if (by_service.size() != kServices + 1) return false;
    for (const auto& [service, n] : by_service) {
      if (n != 1) return false;
    }
    return idle(*agent);
  };
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(90000), converged), "not converged:\n" + agent->log());
  auto faults = cluster.api->getPath("/ingot-test/faults");
  BOOST_REQUIRE_MESSAGE(faults.has_value(), why(faults));
  setFaults(cluster, R"({"throttleFraction":0,"timeoutFraction":0})");
  // The faults really happened, and the client counted its retries.
  BOOST_TEST(*json::intAt(*faults, {"counters", "throttled"}) > 0);
  BOOST_TEST(*json::intAt(*faults, {"counters", "timedOut"}) > 0);
  BOOST_TEST(agent->metric(R"(ingot_agent_api_retries_total{reason="throttled"})") > 0);
  // No Service was withdrawn, so any delete would have removed a duplicate: none was ever made.
  BOOST_TEST(agent->metric(R"(ingot_agent_api_requests_total{verb="delete"})") == 0);
  // Nothing changes once the storm is over: still one status object per Service.
  const auto code = agent->process().terminate(Millis(15000));
  BOOST_REQUIRE_MESSAGE(code.has_value() && *code == 0, "agent did not stop cleanly");
  const auto after = statusesByService(*cluster.api);
  BOOST_TEST(after.size() == static_cast<size_t>(kServices + 1));
  for (const auto& [service, n] : after) {
    BOOST_TEST_CONTEXT(service) {
      BOOST_TEST(n == 1);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

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
