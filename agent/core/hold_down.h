// SPDX-License-Identifier: Apache-2.0
// Layer 2 hold-down: a node that has just come back does not take back the addresses it wins
// until it has been a member for the hold-down period, so a flapping node does not move traffic
// back and forth. Every Ingot agent advertises when it joined memberlist and its hold-down in its
// member metadata (agent/core/member_meta.h); every agent evaluates the same rule on the same
// metadata and so names the same owner. Pure: the caller passes the metadata and the time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ingot::agent {

/// HoldDown is the rule's outcome for one membership at one instant.
struct HoldDown {
  /// held maps each member that may not take an address yet to the instant (Unix ms) its
  /// hold-down ends.
  std::map<std::string, int64_t> held;
  /// next_change_ms is when the outcome changes next (the earliest end in held); nullopt: never,
  /// until the membership or its metadata changes.
  std::optional<int64_t> next_change_ms;
  /// hold_down_ms is the hold-down in force: the smallest any member advertises (0 when off).
  int64_t hold_down_ms = 0;
  /// off names why hold-down does not apply ("" when it applies): "disabled" (no member, or the
  /// smallest advertised hold-down is 0) or "member <name> is not an Ingot agent" (its metadata
  /// is not an Ingot agent's, as a MetalLB speaker's empty metadata, or lacks a field).
  std::string off;

  /// heldNames returns the keys of held.
  std::set<std::string> heldNames() const;
};

/// holdDown evaluates the rule over the live members' raw metadata (member name → text, as
/// LiveNodes::metadata returns it) at now_ms (Unix ms):
///   - off when some member is not an Ingot agent (MetalLB speakers know no hold-down, so every
///     agent must then elect as they do), or when the smallest advertised hold-down H is 0;
///   - otherwise member c is held while now < joined(c) + H, provided some other member d had
///     joined at least H before c (joined(d) <= joined(c) - H): a node coming back to running
///     ones is held, agents starting together are not.
HoldDown holdDown(const std::map<std::string, std::string>& metadata, int64_t now_ms);

/// holdDownOwner is the owner among candidates (election order) under hold-down: the first one
/// not held; the first one when every candidate is held (never no owner because of hold-down);
/// nullopt without candidates.
std::optional<std::string> holdDownOwner(const std::vector<std::string>& candidates,
                                         const std::set<std::string>& held);

}  // namespace ingot::agent
