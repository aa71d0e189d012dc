// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/arp_codec.h"

namespace ingot::agent::l2 {

namespace {

constexpr uint16_t kHardwareEthernet = 1;
constexpr uint16_t kProtocolIpv4 = 0x0800;

// requestProblem returns why a request is not answered whatever it asks for, or nullopt.
std::optional<DropReason> requestProblem(const ArpPacket& req,
                                         const Mac& own_mac,
                                         Delivery delivery) {
  if (req.eth_dst != kBroadcastMac && req.eth_dst != own_mac) {
    return DropReason::BadTarget;
  }
  if (delivery == Delivery::OtherHost) {
    return DropReason::ForeignVlan;
  }
  // The reply goes to the sender MAC: never to a group address or nobody.
  if (isGroupOrZero(req.eth_src) || isGroupOrZero(req.sender_mac)) {
    return DropReason::BadSender;
  }
  if (req.eth_src == own_mac || req.sender_mac == own_mac) {
    return DropReason::FromSelf;
  }
  return std::nullopt;
}

}  // namespace

std::variant<ArpPacket, DropReason> parseArp(ByteView frame) {
  if (frame.size() < kEthernetHeaderLen) {
    return DropReason::Truncated;
  }
  if (readU16(frame, 12) != kEtherTypeArp) {
    return DropReason::NotArp;
  }
  if (frame.size() < kArpFrameLen) {
    return DropReason::Truncated;
  }
  const size_t a = kEthernetHeaderLen;
  if (readU16(frame, a) != kHardwareEthernet || readU16(frame, a + 2) != kProtocolIpv4 ||
      frame[a + 4] != 6 || frame[a + 5] != 4) {
    return DropReason::UnsupportedArp;
  }
  ArpPacket p;
  p.eth_dst = readArray<6>(frame, 0);
  p.eth_src = readArray<6>(frame, 6);
  p.op = readU16(frame, a + 6);
  p.sender_mac = readArray<6>(frame, a + 8);
  p.sender_ip = readArray<4>(frame, a + 14);
  p.target_mac = readArray<6>(frame, a + 18);
  p.target_ip = readArray<4>(frame, a + 24);
  return p;
}

Bytes encodeArp(const ArpPacket& p) {
  Bytes out;
  out.reserve(kArpFrameLen);
  putEthernet(out, p.eth_dst, p.eth_src, kEtherTypeArp);
  putU16(out, kHardwareEthernet);
  putU16(out, kProtocolIpv4);
  out.push_back(6);
  out.push_back(4);
  putU16(out, p.op);
  putBytes(out, p.sender_mac);
  putBytes(out, p.sender_ip);
  putBytes(out, p.target_mac);
  putBytes(out, p.target_ip);
  return out;
}

ArpDecision processArpRequest(ByteView frame,
                              const Mac& own_mac,
                              const Ip4Owned& owned,
                              Delivery delivery) {
  ArpDecision d;
  auto parsed = parseArp(frame);
  if (const auto* reason = std::get_if<DropReason>(&parsed)) {
    d.reason = *reason;
    return d;
  }
  const auto& req = std::get<ArpPacket>(parsed);
  if (req.op != kArpRequest) {
    d.reason = DropReason::NotRequest;
    return d;
  }
  d.target = req.target_ip;
  if (auto problem = requestProblem(req, own_mac, delivery)) {
    d.reason = *problem;
    return d;
  }
  if (!owned(req.target_ip)) {
    d.reason = DropReason::NotAnnounced;
    return d;
  }
  ArpPacket reply{req.sender_mac, own_mac,        kArpReply,    own_mac,
                  req.target_ip,  req.sender_mac, req.sender_ip};
  d.reply = encodeArp(reply);
  return d;
}

Bytes gratuitousArp(const Mac& mac, const Ip4& ip, uint16_t op) {
  const Mac target_mac = op == kArpRequest ? Mac{} : kBroadcastMac;
  return encodeArp(ArpPacket{kBroadcastMac, mac, op, mac, ip, target_mac, ip});
}

}  // namespace ingot::agent::l2
