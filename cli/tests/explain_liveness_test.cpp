// SPDX-License-Identifier: Apache-2.0
// Tests of explain's liveness decision against a cluster: which source wins and each node's
// verdict. Table-driven.
#include "cli/explain_liveness.h"

#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace {

using namespace ingot::cli;

struct Case {
  const char* name;
  std::vector<AgentPod> pods;
  std::vector<AgentState> states;
  std::set<std::string> dead;
  std::string source;
  std::map<std::string, std::string> want;  ///< node -> state; alive iff podReady,
                                            ///< configurationState or assumed
};

bool aliveState(const std::string& s) {
  return s == "podReady" || s == "configurationState" || s == "assumed";
}

BOOST_AUTO_TEST_CASE(decide_liveness) {
  const std::vector<std::string> nodes = {"n1", "n2", "n3"};
  const std::vector<Case> cases = {
      {"agent pods: ready, not ready, none",
       {{"a1", "n1", true}, {"a2", "n2", false}},
       {{"n3", "Valid", ""}},
       {},
       "agentPods",
       {{"n1", "podReady"}, {"n2", "podNotReady"}, {"n3", "noAgentPod"}}},
      {"a ready pod wins over a not-ready one on the same node (rolling update)",
       {{"old", "n1", false}, {"new", "n1", true}, {"x", "n2", true}, {"y", "n3", true}},
       {},
       {},
       "agentPods",
       {{"n1", "podReady"}, {"n2", "podReady"}, {"n3", "podReady"}}},
      {"no pods: ConfigurationStates decide",
       {},
       {{"n1", "Valid", ""}, {"n3", "Invalid", "bad pool"}},
       {},
       "configurationStates",
       {{"n1", "configurationState"},
        {"n2", "noConfigurationState"},
        {"n3", "configurationState"}}},
      {"nothing in the API: every node assumed alive",
       {},
       {},
       {},
       "none",
       {{"n1", "assumed"}, {"n2", "assumed"}, {"n3", "assumed"}}},
      {"--dead-node wins over a ready pod",
       {{"a1", "n1", true}, {"a2", "n2", true}, {"a3", "n3", true}},
       {},
       {"n2"},
       "agentPods",
       {{"n1", "podReady"}, {"n2", "deadNodeFlag"}, {"n3", "podReady"}}},
  };
  for (const auto& c : cases) {
    const auto got = decideLiveness(nodes, c.pods, c.states, c.dead, "app=x");
    BOOST_TEST(got.source == c.source, c.name);
    BOOST_TEST(got.detail.find("app=x") != std::string::npos, c.name);
    std::set<std::string> want_dead;
    for (const auto& [node, state] : c.want) {
      BOOST_TEST_REQUIRE(got.nodes.count(node) == 1u, c.name);
      BOOST_TEST(got.nodes.at(node).state == state, c.name << " " << node);
      BOOST_TEST(got.nodes.at(node).alive == aliveState(state), c.name << " " << node);
      if (!aliveState(state)) {
        want_dead.insert(node);
      }
    }
    BOOST_TEST(deadNodes(got) == want_dead, c.name);
  }
}

BOOST_AUTO_TEST_CASE(configuration_state_is_reported_whatever_the_source) {
  const auto got =
      decideLiveness({"n1"}, {{"a1", "n1", true}}, {{"n1", "Invalid", "oops"}}, {}, "app=x");
  BOOST_TEST(got.nodes.at("n1").configuration_state == "Invalid");
  BOOST_TEST(got.nodes.at("n1").configuration_error == "oops");
  BOOST_TEST(got.nodes.at("n1").agent_pod == "a1");
}

}  // namespace
