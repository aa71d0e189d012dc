// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/frame.h"

#include <cstdio>

namespace ingot::agent::l2 {

std::string_view dropReasonName(DropReason reason) {
  switch (reason) {
    case DropReason::Truncated:
      return "truncated";
    case DropReason::NotArp:
      return "not_arp";
    case DropReason::UnsupportedArp:
      return "unsupported_arp";
    case DropReason::NotRequest:
      return "not_request";
    case DropReason::NotIpv6:
      return "not_ipv6";
    case DropReason::NotNeighborSolicit:
      return "not_neighbor_solicit";
    case DropReason::BadIcmp:
      return "bad_icmp";
    case DropReason::BadOption:
      return "bad_option";
    case DropReason::NoSourceLinkLayer:
      return "no_source_link_layer";
    case DropReason::BadTarget:
      return "bad_target";
    case DropReason::FromSelf:
      return "from_self";
    case DropReason::BadSender:
      return "bad_sender";
    case DropReason::BadSource:
      return "bad_source";
    case DropReason::ForeignVlan:
      return "foreign_vlan";
    case DropReason::NotAnnounced:
      return "not_announced";
  }
  return "unknown";
}

std::string formatMac(const Mac& mac) {
  char buf[18];
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
                mac[4], mac[5]);
  return buf;
}

void putEthernet(Bytes& out, const Mac& dst, const Mac& src, uint16_t ether_type) {
  putBytes(out, dst);
  putBytes(out, src);
  putU16(out, ether_type);
}

}  // namespace ingot::agent::l2
