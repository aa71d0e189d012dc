// SPDX-License-Identifier: Apache-2.0
// ingot-agent as a process against the test API server, driven with kubectl and the API: the
// FRRConfiguration equals `ingotctl render`, is restored after edits and deletes, is written once
// per debounced burst; ServiceBGPStatus, the nodeAssigned Event and ConfigurationState follow.
#include <algorithm>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "agent/tests/support/agent_process.h"
#include "agent/tests/support/examples.h"
#include "api/codec.h"
#include "api/manifest.h"
#include "controller/tests/integration/fixture.h"
#include "frrgen/served.h"
#include "frrgen/yaml.h"
#include "kube/resources.h"

using namespace ingot;
using namespace ingot::controller::testing;
using ingot::agent::testing::AgentProcess;
using ingot::agent::testing::bgpExamplesYaml;

namespace {

namespace res = k8s::resources;

/// rendered runs `ingotctl render --node node1 -f file` and decodes the FRRConfiguration.
api::FRRConfiguration rendered(const std::string& file) {
  const auto r =
      runCommand(std::string(INGOT_INGOTCTL_BINARY) + " render --node node1 -f " + file + " 2>&1");
  BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.output);
  auto set = api::loadManifestText(r.output, "render");
  BOOST_REQUIRE_MESSAGE(set.problems.empty() && set.objects.size() == 1, r.output);
  return std::get<api::FRRConfiguration>(set.objects[0].object);
}

std::optional<api::FRRConfiguration> liveFrr(k8s::ApiClient& api) {
  auto raw = api.get(res::kFrrConfigurations, "metallb-system", "metallb-node1");
  if (!raw) return std::nullopt;
  auto obj = api::decodeJson<api::FRRConfiguration>(*raw);
  if (!obj) return std::nullopt;
  return *obj;
}

std::vector<api::ServiceBGPStatus> bgpStatuses(k8s::ApiClient& api) {
  std::vector<api::ServiceBGPStatus> out;
  auto page = api.list(res::kServiceBgpStatuses, "metallb-system", {});
  if (!page) return out;
  for (const auto& item : page->items) {
    if (auto s = api::decodeJson<api::ServiceBGPStatus>(item)) out.push_back(*s);
  }
  return out;
}

std::optional<api::ConfigurationState> speakerState(k8s::ApiClient& api) {
  auto raw = api.get(res::kConfigurationStates, "metallb-system", "speaker-node1");
  if (!raw) return std::nullopt;
  auto s = api::decodeJson<api::ConfigurationState>(*raw);
  if (!s) return std::nullopt;
  return *s;
}

void setLocalPref(k8s::ApiClient& api, int value) {
  auto r = api.patch(res::kBgpAdvertisements, "metallb-system", "bgp-adv", k8s::PatchType::Merge,
                     R"({"spec":{"localPref":)" + std::to_string(value) + "}}");
  BOOST_REQUIRE_MESSAGE(r.has_value(), why(r));
}

std::string toYaml(const api::FRRConfiguration& c) {
  return frrgen::toYaml(c);
}

bool hasLocalPref(const api::FRRConfiguration& c, uint32_t value) {
  return toYaml(c).find("localPref: " + std::to_string(value)) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent)

