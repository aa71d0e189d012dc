// SPDX-License-Identifier: Apache-2.0
// Where `ingotctl explain` takes agent liveness from, and what the API shows per node. On files
// it is the --dead-node flags; against a cluster it is decided by decideLiveness from the agent
// pods' readiness, falling back to the agents' ConfigurationStates. Pure.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace ingot::cli {

/// NodeLiveness is one node's liveness and what the API shows about its agent.
struct NodeLiveness {
  bool alive = true;
  /// state: "podReady", "podNotReady", "noAgentPod", "configurationState",
  /// "noConfigurationState", "assumed" (nothing in the API says), "deadNodeFlag".
  std::string state;
  std::string agent_pod;                        ///< the agent pod's name ("" = none)
  std::string configuration_state;              ///< its ConfigurationState's result ("" = none)
  std::string configuration_error;              ///< that ConfigurationState's errorSummary
  bool observed_l2 = false;                     ///< a ServiceL2Status names this node
  bool observed_bgp = false;                    ///< a ServiceBGPStatus names this node
  std::vector<std::string> observed_bgp_peers;  ///< the peers that ServiceBGPStatus lists
};

/// ExplainLiveness says where liveness came from. source is "deadNodeFlags" (files: every
/// node live except --dead-node), "agentPods", "configurationStates" or "none" (the cluster
/// shows neither, so every node counts as live). nodes is filled against a cluster only.
struct ExplainLiveness {
  std::string source = "deadNodeFlags";
  std::string detail = "manifest files: every Node counts as live except the --dead-node ones";
  std::map<std::string, NodeLiveness> nodes;
};

/// AgentPod is what decideLiveness reads of one agent pod.
struct AgentPod {
  std::string name;
  std::string node;    ///< spec.nodeName
  bool ready = false;  ///< phase Running, condition Ready True, not being deleted
};

/// AgentState is one agent's ConfigurationState (component-type speaker).
struct AgentState {
  std::string node;
  std::string result;  ///< "Valid", "Invalid", "Unknown"
  std::string error_summary;
};

/// decideLiveness: with any agent pod, a node is alive iff one of its agent pods is ready
/// ("agentPods"); else with any agent ConfigurationState, iff it has one
/// ("configurationStates"); else every node is alive ("none"). dead (the --dead-node flags)
/// is dead whatever the API shows. selector names the pods' label selector in the detail.
ExplainLiveness decideLiveness(const std::vector<std::string>& nodes,
                               const std::vector<AgentPod>& pods,
                               const std::vector<AgentState>& states,
                               const std::set<std::string>& dead,
                               const std::string& selector);

/// deadNodes returns the nodes decideLiveness found not alive.
std::set<std::string> deadNodes(const ExplainLiveness& liveness);

}  // namespace ingot::cli
