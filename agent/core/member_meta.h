// SPDX-License-Identifier: Apache-2.0
// What an Ingot agent tells the other members about itself in its memberlist metadata. MetalLB's
// speakers advertise none, so a member without this text is not an Ingot agent, and whatever
// Ingot adds to the election (hold-down) must then stay off for every agent to keep agreeing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ingot::agent {

/// MemberMeta is the decoded metadata of one Ingot agent. The text form is
/// `ingot/1 key=value ...`: space-separated, keys in any order, unknown keys ignored (a newer
/// agent may add some), each known key at most once.
struct MemberMeta {
  /// joined_ms is when the agent joined memberlist, in Unix milliseconds (key `joined`).
  std::optional<int64_t> joined_ms;
  /// hold_down_ms is the agent's Layer 2 hold-down in milliseconds (key `holddown`).
  std::optional<int64_t> hold_down_ms;
  /// macs are the hardware addresses the agent answers ARP/NDP from, lower-case
  /// `aa:bb:cc:dd:ee:ff` (key `macs`, comma-separated).
  std::vector<std::string> macs;

  bool operator==(const MemberMeta&) const = default;
};

/// kMemberMetaPrefix starts every Ingot agent's metadata.
inline constexpr std::string_view kMemberMetaPrefix = "ingot/1";

/// encodeMemberMeta renders meta in the text form (fields left unset are omitted).
std::string encodeMemberMeta(const MemberMeta& meta);

/// parseMemberMeta reads the text form. nullopt when the text is not an Ingot agent's (it does
/// not start with the prefix, as a MetalLB speaker's empty metadata) or when a known key is
/// repeated or has a malformed value, so that a damaged text never counts as an agent's.
std::optional<MemberMeta> parseMemberMeta(std::string_view text);

}  // namespace ingot::agent