BOOST_AUTO_TEST_CASE(agent_converges_restores_debounces_reports_and_withdraws) {
  Cluster cluster;
  const std::string file = cluster.server->dir() + "/examples.yaml";
  BOOST_REQUIRE(writeWholeFile(file, bgpExamplesYaml()).has_value());
  cluster.kubectlOk("apply -f " + file);
  // The controller's part: the address `ingotctl render` assumes (the pool's first).
  auto st = cluster.api->patchStatus(
      res::kServices, "shop", "checkout", k8s::PatchType::Merge,
      R"({"status":{"loadBalancer":{"ingress":[{"ip":"198.51.100.0"}]}}})");
  BOOST_REQUIRE_MESSAGE(st.has_value(), why(st));
  const api::FRRConfiguration expected = rendered(file);

  // A long debounce: the cool-down after a write is sized by its cost, up to this.
  auto started = AgentProcess::start(cluster.server->kubeconfig(), cluster.server->dir(),
                                     {"--node-name=node1", "--bgp-debounce-timeout=1500"});
  BOOST_REQUIRE_MESSAGE(started.has_value(), why(started));
  auto& agent = **started;
  BOOST_REQUIRE_MESSAGE(agent.waitReady(Millis(30000)), agent.log());
  auto& api = *cluster.api;

  // The test API server fills in frr-k8s' CRD defaults, as a real one does: compare as stored.
  auto converged = [&] {
    auto live = liveFrr(api);
    return live && frrgen::sameServedSpec(live->spec, expected.spec);
  };
  BOOST_REQUIRE_MESSAGE(waitFor(Millis(15000), converged), agent.log());

  // ServiceBGPStatus, Event, ConfigurationState.
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto s = bgpStatuses(api);
    return s.size() == 1 && s[0].status.peers == std::vector<std::string>{"tor1"} &&
           s[0].status.service_name == "checkout" && s[0].status.node == "node1" &&
           s[0].metadata.labels["metallb.io/node"] == "node1";
  }));
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto ev = eventsFor(api, "shop", "checkout");
    return ev && std::find(ev->begin(), ev->end(),
                           "Normal nodeAssigned metallb-speaker: announcing from node \"node1\" "
                           "with protocol \"bgp\"") != ev->end();
  }));
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto s = speakerState(api);
    return s && s->status.result == "Valid";
  }));

  // The stored object carries the CRD defaults the agent did not write; resyncs leave it alone.
  {
    const auto live = liveFrr(api);
    BOOST_REQUIRE(live.has_value() && !live->spec.routers.empty());
    BOOST_TEST(live->spec.routers[0].neighbors.at(0).to_advertise.allowed_mode == "filtered");
    const std::string bgp_passes = R"(ingot_agent_reconciles_total{kind="bgp"})";
    const std::string updates = R"(ingot_agent_api_requests_total{verb="update"})";
    const std::string creates = R"(ingot_agent_api_requests_total{verb="create"})";
    for (int pass = 1; pass <= 2; ++pass) {
      const double passes_before = agent.metric(bgp_passes);
      const double updates_before = agent.metric(updates);
      const double creates_before = agent.metric(creates);
      const double writes_before = agent.metric("ingot_agent_frrconfiguration_writes_total");
      // A new Community changes the configuration (an annotation alone no longer does: an
      // equal configuration starts no pass), which queues a BGP pass.
      const std::string n = std::to_string(pass);
      BOOST_REQUIRE(cluster.api
                        ->create(res::kCommunities, "metallb-system",
                                 R"({"apiVersion":"metallb.io/v1beta1","kind":"Community",)"
                                 R"("metadata":{"name":"resync-)" +
                                     n +
                                     R"(","namespace":"metallb-system"},"spec":)"
                                     R"({"communities":[{"name":"unused)" +
                                     n + R"(","value":"65535:6528)" + n + R"("}]}})")
                        .has_value());
      BOOST_TEST(waitFor(Millis(15000), [&] { return agent.metric(bgp_passes) > passes_before; }),
                 agent.log());
      // Values in the messages: -1 is a scrape that got no answer, not a count.
      const double updates_after = agent.metric(updates);
      const double creates_after = agent.metric(creates);
      const double writes_after = agent.metric("ingot_agent_frrconfiguration_writes_total");
      BOOST_TEST(updates_after == updates_before, "updates " << updates_before << " -> "
                                                             << updates_after << "\n"
                                                             << agent.log());
      BOOST_TEST(creates_after == creates_before, "creates " << creates_before << " -> "
                                                             << creates_after << "\n"
                                                             << agent.log());
      BOOST_TEST(writes_after == writes_before,
                 "FRRConfiguration writes " << writes_before << " -> " << writes_after);
    }
    BOOST_TEST(liveFrr(api)->metadata.resource_version == live->metadata.resource_version);
  }

  // kubectl edit (a merge patch) and delete are reverted.
  cluster.kubectlOk(
      "-n metallb-system patch frrconfigurations.frrk8s.metallb.io metallb-node1 "
      "--type merge -p '{\"spec\":{\"bgp\":{\"bfdProfiles\":[]}}}'");
  BOOST_TEST(waitFor(Millis(15000), converged), "edit not restored:\n" << agent.log());
  cluster.kubectlOk("-n metallb-system delete frrconfigurations.frrk8s.metallb.io metallb-node1");
  BOOST_TEST(waitFor(Millis(15000), converged), "delete not restored:\n" << agent.log());

  // Three changes in a row: each goes out at most once (those that come within the cool-down
  // after a write share the next write; the reconciler tests pin that down on a fake clock), and
  // the last value wins.
  BOOST_REQUIRE(waitFor(Millis(5000), [&] {
    return agent.metric("ingot_agent_frrconfiguration_writes_total") >= 0;
  }));
  const double writes = agent.metric("ingot_agent_frrconfiguration_writes_total");
  BOOST_TEST(agent.buildInfo() == 1.0);
  setLocalPref(api, 160);
  setLocalPref(api, 170);
  setLocalPref(api, 180);
  BOOST_TEST(waitFor(Millis(15000), [&] {
    auto live = liveFrr(api);
    return live && hasLocalPref(*live, 180);
  }));
  const double after = agent.metric("ingot_agent_frrconfiguration_writes_total");
  BOOST_TEST(after >= writes + 1);
  BOOST_TEST(after <= writes + 3);

  // An invalid object: Invalid with the message, FRRConfiguration untouched.
  const auto before = liveFrr(api);
  BOOST_REQUIRE(before.has_value());
  cluster.create(res::kIpAddressPools, "metallb-system", poolJson("bad", {"198.51.100.0/25"}));
  BOOST_TEST(waitFor(Millis(10000),
                     [&] {
                       auto s = speakerState(api);
                       return s && s->status.result == "Invalid" &&
                              s->status.error_summary.find("configuration error: ") == 0;
                     }),
             agent.log());
  BOOST_TEST(agent.metric("metallb_k8s_client_config_stale_bool") == 1);
  const auto during = liveFrr(api);
  BOOST_REQUIRE(during.has_value());
  BOOST_TEST(during->metadata.resource_version == before->metadata.resource_version);
  BOOST_REQUIRE(removeRetrying(api, res::kIpAddressPools, "metallb-system", "bad").has_value());
  BOOST_TEST(waitFor(Millis(10000), [&] {
    auto s = speakerState(api);
    return s && s->status.result == "Valid";
  }));

  // The Service goes away: its prefixes leave, its ServiceBGPStatus is deleted.
  BOOST_REQUIRE(removeRetrying(api, res::kServices, "shop", "checkout").has_value());
  BOOST_TEST(waitFor(Millis(15000),
                     [&] {
                       auto live = liveFrr(api);
                       return live && toYaml(*live).find("198.51.100.0/") == std::string::npos &&
                              !live->spec.routers.empty();
                     }),
             agent.log());
  BOOST_TEST(waitFor(Millis(10000), [&] { return bgpStatuses(api).empty(); }));

  // SIGTERM: a clean exit, the FRRConfiguration stays.
  const auto code = agent.process().terminate(Millis(15000));
  BOOST_REQUIRE_MESSAGE(code.has_value(), "agent did not stop on SIGTERM:\n" + agent.log());
  BOOST_TEST(*code == 0);
  BOOST_TEST(liveFrr(api).has_value());
}

