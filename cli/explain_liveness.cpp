// SPDX-License-Identifier: Apache-2.0
#include "cli/explain_liveness.h"

#include <algorithm>

namespace ingot::cli {
namespace {

std::string sourceOf(const std::vector<AgentPod>& pods, const std::vector<AgentState>& states) {
  if (!pods.empty()) {
    return "agentPods";
  }
  return states.empty() ? "none" : "configurationStates";
}

std::string detailOf(const std::string& source, const std::string& selector) {
  if (source == "agentPods") {
    return "a node's agent is alive when its agent pod (" + selector + ") is Running and Ready";
  }
  if (source == "configurationStates") {
    return "no agent pod matches " + selector +
           "; a node's agent counts as alive when it has written its ConfigurationState";
  }
  return "no agent pod matches " + selector +
         " and no agent ConfigurationState exists; every node counts as alive";
}

/// podState sets the node's liveness from its agent pods (a ready one wins).
void podState(const std::vector<AgentPod>& pods, NodeLiveness& n, const std::string& node) {
  n.state = "noAgentPod";
  n.alive = false;
  for (const auto& p : pods) {
    if (p.node != node) {
      continue;
    }
    if (n.agent_pod.empty() || p.ready) {
      n.agent_pod = p.name;
      n.state = p.ready ? "podReady" : "podNotReady";
      n.alive = p.ready;
    }
    if (p.ready) {
      return;
    }
  }
}

}  // namespace

ExplainLiveness decideLiveness(const std::vector<std::string>& nodes,
                               const std::vector<AgentPod>& pods,
                               const std::vector<AgentState>& states,
                               const std::set<std::string>& dead,
                               const std::string& selector) {
  ExplainLiveness out;
  out.source = sourceOf(pods, states);
  out.detail = detailOf(out.source, selector);
  for (const auto& node : nodes) {
    NodeLiveness n;
    const auto state = std::find_if(states.begin(), states.end(),
                                    [&](const AgentState& s) { return s.node == node; });
    if (state != states.end()) {
      n.configuration_state = state->result;
      n.configuration_error = state->error_summary;
    }
    if (out.source == "agentPods") {
      podState(pods, n, node);
    } else if (out.source == "configurationStates") {
      n.alive = state != states.end();
      n.state = n.alive ? "configurationState" : "noConfigurationState";
    } else {
      n.state = "assumed";
    }
    if (dead.contains(node)) {
      n.alive = false;
      n.state = "deadNodeFlag";
    }
    out.nodes[node] = std::move(n);
  }
  return out;
}

std::set<std::string> deadNodes(const ExplainLiveness& liveness) {
  std::set<std::string> out;
  for (const auto& [name, n] : liveness.nodes) {
    if (!n.alive) {
      out.insert(name);
    }
  }
  return out;
}

}  // namespace ingot::cli
