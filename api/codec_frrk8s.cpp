// SPDX-License-Identifier: Apache-2.0
// frrk8s.metallb.io/v1beta1 FRRConfiguration (frr-k8s' api/v1beta1). The neighbor's source address
// is spelled "sourceaddress" on the wire, as frr-k8s does.
#include "api/codec_internal.h"
#include "api/object.h"

namespace ingot::api::codec {
namespace {

void decodeAdvertise(const Field& f, FrrAdvertise& out) {
  ObjectReader r(f, Unknown::Reject);
  {
    ObjectReader allowed(r["allowed"], Unknown::Reject);
    (void)allowed["mode"].read(out.allowed_mode);
    (void)allowed["prefixes"].read(out.allowed_prefixes);
  }
  arrayOf(r["withLocalPref"], out.with_local_pref, [](const Field& item, FrrLocalPrefPrefixes& e) {
    ObjectReader er(item, Unknown::Reject);
    (void)er["localPref"].read(e.local_pref);
    (void)er["prefixes"].read(e.prefixes);
  });
  arrayOf(r["withCommunity"], out.with_community, [](const Field& item, FrrCommunityPrefixes& e) {
    ObjectReader er(item, Unknown::Reject);
    (void)er["community"].read(e.community);
    (void)er["prefixes"].read(e.prefixes);
  });
}

Value encodeAdvertise(const FrrAdvertise& a) {
  Value o = Value::object();
  Value allowed = Value::object();
  putString(allowed, "mode", a.allowed_mode);
  putStrings(allowed, "prefixes", a.allowed_prefixes);
  putObject(o, "allowed", std::move(allowed));
  if (!a.with_local_pref.empty()) {
    Value& list = o.set("withLocalPref", Value::array());
    for (const auto& e : a.with_local_pref) {
      Value v = Value::object();
      putIntAlways(v, "localPref", e.local_pref);
      putStrings(v, "prefixes", e.prefixes);
      list.push(std::move(v));
    }
  }
  if (!a.with_community.empty()) {
    Value& list = o.set("withCommunity", Value::array());
    for (const auto& e : a.with_community) {
      Value v = Value::object();
      putStringAlways(v, "community", e.community);
      putStrings(v, "prefixes", e.prefixes);
      list.push(std::move(v));
    }
  }
  return o;
}

void decodeReceive(const Field& f, FrrReceive& out) {
  ObjectReader r(f, Unknown::Reject);
  ObjectReader allowed(r["allowed"], Unknown::Reject);
  (void)allowed["mode"].read(out.allowed_mode);
  arrayOf(allowed["prefixes"], out.allowed_prefixes, [](const Field& item, FrrPrefixSelector& p) {
    ObjectReader pr(item, Unknown::Reject);
    (void)pr["prefix"].read(p.prefix);
    (void)pr["le"].read(p.le);
    (void)pr["ge"].read(p.ge);
  });
}

Value encodeReceive(const FrrReceive& in) {
  Value allowed = Value::object();
  putString(allowed, "mode", in.allowed_mode);
  if (!in.allowed_prefixes.empty()) {
    Value& list = allowed.set("prefixes", Value::array());
    for (const auto& p : in.allowed_prefixes) {
      Value v = Value::object();
      putStringAlways(v, "prefix", p.prefix);
      putOptionalInt(v, "le", p.le);
      putOptionalInt(v, "ge", p.ge);
      list.push(std::move(v));
    }
  }
  Value o = Value::object();
  putObject(o, "allowed", std::move(allowed));
  return o;
}

void decodeNeighbor(const Field& f, FrrNeighbor& n) {
  ObjectReader r(f, Unknown::Reject);
  (void)r["asn"].read(n.asn);
  (void)r["dynamicASN"].read(n.dynamic_asn);
  (void)r["address"].read(n.address);
  (void)r["interface"].read(n.interface);
  (void)r["sourceaddress"].read(n.source_address);
  (void)r["port"].read(n.port);
  (void)r["password"].read(n.password);
  decodeSecretRef(r["passwordSecret"], n.password_secret);
  decodeDuration(r["holdTime"], n.hold_time);
  decodeDuration(r["keepaliveTime"], n.keepalive_time);
  decodeDuration(r["connectTime"], n.connect_time);
  (void)r["ebgpMultiHop"].read(n.ebgp_multi_hop);
  (void)r["bfdProfile"].read(n.bfd_profile);
  (void)r["enableGracefulRestart"].read(n.enable_graceful_restart);
  (void)r["localASN"].read(n.local_asn);
  decodeAdvertise(r["toAdvertise"], n.to_advertise);
  decodeReceive(r["toReceive"], n.to_receive);
  (void)r["disableMP"].read(n.disable_mp);
  (void)r["dualStackAddressFamily"].read(n.dual_stack_address_family);
}

Value encodeNeighbor(const FrrNeighbor& n) {
  Value o = Value::object();
  putOptionalInt(o, "asn", n.asn);
  putString(o, "dynamicASN", n.dynamic_asn);
  putString(o, "address", n.address);
  putString(o, "interface", n.interface);
  putString(o, "sourceaddress", n.source_address);
  putOptionalInt(o, "port", n.port);
  putString(o, "password", n.password);
  if (n.password_secret) {
    o.set("passwordSecret", encodeSecretRef(*n.password_secret));
  }
  putDuration(o, "holdTime", n.hold_time);
  putDuration(o, "keepaliveTime", n.keepalive_time);
  putDuration(o, "connectTime", n.connect_time);
  putBool(o, "ebgpMultiHop", n.ebgp_multi_hop);
  putString(o, "bfdProfile", n.bfd_profile);
  putBool(o, "enableGracefulRestart", n.enable_graceful_restart);
  putOptionalInt(o, "localASN", n.local_asn);
  putObject(o, "toAdvertise", encodeAdvertise(n.to_advertise));
  putObject(o, "toReceive", encodeReceive(n.to_receive));
  putBool(o, "disableMP", n.disable_mp);
  putBool(o, "dualStackAddressFamily", n.dual_stack_address_family);
  return o;
}

void decodeRouter(const Field& f, FrrRouter& router) {
  ObjectReader r(f, Unknown::Reject);
  (void)r["asn"].read(router.asn);
  (void)r["id"].read(router.id);
  (void)r["vrf"].read(router.vrf);
  arrayOf(r["neighbors"], router.neighbors, decodeNeighbor);
  (void)r["prefixes"].read(router.prefixes);
  arrayOf(r["imports"], router.imports, [](const Field& item, std::string& vrf) {
    ObjectReader ir(item, Unknown::Reject);
    (void)ir["vrf"].read(vrf);
  });
}

Value encodeRouter(const FrrRouter& router) {
  Value o = Value::object();
  putIntAlways(o, "asn", router.asn);
  putString(o, "id", router.id);
  putString(o, "vrf", router.vrf);
  if (!router.neighbors.empty()) {
    Value& list = o.set("neighbors", Value::array());
    for (const auto& n : router.neighbors) {
      list.push(encodeNeighbor(n));
    }
  }
  putStrings(o, "prefixes", router.prefixes);
  if (!router.imports.empty()) {
    Value& list = o.set("imports", Value::array());
    for (const auto& vrf : router.imports) {
      Value v = Value::object();
      putString(v, "vrf", vrf);
      list.push(std::move(v));
    }
  }
  return o;
}

void decodeBfdProfile(const Field& f, FrrBfdProfile& p) {
  ObjectReader r(f, Unknown::Reject);
  (void)r["name"].read(p.name);
  (void)r["receiveInterval"].read(p.receive_interval);
  (void)r["transmitInterval"].read(p.transmit_interval);
  (void)r["detectMultiplier"].read(p.detect_multiplier);
  (void)r["echoInterval"].read(p.echo_interval);
  (void)r["echoMode"].read(p.echo_mode);
  (void)r["passiveMode"].read(p.passive_mode);
  (void)r["minimumTtl"].read(p.minimum_ttl);
}

Value encodeBfdProfile(const FrrBfdProfile& p) {
  Value o = Value::object();
  putStringAlways(o, "name", p.name);
  putOptionalInt(o, "receiveInterval", p.receive_interval);
  putOptionalInt(o, "transmitInterval", p.transmit_interval);
  putOptionalInt(o, "detectMultiplier", p.detect_multiplier);
  putOptionalInt(o, "echoInterval", p.echo_interval);
  putOptionalBool(o, "echoMode", p.echo_mode);
  putOptionalBool(o, "passiveMode", p.passive_mode);
  putOptionalInt(o, "minimumTtl", p.minimum_ttl);
  return o;
}

}  // namespace

void decodeKind(const Field& f, FRRConfiguration& out) {
  ObjectReader r(f, Unknown::Reject);
  readTypeMeta(r, KindOf<FRRConfiguration>::kApiVersion, KindOf<FRRConfiguration>::kKind);
  decodeMeta(r["metadata"], out.metadata, Unknown::Reject);
  ObjectReader spec(r["spec"], Unknown::Reject);
  {
    ObjectReader bgp(spec["bgp"], Unknown::Reject);
    arrayOf(bgp["routers"], out.spec.routers, decodeRouter);
    arrayOf(bgp["bfdProfiles"], out.spec.bfd_profiles, decodeBfdProfile);
  }
  const Field raw_field = spec["raw"];
  if (raw_field.present()) {
    FrrRawConfig raw;
    ObjectReader raw_reader(raw_field, Unknown::Reject);
    (void)raw_reader["priority"].read(raw.priority);
    (void)raw_reader["rawConfig"].read(raw.raw_config);
    if (raw_reader.isObject()) {
      out.spec.raw = std::move(raw);
    }
  }
  decodeSelector(spec["nodeSelector"], out.spec.node_selector);
  ObjectReader status(r["status"], Unknown::Reject);
}

Value encodeKind(const FRRConfiguration& in) {
  Value o = startObject(KindOf<FRRConfiguration>::kApiVersion, KindOf<FRRConfiguration>::kKind);
  o.set("metadata", encodeMeta(in.metadata));
  Value spec = Value::object();
  Value bgp = Value::object();
  if (!in.spec.routers.empty()) {
    Value& list = bgp.set("routers", Value::array());
    for (const auto& router : in.spec.routers) {
      list.push(encodeRouter(router));
    }
  }
  if (!in.spec.bfd_profiles.empty()) {
    Value& list = bgp.set("bfdProfiles", Value::array());
    for (const auto& p : in.spec.bfd_profiles) {
      list.push(encodeBfdProfile(p));
    }
  }
  putObject(spec, "bgp", std::move(bgp));
  if (in.spec.raw) {
    Value raw = Value::object();
    putInt(raw, "priority", in.spec.raw->priority);
    putString(raw, "rawConfig", in.spec.raw->raw_config);
    spec.set("raw", std::move(raw));
  }
  putObject(spec, "nodeSelector", encodeSelector(in.spec.node_selector));
  o.set("spec", std::move(spec));
  return o;
}

}  // namespace ingot::api::codec
