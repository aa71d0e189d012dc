// SPDX-License-Identifier: Apache-2.0
// The frames of address conflict detection: ARP probes (RFC 5227) and duplicate address
// detection Neighbor Solicitations (RFC 4862), and what a received ARP/NDP frame claims.
#pragma once

#include <optional>
#include <string_view>

#include "agent/l2/core/frame.h"
#include "common/net/ip.h"

namespace ingot::agent::l2 {

/// parseMac reads "aa:bb:cc:dd:ee:ff" (either case); nullopt when malformed.
std::optional<Mac> parseMac(std::string_view text);

/// arpProbe builds the RFC 5227 probe for `ip` from `mac`: a broadcast ARP request with sender
/// IP 0.0.0.0, target MAC zero and target IP `ip`, so that no neighbour cache learns anything.
Bytes arpProbe(const Mac& mac, const Ip4& ip);

/// dadSolicit builds the RFC 4862 duplicate address detection probe for `ip` from `mac`: a
/// Neighbor Solicitation from the unspecified address to the solicited-node group of `ip`,
/// without a source link-layer option.
Bytes dadSolicit(const Mac& mac, const Ip6& ip);

/// Claim is what a received frame says about an address: `mac` uses (or probes for) `ip`.
struct Claim {
  net::IpAddress ip;
  Mac mac{};
  /// probe is true for another host's probe (ARP probe, DAD solicitation) rather than a use.
  bool probe = false;
  friend bool operator==(const Claim&, const Claim&) = default;
};

/// arpClaim reads an ARP frame: a request or reply with a sender IP claims that address at the
/// sender MAC; a probe (sender IP 0.0.0.0) claims to probe its target IP. nullopt otherwise.
std::optional<Claim> arpClaim(ByteView frame);

/// ndpClaim reads an NDP frame: a Neighbor Advertisement claims its target at its target
/// link-layer address (the Ethernet source without that option); a solicitation from the
/// unspecified address (DAD) claims to probe its target. nullopt otherwise.
std::optional<Claim> ndpClaim(ByteView frame);

}  // namespace ingot::agent::l2
