// SPDX-License-Identifier: Apache-2.0
// metallb.io kinds. JSON names follow MetalLB's Go struct tags (api/v1beta1, api/v1beta2).
#include "api/codec_internal.h"
#include "api/object.h"

namespace ingot::api::codec {
namespace {

/// emptyStatus accepts the `status: {}` that MetalLB kinds without status fields carry.
void emptyStatus(ObjectReader& r) {
  ObjectReader status(r["status"], Unknown::Reject);
}

void putSelectors(Value& o, std::string key, const std::vector<LabelSelector>& list) {
  if (!list.empty()) {
    o.set(std::move(key), encodeSelectors(list));
  }
}

}  // namespace

void decodeKind(const Field& f, BGPAdvertisement& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  auto& s = out.spec;
  (void)spec["aggregationLength"].read(s.aggregation_length);
  (void)spec["aggregationLengthV6"].read(s.aggregation_length_v6);
  (void)spec["localPref"].read(s.local_pref);
  (void)spec["communities"].read(s.communities);
  (void)spec["ipAddressPools"].read(s.ip_address_pools);
  decodeSelectors(spec["ipAddressPoolSelectors"], s.ip_address_pool_selectors);
  decodeSelectors(spec["nodeSelectors"], s.node_selectors);
  (void)spec["peers"].read(s.peers);
  decodeSelectors(spec["serviceSelectors"], s.service_selectors);
  emptyStatus(r);
}

Value encodeKind(const BGPAdvertisement& in) {
  Value o = header(in);
  Value spec = Value::object();
  const auto& s = in.spec;
  putOptionalInt(spec, "aggregationLength", s.aggregation_length);
  putOptionalInt(spec, "aggregationLengthV6", s.aggregation_length_v6);
  putInt(spec, "localPref", s.local_pref);
  putStrings(spec, "communities", s.communities);
  putStrings(spec, "ipAddressPools", s.ip_address_pools);
  putSelectors(spec, "ipAddressPoolSelectors", s.ip_address_pool_selectors);
  putSelectors(spec, "nodeSelectors", s.node_selectors);
  putStrings(spec, "peers", s.peers);
  putSelectors(spec, "serviceSelectors", s.service_selectors);
  o.set("spec", std::move(spec));
  return o;
}

void decodeKind(const Field& f, BGPPeer& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  auto& s = out.spec;
  (void)spec["myASN"].read(s.my_asn);
  (void)spec["peerASN"].read(s.peer_asn);
  (void)spec["dynamicASN"].read(s.dynamic_asn);
  (void)spec["localASN"].read(s.local_asn);
  (void)spec["peerAddress"].read(s.peer_address);
  (void)spec["interface"].read(s.interface);
  (void)spec["sourceAddress"].read(s.source_address);
  (void)spec["peerPort"].read(s.peer_port);
  decodeDuration(spec["holdTime"], s.hold_time);
  decodeDuration(spec["keepaliveTime"], s.keepalive_time);
  decodeDuration(spec["connectTime"], s.connect_time);
  (void)spec["routerID"].read(s.router_id);
  decodeSelectors(spec["nodeSelectors"], s.node_selectors);
  (void)spec["password"].read(s.password);
  decodeSecretRef(spec["passwordSecret"], s.password_secret);
  (void)spec["bfdProfile"].read(s.bfd_profile);
  (void)spec["enableGracefulRestart"].read(s.enable_graceful_restart);
  (void)spec["ebgpMultiHop"].read(s.ebgp_multi_hop);
  (void)spec["vrf"].read(s.vrf);
  (void)spec["disableMP"].read(s.disable_mp);
  (void)spec["dualStackAddressFamily"].read(s.dual_stack_address_family);
  emptyStatus(r);
}

Value encodeKind(const BGPPeer& in) {
  Value o = header(in);
  Value spec = Value::object();
  const auto& s = in.spec;
  putIntAlways(spec, "myASN", s.my_asn);
  putInt(spec, "peerASN", s.peer_asn);
  putString(spec, "dynamicASN", s.dynamic_asn);
  putOptionalInt(spec, "localASN", s.local_asn);
  putString(spec, "peerAddress", s.peer_address);
  putString(spec, "interface", s.interface);
  putString(spec, "sourceAddress", s.source_address);
  putOptionalInt(spec, "peerPort", s.peer_port);
  putDuration(spec, "holdTime", s.hold_time);
  putDuration(spec, "keepaliveTime", s.keepalive_time);
  putDuration(spec, "connectTime", s.connect_time);
  putString(spec, "routerID", s.router_id);
  putSelectors(spec, "nodeSelectors", s.node_selectors);
  putString(spec, "password", s.password);
  if (s.password_secret) {
    spec.set("passwordSecret", encodeSecretRef(*s.password_secret));
  }
  putString(spec, "bfdProfile", s.bfd_profile);
  putBool(spec, "enableGracefulRestart", s.enable_graceful_restart);
  putBool(spec, "ebgpMultiHop", s.ebgp_multi_hop);
  putString(spec, "vrf", s.vrf);
  putBool(spec, "disableMP", s.disable_mp);
  putBool(spec, "dualStackAddressFamily", s.dual_stack_address_family);
  o.set("spec", std::move(spec));
  return o;
}

void decodeKind(const Field& f, BGPPeerV1beta1& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  auto& s = out.spec;
  (void)spec["myASN"].read(s.my_asn);
  (void)spec["peerASN"].read(s.peer_asn);
  (void)spec["peerAddress"].read(s.peer_address);
  (void)spec["sourceAddress"].read(s.source_address);
  (void)spec["peerPort"].read(s.peer_port);
  decodeDuration(spec["holdTime"], s.hold_time);
  decodeDuration(spec["keepaliveTime"], s.keepalive_time);
  (void)spec["routerID"].read(s.router_id);
  decodeSelectors(spec["nodeSelectors"], s.node_selectors);
  (void)spec["password"].read(s.password);
  (void)spec["bfdProfile"].read(s.bfd_profile);
  (void)spec["ebgpMultiHop"].read(s.ebgp_multi_hop);
  emptyStatus(r);
}

Value encodeKind(const BGPPeerV1beta1& in) {
  Value o = header(in);
  Value spec = Value::object();
  const auto& s = in.spec;
  putIntAlways(spec, "myASN", s.my_asn);
  putIntAlways(spec, "peerASN", s.peer_asn);
  putStringAlways(spec, "peerAddress", s.peer_address);
  putString(spec, "sourceAddress", s.source_address);
  putOptionalInt(spec, "peerPort", s.peer_port);
  putDuration(spec, "holdTime", s.hold_time);
  putDuration(spec, "keepaliveTime", s.keepalive_time);
  putString(spec, "routerID", s.router_id);
  putSelectors(spec, "nodeSelectors", s.node_selectors);
  putString(spec, "password", s.password);
  putString(spec, "bfdProfile", s.bfd_profile);
  putBool(spec, "ebgpMultiHop", s.ebgp_multi_hop);
  o.set("spec", std::move(spec));
  return o;
}

}  // namespace ingot::api::codec