BOOST_AUTO_TEST_CASE(unreadable_kubeconfig_exits_1_with_a_clear_message) {
  auto dir = makeTempDir("ingot-agent-bad-kubeconfig");
  BOOST_REQUIRE(dir.has_value());
  auto started = AgentProcess::start(*dir + "/missing-kubeconfig", *dir, {"--node-name=node1"});
  BOOST_REQUIRE(started.has_value());
  const auto code = (*started)->process().waitExit(Millis(15000));
  BOOST_REQUIRE(code.has_value());
  BOOST_TEST(*code == 1);
  const std::string log = (*started)->log();
  BOOST_TEST(log.find("ingot-agent: load API client configuration") != std::string::npos, log);
  BOOST_TEST(log.find("missing-kubeconfig") != std::string::npos, log);
  runCommand("rm -rf " + *dir);
}

BOOST_AUTO_TEST_CASE(missing_node_name_exits_2) {
  auto dir = makeTempDir("ingot-agent-no-node");
  BOOST_REQUIRE(dir.has_value());
  auto started = AgentProcess::start(*dir + "/kubeconfig", *dir, {});
  BOOST_REQUIRE(started.has_value());
  const auto code = (*started)->process().waitExit(Millis(15000));
  BOOST_REQUIRE(code.has_value());
  BOOST_TEST(*code == 2);
  BOOST_TEST((*started)->log().find("--node-name") != std::string::npos);
  runCommand("rm -rf " + *dir);
}

BOOST_AUTO_TEST_SUITE_END()
