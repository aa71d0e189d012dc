// SPDX-License-Identifier: Apache-2.0
// Which interfaces of a node answer for a Layer 2 address (`--interfaces`, `--excludel2-path` of
// plan and explain). The node's interface names are the user's; the decision is the agent's:
// its exclude list (agent::l2::ExcludeList), the advertisements' interface union
// (agent::l2Interfaces) and the restriction to the named interfaces
// (agent::l2::restrictInterfaces).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/core/election.h"
#include "agent/l2/interfaces.h"
#include "api/types.h"
#include "cli/args.h"
#include "common/json/json.h"
#include "common/util/result.h"
#include "config/config.h"

namespace ingot::cli {

/// NodeInterfaces maps a node name to the names of its usable interfaces, in the order given.
using NodeInterfaces = std::map<std::string, std::vector<std::string>>;

/// parseNodeInterfaces reads `--interfaces` values: each holds "NODE=IF[,IF...]" items
/// separated by ';'. A node named twice gets the interfaces of both. Errors name the item.
Result<NodeInterfaces> parseNodeInterfaces(const std::vector<std::string>& values);

/// InterfaceFlags are the parsed --interfaces and --excludel2-path flags.
struct InterfaceFlags {
  NodeInterfaces nodes;
  agent::l2::ExcludeList exclude;
  bool given() const { return !nodes.empty(); }
};

/// interfaceFlags parses the flags; --excludel2-path must name a readable file. nodes lists the
/// Node names of the input: an --interfaces node not among them is an error.
Result<InterfaceFlags> interfaceFlags(const Args& args, const std::vector<api::Node>& nodes);

/// L2Answering is where a node answers for a Service's addresses when it owns them.
struct L2Answering {
  /// named is the advertisements' interface union for the node (nullopt: every usable one).
  std::optional<std::set<std::string>> named;
  std::vector<std::string> answered;  ///< the interfaces the responder answers on
  std::vector<std::string> excluded;  ///< given interfaces the exclude list removes
  std::vector<std::string> missing;   ///< named interfaces the node does not have (usable)
  /// failed: a list was named and none of it is usable, so the node answers nowhere and reports
  /// the Warning Event announceFailed.
  bool failed = false;
};

/// l2Answering decides where node answers for a Service with subject, given the node's
/// interface names and the exclude list.
L2Answering l2Answering(const agent::L2Subject& subject,
                        const std::string& node,
                        const std::vector<std::string>& interfaces,
                        const agent::l2::ExcludeList& exclude);

/// l2AnsweringOf runs l2Answering for each of nodes that flags gives interfaces for, for one
/// Service (the common gate and the pool's advertisements as the agent computes them); empty
/// when the Service is not announced over Layer 2.
std::map<std::string, L2Answering> l2AnsweringOf(const config::Config& config,
                                                 const api::Service& service,
                                                 const std::vector<api::EndpointSlice>& slices,
                                                 const agent::AnnounceOptions& options,
                                                 const std::vector<std::string>& nodes,
                                                 const InterfaceFlags& flags);

/// answeringText is "on eth0,eth1", "on no interface: ..." for people.
std::string answeringText(const L2Answering& a);

/// answeringJson is {"named": [..]|null, "answered": [..], "excluded": [..], "missing": [..],
/// "announceFailed": bool}.
json::Value answeringJson(const L2Answering& a);

}  // namespace ingot::cli
