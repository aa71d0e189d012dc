// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/ndp_codec.h"

namespace ingot::agent::l2 {

namespace {

constexpr uint8_t kNextHeaderIcmpv6 = 58;
constexpr size_t kNeighborBodyLen = 24;  // type, code, checksum, flags/reserved, target
constexpr size_t kIcmp = kEthernetHeaderLen + kIpv6HeaderLen;

uint32_t sumWords(ByteView b, uint32_t sum) {
  for (size_t i = 0; i + 1 < b.size(); i += 2) {
    sum += readU16(b, i);
  }
  if (b.size() % 2 == 1) {
    sum += static_cast<uint32_t>(b.back()) << 8;
  }
  return sum;
}

bool isMulticast(const Ip6& ip) {
  return ip[0] == 0xff;
}

// parseOptions reads the link-layer option of `wanted` type; other options are skipped.
std::variant<std::optional<Mac>, DropReason> parseOptions(ByteView opts, uint8_t wanted) {
  std::optional<Mac> found;
  size_t at = 0;
  while (at < opts.size()) {
    if (opts.size() - at < 2 || opts[at + 1] == 0) {
      return DropReason::BadOption;
    }
    const size_t len = size_t{opts[at + 1]} * 8;
    if (len > opts.size() - at) {
      return DropReason::BadOption;
    }
    if (opts[at] == wanted) {
      if (len != 8) {
        return DropReason::BadOption;
      }
      found = readArray<6>(opts, at + 2);
    }
    at += len;
  }
  return found;
}

// checkHeaders validates the Ethernet, IPv6 and ICMPv6 fixed parts; returns the ICMPv6 length.
std::variant<size_t, DropReason> checkHeaders(ByteView frame) {
  if (frame.size() < kEthernetHeaderLen) {
    return DropReason::Truncated;
  }
  if (readU16(frame, 12) != kEtherTypeIpv6) {
    return DropReason::NotIpv6;
  }
  if (frame.size() < kIcmp) {
    return DropReason::Truncated;
  }
  if ((frame[kEthernetHeaderLen] >> 4) != 6) {
    return DropReason::NotIpv6;
  }
  const size_t payload = readU16(frame, kEthernetHeaderLen + 4);
  if (frame[kEthernetHeaderLen + 6] != kNextHeaderIcmpv6 || payload < 1 ||
      frame.size() < kIcmp + 1) {
    return DropReason::NotNeighborSolicit;
  }
  const uint8_t type = frame[kIcmp];
  if (type != kIcmpv6NeighborSolicit && type != kIcmpv6NeighborAdvert) {
    return DropReason::NotNeighborSolicit;
  }
  if (frame.size() < kIcmp + payload) {
    return DropReason::Truncated;
  }
  if (payload < kNeighborBodyLen || frame[kEthernetHeaderLen + 7] != 255 || frame[kIcmp + 1] != 0) {
    return DropReason::BadIcmp;
  }
  return payload;
}

// isDadProbe reports whether an NS comes from the unspecified address (RFC 4862 5.4.2).
bool isDadProbe(const NeighborMessage& ns) {
  return ns.ip_src == Ip6{};
}

// solicitProblem returns why an NS is not answered whatever its target, or nullopt.
std::optional<DropReason> solicitProblem(const NeighborMessage& ns,
                                         const Mac& own_mac,
                                         Delivery delivery) {
  const bool to_us = ns.eth_dst == own_mac || (ns.eth_dst[0] == 0x33 && ns.eth_dst[1] == 0x33);
  if (isMulticast(ns.target) || !to_us) {
    return DropReason::BadTarget;
  }
  if (delivery == Delivery::OtherHost) {
    return DropReason::ForeignVlan;
  }
  if (isMulticast(ns.ip_src)) {
    return DropReason::BadSource;
  }
  if (isGroupOrZero(ns.eth_src) || (ns.link_layer && isGroupOrZero(*ns.link_layer))) {
    return DropReason::BadSender;
  }
  if (isDadProbe(ns)) {
    // RFC 4861 7.1.1: no source link-layer option, and sent to the target's solicited-node group.
    if (ns.link_layer) {
      return DropReason::BadOption;
    }
    if (ns.ip_dst != solicitedNodeAddress(ns.target)) {
      return DropReason::BadTarget;
    }
  } else if (!ns.link_layer) {
    return DropReason::NoSourceLinkLayer;
  }
  if (ns.eth_src == own_mac || (ns.link_layer && *ns.link_layer == own_mac)) {
    return DropReason::FromSelf;
  }
  return std::nullopt;
}

}  // namespace

uint16_t icmpv6Checksum(const Ip6& src, const Ip6& dst, ByteView icmp) {
  uint32_t sum = sumWords(src, 0);
  sum = sumWords(dst, sum);
  sum += static_cast<uint32_t>(icmp.size() >> 16) + static_cast<uint32_t>(icmp.size() & 0xffff);
  sum += kNextHeaderIcmpv6;
  sum = sumWords(icmp, sum);
  while (sum >> 16) {
    sum = (sum & 0xffff) + (sum >> 16);
  }
  return static_cast<uint16_t>(~sum & 0xffff);
}

std::variant<NeighborMessage, DropReason> parseNeighborMessage(ByteView frame) {
  auto checked = checkHeaders(frame);
  if (const auto* reason = std::get_if<DropReason>(&checked)) {
    return *reason;
  }
  const size_t payload = std::get<size_t>(checked);
  NeighborMessage m;
  m.eth_dst = readArray<6>(frame, 0);
  m.eth_src = readArray<6>(frame, 6);
  m.hop_limit = frame[kEthernetHeaderLen + 7];
  m.ip_src = readArray<16>(frame, kEthernetHeaderLen + 8);
  m.ip_dst = readArray<16>(frame, kEthernetHeaderLen + 24);
  const ByteView icmp = frame.subspan(kIcmp, payload);
  if (icmpv6Checksum(m.ip_src, m.ip_dst, icmp) != 0) {
    return DropReason::BadIcmp;
  }
  m.type = icmp[0];
  m.router = (icmp[4] & 0x80) != 0;
  m.solicited = (icmp[4] & 0x40) != 0;
  m.override_flag = (icmp[4] & 0x20) != 0;
  m.target = readArray<16>(icmp, 8);
  const uint8_t wanted =
      m.type == kIcmpv6NeighborSolicit ? kOptionSourceLinkLayer : kOptionTargetLinkLayer;
  auto opts = parseOptions(icmp.subspan(kNeighborBodyLen), wanted);
  if (const auto* reason = std::get_if<DropReason>(&opts)) {
    return *reason;
  }
  m.link_layer = std::get<std::optional<Mac>>(opts);
  return m;
}

Bytes encodeNeighborMessage(const NeighborMessage& m) {
  Bytes out;
  const size_t icmp_len = kNeighborBodyLen + (m.link_layer ? 8 : 0);
  out.reserve(kIcmp + icmp_len);
  putEthernet(out, m.eth_dst, m.eth_src, kEtherTypeIpv6);
  out.insert(out.end(), {0x60, 0, 0, 0});
  putU16(out, static_cast<uint16_t>(icmp_len));
  out.push_back(kNextHeaderIcmpv6);
  out.push_back(m.hop_limit);
  putBytes(out, m.ip_src);
  putBytes(out, m.ip_dst);
  const uint8_t flags = static_cast<uint8_t>((m.router ? 0x80 : 0) | (m.solicited ? 0x40 : 0) |
                                             (m.override_flag ? 0x20 : 0));
  out.insert(out.end(), {m.type, 0, 0, 0, flags, 0, 0, 0});
  putBytes(out, m.target);
  if (m.link_layer) {
    out.push_back(m.type == kIcmpv6NeighborSolicit ? kOptionSourceLinkLayer
                                                   : kOptionTargetLinkLayer);
    out.push_back(1);
    putBytes(out, *m.link_layer);
  }
  const uint16_t sum = icmpv6Checksum(m.ip_src, m.ip_dst, ByteView(out).subspan(kIcmp));
  out[kIcmp + 2] = static_cast<uint8_t>(sum >> 8);
  out[kIcmp + 3] = static_cast<uint8_t>(sum & 0xff);
  return out;
}

Ip6 solicitedNodeAddress(const Ip6& ip) {
  return Ip6{0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, ip[13], ip[14], ip[15]};
}

Mac multicastMac(const Ip6& group) {
  return Mac{0x33, 0x33, group[12], group[13], group[14], group[15]};
}

NdpDecision processNeighborSolicit(ByteView frame,
                                   const Mac& own_mac,
                                   const Ip6& own_ip,
                                   const Ip6Owned& owned,
                                   Delivery delivery) {
  NdpDecision d;
  auto parsed = parseNeighborMessage(frame);
  if (const auto* reason = std::get_if<DropReason>(&parsed)) {
    d.reason = *reason;
    return d;
  }
  const auto& ns = std::get<NeighborMessage>(parsed);
  if (ns.type != kIcmpv6NeighborSolicit) {
    d.reason = DropReason::NotNeighborSolicit;
    return d;
  }
  d.target = ns.target;
  if (auto problem = solicitProblem(ns, own_mac, delivery)) {
    d.reason = *problem;
    return d;
  }
  if (!owned(ns.target)) {
    d.reason = DropReason::NotAnnounced;
    return d;
  }
  if (isDadProbe(ns)) {
    d.reply = unsolicitedAdvert(own_mac, own_ip, ns.target);  // defends the address
    return d;
  }
  NeighborMessage na{*ns.link_layer, own_mac, own_ip, ns.ip_src, 255,    kIcmpv6NeighborAdvert,
                     false,          true,    true,   ns.target, own_mac};
  d.reply = encodeNeighborMessage(na);
  return d;
}

Bytes unsolicitedAdvert(const Mac& mac, const Ip6& own_ip, const Ip6& target) {
  const Ip6 all_nodes{0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return encodeNeighborMessage(NeighborMessage{multicastMac(all_nodes), mac, own_ip, all_nodes, 255,
                                               kIcmpv6NeighborAdvert, false, false, true, target,
                                               mac});
}

}  // namespace ingot::agent::l2
