// SPDX-License-Identifier: Apache-2.0
#include "api/convert.h"

namespace ingot::api {

BGPPeer toV1beta2(const BGPPeerV1beta1& peer) {
  BGPPeer out;
  out.metadata = peer.metadata;
  const auto& in = peer.spec;
  auto& s = out.spec;
  s.my_asn = in.my_asn;
  s.peer_asn = in.peer_asn;
  s.peer_address = in.peer_address;
  s.source_address = in.source_address;
  s.peer_port = in.peer_port;
  s.hold_time = in.hold_time;
  s.keepalive_time = in.keepalive_time;
  s.router_id = in.router_id;
  s.node_selectors = in.node_selectors;
  s.password = in.password;
  s.bfd_profile = in.bfd_profile;
  s.ebgp_multi_hop = in.ebgp_multi_hop;
  return out;
}

BGPPeerV1beta1 toV1beta1(const BGPPeer& peer) {
  BGPPeerV1beta1 out;
  out.metadata = peer.metadata;
  const auto& in = peer.spec;
  auto& s = out.spec;
  s.my_asn = in.my_asn;
  s.peer_asn = in.peer_asn;
  s.peer_address = in.peer_address;
  s.source_address = in.source_address;
  s.peer_port = in.peer_port;
  s.hold_time = in.hold_time;
  s.keepalive_time = in.keepalive_time;
  s.router_id = in.router_id;
  s.node_selectors = in.node_selectors;
  s.password = in.password;
  s.bfd_profile = in.bfd_profile;
  s.ebgp_multi_hop = in.ebgp_multi_hop;
  return out;
}

}  // namespace ingot::api
