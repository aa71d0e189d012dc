// SPDX-License-Identifier: Apache-2.0
// LiveNodes: where the reconciler learns which nodes run a live agent (memberlist, when it is
// on). Without it every Node object counts as live, as in MetalLB with memberlist disabled.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace ingot::agent {

namespace keys {
/// kMembers re-runs the Layer 2 election of the Services a membership change affects.
inline constexpr std::string_view kMembers = "members";
}  // namespace keys

/// LiveNodes is the set of nodes with a live agent. Implementations are thread-safe: the
/// reconcile worker reads it while the gossip thread updates it.
class LiveNodes {
 public:
  virtual ~LiveNodes() = default;
  /// live returns the names of the members that are alive or suspect, this node included.
  virtual std::set<std::string> live() const = 0;
  /// joined is false while this agent does not know the membership yet (memberlist not joined):
  /// the Layer 2 election then waits, and this node answers for no address, so that an agent
  /// starting next to running ones never claims what they answer for.
  virtual bool joined() const { return true; }
  /// metadata returns what each live member advertises in its memberlist metadata (raw text,
  /// empty for a MetalLB speaker), this node included; empty without memberlist.
  virtual std::map<std::string, std::string> metadata() const { return {}; }
};

}  // namespace ingot::agent
