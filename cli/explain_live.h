// SPDX-License-Identifier: Apache-2.0
// `ingotctl explain NS/NAME --kubeconfig PATH`: the same explanation as on files, with the inputs
// read from a cluster (list calls only) and liveness taken from what the API shows.
#pragma once

#include <ostream>
#include <set>
#include <string>

#include "cli/args.h"
#include "cli/explain.h"
#include "cli/workspace.h"

namespace ingot::cli {

/// kDefaultAgentSelectors are the label selectors of the agent pods tried when
/// --agent-selector is not given: Ingot's chart, then MetalLB's speaker DaemonSet.
inline const std::vector<std::string> kDefaultAgentSelectors = {
    "app.kubernetes.io/component=speaker", "app=metallb,component=speaker"};

/// explainWorkspace runs the controller over the workspace's Services and explains service
/// ("namespace/name") with dead_nodes not alive and suspect_nodes suspected by memberlist (still
/// live); the file and the cluster path share it.
Result<Explanation> explainWorkspace(const Workspace& ws,
                                     const std::string& service,
                                     const std::set<std::string>& dead_nodes,
                                     const Args& args,
                                     const std::set<std::string>& suspect_nodes = {});

/// printExplanation writes e as text or JSON (output "json") and returns kExitOk.
int printExplanation(std::ostream& out, const Explanation& e, const std::string& output);

/// runExplainLive explains service against the cluster that --kubeconfig, $KUBECONFIG,
/// in-cluster or ~/.kube/config names. Read-only: list and get calls.
int runExplainLive(const std::string& service,
                   const std::set<std::string>& dead_nodes,
                   const Args& args,
                   std::ostream& out,
                   std::ostream& err);

}  // namespace ingot::cli
