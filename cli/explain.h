// SPDX-License-Identifier: Apache-2.0
// `ingotctl explain`: why one Service has the addresses and pool it has, and why each node does or
// does not announce it over BGP and Layer 2. The explanation is built by calling the controller's
// and the agent's own decision code (pool order, decideBgp, the L2 membership and election); the
// builder adds only the attribution of each node's exclusion, using the agent's predicates.
#pragma once

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "agent/core/announce.h"
#include "agent/core/election.h"
#include "agent/core/verdicts.h"
#include "api/types.h"
#include "cli/explain_liveness.h"
#include "cli/l2_interfaces.h"
#include "common/util/result.h"
#include "config/config.h"
#include "controller/core/service.h"

namespace ingot::cli {

/// ExplainInputs is everything the explanation reads. service is the Service as the controller
/// leaves it (status and annotations written); original is the Service as given in the input.
struct ExplainInputs {
  const config::Config* config = nullptr;
  const std::vector<api::Node>* nodes = nullptr;
  const std::vector<api::EndpointSlice>* slices = nullptr;
  const api::Service* original = nullptr;
  const api::Service* service = nullptr;
  const controller::ServiceOutcome* outcome = nullptr;
  agent::AnnounceOptions announce;
  std::set<std::string> dead_nodes;     ///< nodes whose agent is not alive (--dead-node)
  std::set<std::string> suspect_nodes;  ///< nodes memberlist suspects: still live (--suspect-node)
  const InterfaceFlags* interfaces = nullptr;  ///< --interfaces, --excludel2-path (null: none)
};

/// PoolChoice is why the Service got its pool. source is one of "annotation" (the address-pool
/// annotation names it), "requestedIPs" (loadBalancerIP(s) lie in it), "existing" (the input
/// already had addresses, which the controller keeps), "automatic" (first pool of `order` with a
/// free address), or "none" (no address).
struct PoolChoice {
  std::string pool;
  std::string source;
  std::string detail;
  std::vector<std::string> order;  ///< automatic order (name and priority), for "automatic"
};

/// NodeExplanation is one node's BGP and Layer 2 verdicts for the Service (the agent's).
using NodeExplanation = agent::NodeVerdict;

/// Explanation is the whole answer for one Service.
struct Explanation {
  std::string service;  ///< "namespace/name"
  std::vector<std::string> ips;
  PoolChoice pool;
  std::vector<controller::Event> events;   ///< what the controller reports on the Service
  std::string gate;                        ///< common-gate withdrawal reason ("" = passed)
  bool bgp_pool = false;                   ///< some BGPAdvertisement applies to the pool
  bool l2_pool = false;                    ///< some L2Advertisement applies to the pool
  std::optional<agent::L2Election> l2;     ///< the election, when the gate passed in an L2 pool
  std::vector<NodeExplanation> nodes;      ///< one per Node, in name order
  std::vector<std::string> dead_nodes;     ///< as given, sorted
  std::vector<std::string> suspect_nodes;  ///< as given, sorted (live for the election)
  /// l2_interfaces: where each node --interfaces names would answer for the addresses if it owned
  /// them (the owner does), when the Service is announced over Layer 2.
  std::map<std::string, L2Answering> l2_interfaces;
  ExplainLiveness liveness;  ///< where liveness came from (set by the caller)
};

/// explainService builds the explanation. Pure: it reads the inputs and returns a value.
Explanation explainService(const ExplainInputs& in);

/// explainText renders the explanation for people.
void explainText(std::ostream& out, const Explanation& e);

/// explainJson renders the explanation as the JSON documented in docs/explain.md.
std::string explainJson(const Explanation& e);

/// runExplain: `explain [service] NAMESPACE/NAME [flags] [-f PATH...]` (flags in
/// cli/command_table.cpp).
int runExplain(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

}  // namespace ingot::cli
