// SPDX-License-Identifier: Apache-2.0
// Which objects each component parses. MetalLB's parser (config.For) is one function, but its
// callers hand it different slices of the cluster: the speaker on a node drops the BGPPeers and
// BGPAdvertisements that do not select that node before parsing (its config reconciler's
// filterByNode), and the controller parses only pools and Communities (its pool reconciler). So
// an object that is wrong only where it applies breaks only the nodes it selects. These helpers
// cut Inputs the same way, and parse once per group of nodes that see the same objects.
#pragma once

#include <string>
#include <vector>

#include "api/types.h"
#include "config/config.h"

namespace ingot::config {

/// selectsNode reports whether an object with these nodeSelectors is one the agent on a node with
/// these labels parses (MetalLB's filterByNode): an empty list selects every node, otherwise any
/// matching selector does. A list holding a selector that does not convert selects every node,
/// so that every agent's parse reports the bad selector (MetalLB's filter fails every speaker's
/// reconcile on it).
bool selectsNode(const std::vector<api::LabelSelector>& selectors, const api::StringMap& labels);

/// forNode returns inputs without the BGPPeers and BGPAdvertisements that do not select node
/// (MetalLB's filterBGPPeersByNode and filterBGPAdvertisementsByNode): what the agent on node
/// parses. Every other kind stays: pools, L2Advertisements (the L2 election needs every node's),
/// BFD profiles, communities, Secrets, Nodes and Namespaces.
Inputs forNode(Inputs inputs, const api::Node& node);

/// allocationInputs returns only what the controller parses (MetalLB's PoolReconciler): the
/// pools, the Communities and the Namespaces.
Inputs allocationInputs(const Inputs& inputs);

/// NodeGroup is nodes that select the same BGPPeers and BGPAdvertisements, hence parse the same
/// configuration, and the outcome of that parse.
struct NodeGroup {
  std::vector<std::string> nodes;               ///< sorted
  std::vector<std::string> peers;               ///< names of the BGPPeers they select
  std::vector<std::string> bgp_advertisements;  ///< names of the BGPAdvertisements they select
  ParseOutcome outcome;
};

/// parsePerNode parses the configuration as the agent on each Node of inputs does, once per
/// group of nodes that select the same objects. Groups are ordered by their first node; no Node
/// means no group.
std::vector<NodeGroup> parsePerNode(const Inputs& inputs, const ParseOptions& options);

/// combine merges the groups that parsed into one Config for decisions about every node (which
/// node announces what): the pools, L2 advertisements, BFD profiles and communities, which every
/// node parses alike, and the union of the peers and BGP advertisements, each with `nodes` cut
/// down to the nodes whose agent accepted it. A node whose parse failed is thus in no peer's and
/// no BGP advertisement's nodes. nullptr when no group parsed.
ConfigSharedPtr combine(const std::vector<NodeGroup>& groups);

}  // namespace ingot::config
