// SPDX-License-Identifier: Apache-2.0
// Every node's announce verdict for one Service, over both protocols: the agent's own decideBgp
// on each node, and the Layer 2 election with the reason each excluded node is excluded. This is
// what `ingotctl explain` prints per node and what the controller reads to say why nobody
// announces an address. Pure: it calls the agent's decisions on the snapshot it is handed.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/core/announce.h"
#include "agent/core/election.h"
#include "api/types.h"
#include "config/config.h"

namespace ingot::agent {

/// VerdictInputs is the snapshot the verdicts read. slices may hold other Services' slices.
struct VerdictInputs {
  const config::Config* config = nullptr;
  const std::vector<api::Node>* nodes = nullptr;
  const std::vector<api::EndpointSlice>* slices = nullptr;
  const api::Service* service = nullptr;  ///< with the status the controller wrote
  AnnounceOptions announce;
  std::set<std::string> dead_nodes;  ///< nodes whose agent is not alive
};

/// NodeVerdict is one node's BGP and Layer 2 verdicts for the Service.
struct NodeVerdict {
  std::string node;
  bool live = true;
  std::string drain;              ///< the node's drain trigger (drainReasonName; "" = none)
  BgpDecision bgp;                ///< the agent's decideBgp on this node
  std::string bgp_reason;         ///< "" when announced; "agentNotAlive" for a dead node
  bool l2_owner = false;          ///< this node answers ARP/NDP for the Service
  std::string l2_reason;          ///< MetalLB's per-node reason ("" on the owner)
  std::string l2_exclusion;       ///< why the node is not an L2 candidate ("" when it is one)
  std::optional<size_t> l2_rank;  ///< position in the candidate order (0 = owner)

  /// announces is true when the node's agent is alive and announces over BGP or Layer 2.
  bool announces() const { return live && (bgp.announced() || l2_owner); }
};

/// ServiceVerdicts is the whole cluster's answer for one Service.
struct ServiceVerdicts {
  std::string gate;                ///< common-gate withdrawal reason ("" = passed)
  std::string pool;                ///< the pool holding the addresses ("" when the gate failed)
  bool bgp_pool = false;           ///< some BGPAdvertisement applies to the pool
  bool l2_pool = false;            ///< some L2Advertisement applies to the pool
  std::optional<L2Election> l2;    ///< the election, when the gate passed in an L2 pool
  std::vector<NodeVerdict> nodes;  ///< one per Node, in name order
};

/// serviceVerdicts runs the agent's decisions for every node. Live nodes are the Nodes not in
/// dead_nodes.
ServiceVerdicts serviceVerdicts(const VerdictInputs& in);

}  // namespace ingot::agent
