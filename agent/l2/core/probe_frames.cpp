// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/probe_frames.h"

#include <variant>

#include "agent/l2/core/addresses.h"
#include "agent/l2/core/arp_codec.h"
#include "agent/l2/core/ndp_codec.h"

namespace ingot::agent::l2 {

std::optional<Mac> parseMac(std::string_view text) {
  if (text.size() != 17) {
    return std::nullopt;
  }
  Mac mac{};
  for (size_t i = 0; i < 6; ++i) {
    int byte = 0;
    for (size_t j = 0; j < 2; ++j) {
      const char c = text[i * 3 + j];
      const int v = (c >= '0' && c <= '9')   ? c - '0'
                    : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                    : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                             : -1;
      if (v < 0) {
        return std::nullopt;
      }
      byte = byte * 16 + v;
    }
    if (i < 5 && text[i * 3 + 2] != ':') {
      return std::nullopt;
    }
    mac[i] = static_cast<uint8_t>(byte);
  }
  return mac;
}

Bytes arpProbe(const Mac& mac, const Ip4& ip) {
  return encodeArp(ArpPacket{kBroadcastMac, mac, kArpRequest, mac, Ip4{}, Mac{}, ip});
}

Bytes dadSolicit(const Mac& mac, const Ip6& ip) {
  const Ip6 group = solicitedNodeAddress(ip);
  return encodeNeighborMessage(NeighborMessage{multicastMac(group), mac, Ip6{}, group, 255,
                                               kIcmpv6NeighborSolicit, false, false, false, ip,
                                               std::nullopt});
}

std::optional<Claim> arpClaim(ByteView frame) {
  auto parsed = parseArp(frame);
  const auto* p = std::get_if<ArpPacket>(&parsed);
  if (p == nullptr || (p->op != kArpRequest && p->op != kArpReply)) {
    return std::nullopt;
  }
  if (p->sender_ip != Ip4{}) {
    return Claim{fromIp4(p->sender_ip), p->sender_mac, false};
  }
  if (p->op == kArpRequest) {
    return Claim{fromIp4(p->target_ip), p->sender_mac, true};
  }
  return std::nullopt;
}

std::optional<Claim> ndpClaim(ByteView frame) {
  auto parsed = parseNeighborMessage(frame);
  const auto* m = std::get_if<NeighborMessage>(&parsed);
  if (m == nullptr) {
    return std::nullopt;
  }
  if (m->type == kIcmpv6NeighborAdvert) {
    return Claim{fromIp6(m->target), m->link_layer.value_or(m->eth_src), false};
  }
  if (m->ip_src == Ip6{}) {
    return Claim{fromIp6(m->target), m->eth_src, true};
  }
  return std::nullopt;
}

}  // namespace ingot::agent::l2
