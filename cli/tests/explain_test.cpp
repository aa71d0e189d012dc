// SPDX-License-Identifier: Apache-2.0
// Tests of `ingotctl explain`: the explanation builder on a four-node Layer 2 cluster (every
// exclusion reason), and the command on examples/.
#include "cli/explain.h"

#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "cli/commands.h"
#include "cli/converge.h"
#include "cli/tests/test_util.h"
#include "cli/workspace.h"
#include "common/json/json.h"

namespace {

using namespace ingot::cli;
using namespace ingot::cli::testing;

/// explainFile loads path as ingotctl does and explains one Service with the given dead nodes.
Explanation explainFile(const std::string& path,
                        const std::string& key,
                        const std::set<std::string>& dead) {
  const Workspace ws = loadWorkspace({path}, {});
  BOOST_TEST_REQUIRE(ws.problems.empty());
  BOOST_TEST_REQUIRE(ws.parsed.config != nullptr);
  std::vector<ingot::api::Service> services = ws.services;
  auto plan = convergeServices(*ws.parsed.config, services, {});
  BOOST_TEST_REQUIRE(plan.has_value());
  size_t i = 0;
  while (i < services.size() &&
         services[i].metadata.namespace_ + "/" + services[i].metadata.name != key) {
    ++i;
  }
  BOOST_TEST_REQUIRE(i < services.size());
  size_t o = 0;
  while (o < plan->services.size() &&
         plan->services[o].namespace_ + "/" + plan->services[o].name != key) {
    ++o;
  }
  BOOST_TEST_REQUIRE(o < plan->services.size());
  ExplainInputs in{&*ws.parsed.config,
                   &ws.inputs.nodes,
                   &ws.endpoint_slices,
                   &ws.services[i],
                   &services[i],
                   &plan->services[o],
                   {},
                   dead,
                   {},
                   nullptr};
  return explainService(in);
}

const NodeExplanation& nodeOf(const Explanation& e, const std::string& name) {
  for (const auto& n : e.nodes) {
    if (n.node == name) {
      return n;
    }
  }
  BOOST_FAIL("node " << name << " is not in the explanation of " << e.service);
  return e.nodes.front();
}

struct L2Case {
  std::string service;
  std::set<std::string> dead;
  std::string node;
  bool owner;
  std::string reason;     // MetalLB's per-node reason, "" on the owner
  std::string exclusion;  // "" = a candidate
  int rank;               // -1 = not a candidate
};

/// checkL2Cases explains each case's Service in file and checks the case's node.
void checkL2Cases(const std::string& file, const std::vector<L2Case>& cases) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.service << " on " << c.node << " dead=" << c.dead.size()) {
      const auto e = explainFile(file, c.service, c.dead);
      BOOST_TEST_REQUIRE(e.l2.has_value());
      const auto& n = nodeOf(e, c.node);
      BOOST_TEST(n.l2_owner == c.owner);
      BOOST_TEST(n.l2_reason == c.reason);
      BOOST_TEST(n.l2_exclusion == c.exclusion);
      BOOST_TEST((n.l2_rank ? static_cast<int>(*n.l2_rank) : -1) == c.rank);
    }
  }
}

BOOST_AUTO_TEST_CASE(l2_exclusions_and_ranks) {
  const std::string file = sourceDir() + "/cli/tests/testdata/l2-plan.yaml";
  const std::vector<L2Case> cases = {
      {"apps/web", {}, "node-a", true, "", "", 0},
      {"apps/web", {}, "node-b", false, "notOwner", "", 1},
      {"apps/web", {}, "node-c", false, "notOwner", "excludeLabel", -1},
      {"apps/web", {}, "node-d", false, "notOwner", "networkUnavailable", -1},
      {"apps/web", {"node-a"}, "node-a", false, "agentNotAlive", "agentNotAlive", -1},
      {"apps/web", {"node-a"}, "node-b", true, "", "", 0},
      {"apps/local", {}, "node-a", false, "notOwner", "noLocalEndpoint", -1},
      {"apps/local", {}, "node-b", true, "", "", 0},
      {"apps/edge",
       {},
       "node-a",
       false,
       "noMatchingAdvertisement",
       "notSelectedByAdvertisement",
       -1},
      {"apps/unmatched",
       {},
       "node-b",
       false,
       "noMatchingAdvertisement",
       "notSelectedByAdvertisement",
       -1},
  };
  checkL2Cases(file, cases);
}

// explain names the node MetalLB elects on the first address of a dual-stack status, in
// either family order (orders from the Go oracle, see the file's comment).
BOOST_AUTO_TEST_CASE(dual_stack_owner_is_elected_on_the_first_status_address) {
  const std::string file = sourceDir() + "/cli/tests/testdata/dual-stack-order.yaml";
  const std::vector<L2Case> cases = {
      {"apps/migrated", {}, "k8s-worker", true, "", "", 0},
      {"apps/migrated", {}, "k8s-worker2", false, "notOwner", "", 3},
      {"apps/migrated", {"k8s-worker"}, "k8s-control-plane", true, "", "", 0},
      {"apps/upgraded", {}, "k8s-worker2", true, "", "", 0},
      {"apps/upgraded", {}, "k8s-control-plane", false, "notOwner", "", 2},
      {"apps/fresh", {}, "k8s-worker", true, "", "", 0},
      {"apps/requested", {}, "k8s-worker2", true, "", "", 0},
      {"apps/requested", {}, "k8s-worker", false, "notOwner", "", 2},
  };
  checkL2Cases(file, cases);
}

