// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <optional>
#include <variant>

#include "agent/l2/core/frame.h"

namespace ingot::agent::l2 {

inline constexpr uint16_t kArpRequest = 1;
inline constexpr uint16_t kArpReply = 2;
/// kArpFrameLen is an Ethernet/IPv4 ARP frame without padding: 14 + 28 bytes.
inline constexpr size_t kArpFrameLen = kEthernetHeaderLen + 28;

/// ArpPacket is an Ethernet frame carrying an Ethernet/IPv4 ARP message.
struct ArpPacket {
  Mac eth_dst{};
  Mac eth_src{};
  uint16_t op = kArpRequest;
  Mac sender_mac{};
  Ip4 sender_ip{};
  Mac target_mac{};
  Ip4 target_ip{};
  friend bool operator==(const ArpPacket&, const ArpPacket&) = default;
};

/// parseArp decodes a frame; trailing bytes (Ethernet padding) are ignored.
std::variant<ArpPacket, DropReason> parseArp(ByteView frame);

/// encodeArp builds the 42-byte frame for a packet.
Bytes encodeArp(const ArpPacket& packet);

/// Ip4Owned answers whether an IPv4 address is announced on the interface the frame came from.
using Ip4Owned = std::function<bool(const Ip4&)>;

/// ArpDecision is the outcome of one received frame: a reply, or the reason there is none.
using ArpDecision = Decision<Ip4>;

/// processArpRequest decides the reply to a frame received on an interface whose MAC is
/// `own_mac`: only requests sent to broadcast or to us, delivered for us (not tagged with a VLAN
/// this host is not on), from a sender whose MAC can be answered (not broadcast, multicast or
/// zero) and is not ours, for an owned address.
ArpDecision processArpRequest(ByteView frame,
                              const Mac& own_mac,
                              const Ip4Owned& owned,
                              Delivery delivery = Delivery::ForUs);

/// gratuitousArp builds the announcement of `ip` at `mac`, broadcast: a request (op 1, target
/// MAC zero) or a reply (op 2, target MAC broadcast); sender and target address are both `ip`.
Bytes gratuitousArp(const Mac& mac, const Ip4& ip, uint16_t op);

}  // namespace ingot::agent::l2
