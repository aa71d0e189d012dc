// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ingot::agent::l2 {

/// Mac is an Ethernet address in wire order.
using Mac = std::array<uint8_t, 6>;
/// Ip4 is an IPv4 address in wire (network) order.
using Ip4 = std::array<uint8_t, 4>;
/// Ip6 is an IPv6 address in wire order.
using Ip6 = std::array<uint8_t, 16>;
/// Bytes is a frame as sent or received on an AF_PACKET socket, starting at the Ethernet header.
using Bytes = std::vector<uint8_t>;
/// ByteView is a read-only view of a received frame.
using ByteView = std::span<const uint8_t>;

inline constexpr Mac kBroadcastMac = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
inline constexpr uint16_t kEtherTypeArp = 0x0806;
inline constexpr uint16_t kEtherTypeIpv6 = 0x86dd;
inline constexpr size_t kEthernetHeaderLen = 14;

/// DropReason says why a received frame produced no reply. Every path of the request decisions
/// that sends nothing returns one of these, so the responder can count drops by cause.
enum class DropReason : uint8_t {
  Truncated,       ///< shorter than its headers claim
  NotArp,          ///< EtherType is not ARP
  UnsupportedArp,  ///< ARP for a hardware/protocol pair other than Ethernet/IPv4, or bad lengths
  NotRequest,      ///< ARP reply (or another opcode); only requests are answered
  NotIpv6,         ///< EtherType is not IPv6 or the IP version is not 6
  NotNeighborSolicit,  ///< an IPv6 packet that is not an ICMPv6 Neighbor Solicitation
  BadIcmp,             ///< hop limit not 255, code not 0, bad checksum, payload length mismatch
  BadOption,           ///< an option of length zero or running past the packet
  NoSourceLinkLayer,   ///< an NS from a unicast address without a source link-layer option
  BadTarget,           ///< a multicast NS target, or an Ethernet destination that is not for us
  FromSelf,            ///< sent by this interface (its own MAC)
  BadSender,     ///< a sender MAC (Ethernet source, ARP sender, NDP option) that is broadcast,
                 ///< multicast or zero: no reply may go there
  BadSource,     ///< an NS from a multicast IPv6 address (RFC 4291 2.7: never a source)
  ForeignVlan,   ///< tagged with a VLAN this host has no interface on (see Delivery)
  NotAnnounced,  ///< the target address is not announced on this interface
};

/// kDropReasonCount is the number of DropReason values (for per-reason counter arrays).
inline constexpr size_t kDropReasonCount = static_cast<size_t>(DropReason::NotAnnounced) + 1;

/// Delivery is how the kernel classified a received frame for the interface it arrived on
/// (AF_PACKET's sll_pkttype).
enum class Delivery : uint8_t {
  ForUs,      ///< unicast to the interface's MAC, broadcast or multicast
  OtherHost,  ///< not for this interface. For a frame whose Ethernet destination is broadcast or
              ///< this interface, this means it carried a VLAN tag that no VLAN interface of this
              ///< host takes: the kernel strips the tag before a packet socket sees the frame
              ///< and marks it so. Answering it untagged would answer on the wrong VLAN.
};

/// isGroupOrZero reports whether a MAC cannot be a sender's: broadcast or multicast (the I/G
/// bit of the first octet) or all zero.
inline bool isGroupOrZero(const Mac& mac) {
  return (mac[0] & 1) != 0 || mac == Mac{};
}

/// dropReasonName returns a stable lower_snake_case name, used as a metrics label value.
std::string_view dropReasonName(DropReason reason);

/// formatMac renders "aa:bb:cc:dd:ee:ff".
std::string formatMac(const Mac& mac);

/// readU16 reads a big-endian 16-bit value; the caller checks the bounds.
inline uint16_t readU16(ByteView b, size_t at) {
  return static_cast<uint16_t>((b[at] << 8) | b[at + 1]);
}

/// putU16 appends a big-endian 16-bit value.
inline void putU16(Bytes& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v & 0xff));
}

/// putBytes appends a fixed-size array.
template <size_t N>
void putBytes(Bytes& out, const std::array<uint8_t, N>& a) {
  out.insert(out.end(), a.begin(), a.end());
}

/// readArray copies N bytes starting at `at`; the caller checks the bounds.
template <size_t N>
std::array<uint8_t, N> readArray(ByteView b, size_t at) {
  std::array<uint8_t, N> a{};
  for (size_t i = 0; i < N; ++i) {
    a[i] = b[at + i];
  }
  return a;
}

/// Decision is the outcome of one received request frame: a reply, or the reason there is none.
/// `target` is the requested address once the frame parsed as a request.
template <typename Addr>
struct Decision {
  std::optional<Bytes> reply;
  DropReason reason = DropReason::NotAnnounced;  ///< meaningful only when reply is empty
  std::optional<Addr> target;
};

/// putEthernet appends an Ethernet II header.
void putEthernet(Bytes& out, const Mac& dst, const Mac& src, uint16_t ether_type);

}  // namespace ingot::agent::l2