BOOST_AUTO_TEST_CASE(service_level_outcomes) {
  const std::string file = sourceDir() + "/cli/tests/testdata/l2-plan.yaml";
  const auto idle = explainFile(file, "apps/idle", {});
  BOOST_TEST_REQUIRE(idle.l2.has_value());
  BOOST_TEST(!idle.l2->winner.has_value());
  BOOST_TEST(std::string(ingot::agent::l2ReasonName(idle.l2->reason)) == "noActiveEndpoint");
  const auto routed = explainFile(file, "apps/routed", {});
  BOOST_TEST(!routed.l2.has_value());
  BOOST_TEST(routed.bgp_pool);
  BOOST_TEST(routed.pool.pool == "routed");
}

BOOST_AUTO_TEST_CASE(examples_bgp_reasons) {
  const auto doc = explainExamples({"shop/checkout"});
  BOOST_TEST(doc.find("pool")->find("source")->text() == "automatic");
  BOOST_TEST(doc.find("pool")->find("name")->text() == "bgp-pool");
  const auto& node1 = *jsonNode(doc, "node1").find("bgp");
  BOOST_TEST(node1.find("announced")->boolValue());
  const auto& first = node1.find("announcements")->items().front();
  BOOST_TEST(first.find("prefix")->text() == "198.51.100.0/32");
  BOOST_TEST(first.find("localPref")->text() == "150");
  BOOST_TEST(first.find("peers")->items().front().text() == "tor1");
  BOOST_TEST(node1.find("announcements")->items().back().find("aggregationLength")->text() == "24");
  const auto& node2 = *jsonNode(doc, "node2").find("bgp");
  BOOST_TEST(!node2.find("announced")->boolValue());
  BOOST_TEST(node2.find("reason")->text() == "noLocalEndpoints");
}

// --weighted-ecmp (the agents' flag): each announcing node's weight, its ready local endpoints.
BOOST_AUTO_TEST_CASE(examples_weight_of_each_node) {
  const auto plain = explainExamples({"shop/checkout"});
  const auto& unweighted = jsonNode(plain, "node1").find("bgp")->find("announcements")->items();
  BOOST_TEST(unweighted.front().find("weight")->isNull());
  const auto doc = explainExamples({"shop/checkout", "--weighted-ecmp"});
  for (const auto& a : jsonNode(doc, "node1").find("bgp")->find("announcements")->items()) {
    BOOST_TEST(a.find("weight")->text() == "1");
  }
  const Run text =
      run(runExplain, {"shop/checkout", "--weighted-ecmp", "-f", sourceDir() + "/examples"});
  BOOST_TEST_REQUIRE(text.code == 0, text.err);
  BOOST_TEST(text.out.find(", weight 1, to tor1") != std::string::npos, text.out);
}

BOOST_AUTO_TEST_CASE(examples_l2_and_dead_node) {
  const auto live = explainExamples({"web/frontend"});
  BOOST_TEST(live.find("pool")->find("source")->text() == "annotation");
  BOOST_TEST(live.find("l2")->find("winner")->text() == "node1");
  const auto dead = explainExamples({"web/frontend", "--dead-node", "node1"});
  BOOST_TEST(dead.find("l2")->find("winner")->text() == "node2");
  BOOST_TEST(jsonNode(dead, "node1").find("l2")->find("excluded")->text() == "agentNotAlive");
  BOOST_TEST(!jsonNode(dead, "node1").find("live")->boolValue());
  const auto dns = explainExamples({"dns/dns-tcp"});
  BOOST_TEST(dns.find("pool")->find("source")->text() == "requestedIPs");
}

// An advertisement broken only on n1 (filterBGPAdvertisementsByNode): n1's agent rejects its
// configuration, n2's announces; explain says so instead of refusing the input.
BOOST_AUTO_TEST_CASE(a_node_that_rejects_its_configuration_announces_nothing_over_bgp) {
  const std::string data = sourceDir() + "/cli/tests/testdata/";
  const Run r =
      run(runExplain, {"default/web", "--output", "json", "-f", data + "per-node-base.yaml", "-f",
                       data + "per-node-rack1.yaml", "-f", data + "per-node-service.yaml"});
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  BOOST_TEST(r.err.find("warning: ") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("[rejected by the agent on node n1]") != std::string::npos, r.err);
  auto doc = ingot::json::parse(r.out);
  BOOST_TEST_REQUIRE(doc.has_value());
  BOOST_TEST(jsonNode(*doc, "n2").find("bgp")->find("announced")->boolValue());
  const auto& n1 = *jsonNode(*doc, "n1").find("bgp");
  BOOST_TEST(!n1.find("announced")->boolValue());
  BOOST_TEST(n1.find("reason")->text() == "notOwner");
}

BOOST_AUTO_TEST_CASE(bad_input_is_named) {
  Run r = run(runExplain, {"web/nope", "-f", sourceDir() + "/examples"});
  BOOST_TEST(r.code == kExitInvalid);
  BOOST_TEST(r.err.find("Service web/nope is not in the input") != std::string::npos, r.err);
  r = run(runExplain, {"web/frontend", "--dead-node", "node9", "-f", sourceDir() + "/examples"});
  BOOST_TEST(r.code == kExitInvalid);
  BOOST_TEST(r.err.find("--dead-node node9") != std::string::npos, r.err);
  r = run(runExplain, {"-f", sourceDir() + "/examples"});
  BOOST_TEST(r.code == kExitUsage);
}

}  // namespace
