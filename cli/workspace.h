// SPDX-License-Identifier: Apache-2.0
// Workspace: manifest files turned into what the daemons would see — decoded objects, field and
// namespace checks, and the parsed Config — with every problem tied to a file and line.
#pragma once

#include <string>
#include <vector>

#include "api/manifest.h"
#include "config/config.h"
#include "config/scope.h"

namespace ingot::cli {

/// Problem is one line of `ingotctl validate` output.
struct Problem {
  api::SourcePos pos;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string field;
  std::string message;
  bool transient = false;
  /// nodes whose agent would reject the object for this reason; empty when every node would (or
  /// the problem is not an agent's, e.g. a field error).
  std::vector<std::string> nodes;
};

struct WorkspaceOptions {
  std::string metallb_namespace = "metallb-system";
  config::Backend backend = config::Backend::FrrK8s;
  /// node: parse as the agent on this node does (only the BGPPeers and BGPAdvertisements that
  /// select it, config::forNode). Empty: the cluster's view, see loadWorkspace.
  std::string node{};
};

struct Workspace {
  std::vector<api::ManifestObject> objects;  ///< decoded, namespaces defaulted
  std::vector<Problem> problems;             ///< sorted by file, line
  std::vector<std::string> notes;            ///< e.g. skipped unknown kinds
  /// warnings: admission warnings (api::objectWarnings) and the parse errors of objects that
  /// select no node; not problems.
  std::vector<Problem> warnings;
  config::Inputs inputs;  ///< metallb.io objects of the MetalLB namespace + cluster objects
  std::vector<api::Service> services;
  std::vector<api::EndpointSlice> endpoint_slices;
  /// parsed: config is set iff the configuration is valid, except in the cluster's view with
  /// Nodes: there it is every agent's configuration merged (config::combine), set while at least
  /// one node accepts its configuration and every problem is only some nodes' (a node that
  /// rejects its configuration is then in no peer's or BGP advertisement's nodes).
  config::ParseOutcome parsed;
  std::vector<config::NodeGroup> node_groups;  ///< the agents' parses (cluster view with Nodes)
};

/// loadWorkspace reads the paths (files, directories, "-") and runs, in order: manifest decoding,
/// namespace defaulting (MetalLB kinds and Secrets without a namespace go to the MetalLB
/// namespace; Services and EndpointSlices to "default", as kubectl would), the webhook namespace
/// rule for MetalLB kinds, per-object field validation, and the cross-object config parser. The
/// parser runs as the daemons run it: for options.node, as that node's agent; otherwise, when the
/// input holds Nodes, as every node's agent (a problem then names the nodes that would reject the
/// object unless all would, and an object that selects no node yields warnings instead of
/// problems); without Nodes, over every object.
Workspace loadWorkspace(const std::vector<std::string>& paths, const WorkspaceOptions& options);

/// loadWorkspaceSet is loadWorkspace on objects already loaded (e.g. read from a cluster).
Workspace loadWorkspaceSet(api::ManifestSet set, const WorkspaceOptions& options);

/// formatProblem renders "FILE:LINE: Kind namespace/name: field: message" (parts that are empty
/// are left out), then "[rejected by the agent on node N]" / "[... agents on nodes N, M]" when the
/// problem is some nodes' only.
std::string formatProblem(const Problem& p);

/// parseBackend maps "frr-k8s" or "frr" to a Backend; "native" is refused (no native speaker).
Result<config::Backend> parseBackend(const std::string& name);

}  // namespace ingot::cli
