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

void decodeAllocation(const Field& f, std::optional<ServiceAllocation>& out) {
  if (!f.present()) {
    return;
  }
  ServiceAllocation a;
  ObjectReader r(f, Unknown::Reject);
  (void)r["priority"].read(a.priority);
  (void)r["namespaces"].read(a.namespaces);
  decodeSelectors(r["namespaceSelectors"], a.namespace_selectors);
  decodeSelectors(r["serviceSelectors"], a.service_selectors);
  if (r.isObject()) {
    out = std::move(a);
  }
}

Value encodeAllocation(const ServiceAllocation& a) {
  Value o = Value::object();
  putInt(o, "priority", a.priority);
  putStrings(o, "namespaces", a.namespaces);
  if (!a.namespace_selectors.empty()) {
    o.set("namespaceSelectors", encodeSelectors(a.namespace_selectors));
  }
  if (!a.service_selectors.empty()) {
    o.set("serviceSelectors", encodeSelectors(a.service_selectors));
  }
  return o;
}

void decodePoolStatus(const Field& f, std::optional<IPAddressPoolStatus>& out) {
  if (!f.present()) {
    return;
  }
  IPAddressPoolStatus s;
  ObjectReader r(f, Unknown::Reject);
  (void)r["assignedIPv4"].read(s.assigned_ipv4);
  (void)r["assignedIPv6"].read(s.assigned_ipv6);
  (void)r["availableIPv4"].read(s.available_ipv4);
  (void)r["availableIPv6"].read(s.available_ipv6);
  if (r.isObject()) {
    out = s;
  }
}

void putSelectors(Value& o, std::string key, const std::vector<LabelSelector>& list) {
  if (!list.empty()) {
    o.set(std::move(key), encodeSelectors(list));
  }
}

}  // namespace

void decodeKind(const Field& f, IPAddressPool& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  (void)spec["addresses"].read(out.spec.addresses);
  (void)spec["autoAssign"].read(out.spec.auto_assign);
  (void)spec["avoidBuggyIPs"].read(out.spec.avoid_buggy_ips);
  decodeAllocation(spec["serviceAllocation"], out.spec.service_allocation);
  decodePoolStatus(r["status"], out.status);
}

Value encodeKind(const IPAddressPool& in) {
  Value o = header(in);
  Value spec = Value::object();
  putStrings(spec, "addresses", in.spec.addresses);
  putOptionalBool(spec, "autoAssign", in.spec.auto_assign);
  putBool(spec, "avoidBuggyIPs", in.spec.avoid_buggy_ips);
  if (in.spec.service_allocation) {
    spec.set("serviceAllocation", encodeAllocation(*in.spec.service_allocation));
  }
  o.set("spec", std::move(spec));
  if (in.status) {
    Value status = Value::object();
    putIntAlways(status, "assignedIPv4", in.status->assigned_ipv4);
    putIntAlways(status, "assignedIPv6", in.status->assigned_ipv6);
    putIntAlways(status, "availableIPv4", in.status->available_ipv4);
    putIntAlways(status, "availableIPv6", in.status->available_ipv6);
    o.set("status", std::move(status));
  }
  return o;
}

void decodeKind(const Field& f, L2Advertisement& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  (void)spec["ipAddressPools"].read(out.spec.ip_address_pools);
  decodeSelectors(spec["ipAddressPoolSelectors"], out.spec.ip_address_pool_selectors);
  decodeSelectors(spec["nodeSelectors"], out.spec.node_selectors);
  (void)spec["interfaces"].read(out.spec.interfaces);
  decodeSelectors(spec["serviceSelectors"], out.spec.service_selectors);
  arrayOf(spec["preferredNodeSelectors"], out.spec.preferred_node_selectors,
          [](const Field& item, PreferredNodeSelector& p) {
            ObjectReader pr(item, Unknown::Reject);
            (void)pr["weight"].read(p.weight);
            decodeSelector(pr["preference"], p.preference);
          });
  emptyStatus(r);
}

Value encodeKind(const L2Advertisement& in) {
  Value o = header(in);
  Value spec = Value::object();
  putStrings(spec, "ipAddressPools", in.spec.ip_address_pools);
  putSelectors(spec, "ipAddressPoolSelectors", in.spec.ip_address_pool_selectors);
  putSelectors(spec, "nodeSelectors", in.spec.node_selectors);
  putStrings(spec, "interfaces", in.spec.interfaces);
  putSelectors(spec, "serviceSelectors", in.spec.service_selectors);
  if (!in.spec.preferred_node_selectors.empty()) {
    Value& list = spec.set("preferredNodeSelectors", Value::array());
    for (const auto& p : in.spec.preferred_node_selectors) {
      Value e = Value::object();
      putIntAlways(e, "weight", p.weight);
      e.set("preference", encodeSelector(p.preference));
      list.push(std::move(e));
    }
  }
  o.set("spec", std::move(spec));
  return o;
}

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

void decodeKind(const Field& f, BFDProfile& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  auto& s = out.spec;
  (void)spec["receiveInterval"].read(s.receive_interval);
  (void)spec["transmitInterval"].read(s.transmit_interval);
  (void)spec["detectMultiplier"].read(s.detect_multiplier);
  (void)spec["echoInterval"].read(s.echo_interval);
  (void)spec["echoMode"].read(s.echo_mode);
  (void)spec["passiveMode"].read(s.passive_mode);
  (void)spec["minimumTtl"].read(s.minimum_ttl);
  emptyStatus(r);
}

Value encodeKind(const BFDProfile& in) {
  Value o = header(in);
  Value spec = Value::object();
  const auto& s = in.spec;
  putOptionalInt(spec, "receiveInterval", s.receive_interval);
  putOptionalInt(spec, "transmitInterval", s.transmit_interval);
  putOptionalInt(spec, "detectMultiplier", s.detect_multiplier);
  putOptionalInt(spec, "echoInterval", s.echo_interval);
  putOptionalBool(spec, "echoMode", s.echo_mode);
  putOptionalBool(spec, "passiveMode", s.passive_mode);
  putOptionalInt(spec, "minimumTtl", s.minimum_ttl);
  o.set("spec", std::move(spec));
  return o;
}

void decodeKind(const Field& f, Community& out) {
  ObjectReader r(f, Unknown::Reject);
  readHeader(r, out, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  arrayOf(spec["communities"], out.communities, [](const Field& item, CommunityAlias& alias) {
    ObjectReader ar(item, Unknown::Reject);
    (void)ar["name"].read(alias.name);
    (void)ar["value"].read(alias.value);
  });
  emptyStatus(r);
}

Value encodeKind(const Community& in) {
  Value o = header(in);
  Value spec = Value::object();
  if (!in.communities.empty()) {
    Value& list = spec.set("communities", Value::array());
    for (const auto& alias : in.communities) {
      Value e = Value::object();
      putString(e, "name", alias.name);
      putString(e, "value", alias.value);
      list.push(std::move(e));
    }
  }
  o.set("spec", std::move(spec));
  return o;
}

}  // namespace ingot::api::codec
