// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <optional>
#include <variant>

#include "agent/l2/core/frame.h"

namespace ingot::agent::l2 {

inline constexpr uint8_t kIcmpv6NeighborSolicit = 135;
inline constexpr uint8_t kIcmpv6NeighborAdvert = 136;
inline constexpr uint8_t kOptionSourceLinkLayer = 1;
inline constexpr uint8_t kOptionTargetLinkLayer = 2;
inline constexpr size_t kIpv6HeaderLen = 40;

/// NeighborMessage is an Ethernet frame carrying IPv6 and an ICMPv6 Neighbor Solicitation or
/// Advertisement with at most one link-layer address option (source for NS, target for NA).
struct NeighborMessage {
  Mac eth_dst{};
  Mac eth_src{};
  Ip6 ip_src{};
  Ip6 ip_dst{};
  uint8_t hop_limit = 255;
  uint8_t type = kIcmpv6NeighborSolicit;
  bool router = false;         ///< NA only
  bool solicited = false;      ///< NA only
  bool override_flag = false;  ///< NA only
  Ip6 target{};
  std::optional<Mac> link_layer;  ///< source (NS) or target (NA) link-layer address option
  friend bool operator==(const NeighborMessage&, const NeighborMessage&) = default;
};

/// icmpv6Checksum computes the checksum of an ICMPv6 message (checksum field included as
/// found) over the IPv6 pseudo-header; a message whose checksum is correct yields 0.
uint16_t icmpv6Checksum(const Ip6& src, const Ip6& dst, ByteView icmp);

/// parseNeighborMessage decodes and validates an NS or NA frame (RFC 4861 §7.1: hop limit 255,
/// code 0, checksum, length, options). Trailing Ethernet padding is ignored.
std::variant<NeighborMessage, DropReason> parseNeighborMessage(ByteView frame);

/// encodeNeighborMessage builds the frame, computing payload length and checksum.
Bytes encodeNeighborMessage(const NeighborMessage& message);

/// solicitedNodeAddress returns ff02::1:ffXX:XXXX for an address.
Ip6 solicitedNodeAddress(const Ip6& ip);

/// multicastMac returns the Ethernet group address 33:33:xx:xx:xx:xx of an IPv6 multicast address.
Mac multicastMac(const Ip6& group);

/// Ip6Owned answers whether an IPv6 address is announced on the interface the frame came from.
using Ip6Owned = std::function<bool(const Ip6&)>;

/// NdpDecision is the outcome of one received frame: a reply, or the reason there is none.
using NdpDecision = Decision<Ip6>;

/// processNeighborSolicit answers an NS for an owned target from the interface's link-local
/// address `own_ip` and MAC `own_mac`. An NS with a source link-layer address option gets a
/// solicited NA (Override=1) sent to that address. An NS from the unspecified address (another
/// host's duplicate address detection, RFC 4862 5.4) for an owned target is defended as RFC 4861
/// 7.2.4 says: an NA with Solicited=0, Override=1 to all nodes (ff02::1). No answer (a reason)
/// for: an NS from a unicast address without that option; a DAD probe with the option or not
/// sent to the target's solicited-node group (RFC 4861 7.1.1); a multicast IPv6 source; a
/// broadcast, multicast or zero sender MAC; a frame tagged with a VLAN this host is not on
/// (`delivery`); a frame from this interface.
NdpDecision processNeighborSolicit(ByteView frame,
                                   const Mac& own_mac,
                                   const Ip6& own_ip,
                                   const Ip6Owned& owned,
                                   Delivery delivery = Delivery::ForUs);

/// unsolicitedAdvert builds the NA announcing `target` at `mac` to all nodes (ff02::1):
/// Solicited=0, Override=1, with the target link-layer option, sent from `own_ip`.
Bytes unsolicitedAdvert(const Mac& mac, const Ip6& own_ip, const Ip6& target);

}  // namespace ingot::agent::l2
