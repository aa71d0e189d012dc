// SPDX-License-Identifier: Apache-2.0
// The agent's request economy: once it has converged, a full pass over every Service (a
// configuration change that changes no decision), a re-list after the server expired its watches
// (410 Gone) and a restart with nothing changed write no object: the FRRConfiguration, the
// ServiceBGPStatus objects and the ConfigurationState keep their resourceVersions, and the
// agent's own write counters do not move. The only writes allowed are those of the restart's
// nodeAssigned Events (MetalLB's speaker announces afresh, and says so, after a restart too).
#include <map>

#include <boost/test/unit_test.hpp>

#include "agent/tests/support/agent_process.h"
#include "common/json/scan.h"
#include "controller/tests/integration/fixture.h"
#include "kube/reflector.h"
#include "kube/resources.h"

using namespace ingot;
using namespace ingot::controller::testing;
using ingot::agent::testing::AgentProcess;

namespace {

namespace res = k8s::resources;

constexpr int kServices = 20;

/// writes sums the agent's API requests of every writing verb (Events included).
double writes(const AgentProcess& a) {
  double sum = 0;
  for (const char* verb :
       {"create", "update", "patch", "update_status", "patch_status", "delete"}) {
    sum += std::max(0.0,
                    a.metric("ingot_agent_api_requests_total{verb=\"" + std::string(verb) + "\"}"));
  }
  return sum;
}

double lists(const AgentProcess& a) {
  return a.metric("ingot_agent_api_requests_total{verb=\"list\"}");
}

bool idle(const AgentProcess& a) {
  return a.metric("ingot_agent_workqueue_depth") == 0.0;
}

/// Versions maps "kind ns/name" to the resourceVersion of every object the agent writes, as the
/// server holds them (Events also by reason).
using Versions = std::map<std::string, std::string>;

void addVersions(k8s::ApiClient& api,
                 const k8s::ResourceRef& ref,
                 const std::string& ns,
                 Versions& out) {
  auto page = api.list(ref, ns, {});
  BOOST_REQUIRE_MESSAGE(page.has_value(), why(page));
  for (const auto& item : page->items) {
    auto meta = k8s::rawObjectMeta(item);
    BOOST_REQUIRE(meta.has_value());
    std::string key = ref.plural + " " + meta->namespace_ + "/" + meta->name;
    if (ref.plural == "events") {
      auto reason = json::stringAt(item, {"reason"});
      key += " " + (reason ? *reason : std::string());
    }
    out[key] = meta->resource_version;
  }
}

Versions versions(k8s::ApiClient& api) {
  Versions out;
  addVersions(api, res::kFrrConfigurations, "metallb-system", out);
  addVersions(api, res::kServiceBgpStatuses, "metallb-system", out);
  addVersions(api, res::kConfigurationStates, "metallb-system", out);
  addVersions(api, res::kEvents, "shop", out);
  return out;
}

size_t count(const Versions& v, const std::string& resource) {
  size_t n = 0;
  for (const auto& [key, rv] : v) n += key.rfind(resource + " ", 0) == 0 ? 1 : 0;
  return n;
}

/// changed lists what differs between two snapshots (added, removed or with a new version).
std::vector<std::string> changed(const Versions& a, const Versions& b) {
  std::vector<std::string> out;
  for (const auto& [key, rv] : b) {
    auto it = a.find(key);
    if (it == a.end() || it->second != rv) out.push_back(key);
  }
  for (const auto& [key, rv] : a) {
    if (!b.contains(key)) out.push_back(key + " (gone)");
  }
  return out;
}

std::string examplesYaml() {
  std::string out;
  for (const char* f : {"bgp/service.yaml", "bgp/advertisement.yaml", "bgp/endpoints.yaml",
                        "bgp/peering.yaml", "cluster/nodes.yaml"}) {
    out +=
        readWholeFile(std::string(std::getenv("INGOT_SOURCE_DIR")) + "/examples/" + f) + "\n---\n";
  }
  return out;
}

std::string configMapJson(int i) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"filler-)" +
         std::to_string(i) + R"("},"data":{"k":"v"}})";
}

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
  BOOST_REQUIRE(writeWholeFile(file, examplesYaml()).has_value());
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
  // A short history and no bookmarks: a watch resumed after the server closed it starts from
  // the version of the last event of its own kind, which the filler writes push out: 410.
  Cluster cluster({"--history", "40", "--bookmark-interval", "3600", "--close-watches-after", "2"});
  setUp(cluster);
  auto agent = startAgent(cluster);
  auto& api = *cluster.api;
  Versions converged;
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(60000),
                                [&] {
                                  converged = versions(api);
                                  return count(converged, "servicebgpstatuses") == kServices + 1 &&
                                         count(converged, "frrconfigurations") == 1 &&
                                         count(converged, "configurationstates") == 1 &&
                                         count(converged, "events") >= kServices + 1 &&
                                         idle(*agent);
                                }),
                        "not converged:\n" + agent->log());
  // Event writes are asynchronous: settle on a snapshot that stays the same for a moment.
  BOOST_REQUIRE(waitFor(Millis(20000), [&] {
    const Versions now = versions(api);
    const bool same = now == converged && idle(*agent);
    converged = now;
    return same;
  }));
  const double written = writes(*agent);

  // A full pass: a new Community changes the configuration, so every Service is decided again.
  const std::string passes = R"(ingot_agent_reconciles_total{kind="sync"})";
  const double before = agent->metric(passes);
  cluster.create(res::kCommunities, "metallb-system",
                 R"({"apiVersion":"metallb.io/v1beta1","kind":"Community","metadata":)"
                 R"({"name":"econ","namespace":"metallb-system"},"spec":{"communities":)"
                 R"([{"name":"unused","value":"65535:65282"}]}})");
  BOOST_REQUIRE_MESSAGE(
      waitFor(Millis(20000), [&] { return agent->metric(passes) > before && idle(*agent); }),
      "no full pass after the new Community:\n" + agent->log());
  BOOST_TEST(writes(*agent) == written, "the full pass wrote " << writes(*agent) - written);
  BOOST_TEST(changed(converged, versions(api)) == std::vector<std::string>{},
             boost::test_tools::per_element());

  // Watch expiry: the informers re-list and find nothing new.
  const double listed = lists(*agent);
  for (int i = 0; i < 60; ++i) cluster.create(res::kConfigMaps, "default", configMapJson(i));
  BOOST_REQUIRE_MESSAGE(
      waitFor(Millis(30000), [&] { return lists(*agent) >= listed + 5 && idle(*agent); }),
      "no re-list after the watches expired:\n" + agent->log());
  BOOST_TEST(writes(*agent) == written, "the re-list wrote " << writes(*agent) - written);
  BOOST_TEST(changed(converged, versions(api)) == std::vector<std::string>{},
             boost::test_tools::per_element());

  // Restart with nothing changed: only nodeAssigned Events are written.
  const auto code = agent->process().terminate(Millis(15000));
  BOOST_REQUIRE_MESSAGE(code.has_value() && *code == 0, agent->log());
  agent = startAgent(cluster);
  Versions restarted;
  BOOST_REQUIRE(waitFor(Millis(30000), [&] {
    const Versions now = versions(api);
    const bool same =
        now == restarted && idle(*agent) && agent->metric(passes) > 0;  // the first full pass ran
    restarted = now;
    return same;
  }));
  for (const auto& key : changed(converged, restarted)) {
    BOOST_TEST(
        (key.rfind("events shop/", 0) == 0 && key.find(" nodeAssigned") != std::string::npos),
        "written after a restart: " << key);
  }
  const auto stopped = agent->process().terminate(Millis(15000));
  BOOST_TEST((stopped.has_value() && *stopped == 0), agent->log());
}

BOOST_AUTO_TEST_SUITE_END()
