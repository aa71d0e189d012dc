// SPDX-License-Identifier: Apache-2.0
// Core kinds (v1 Service, Node, Namespace, Secret, Pod; discovery.k8s.io/v1 EndpointSlice). Only
// the fields Ingot uses are decoded; every other field is ignored, because real objects carry many
// fields Ingot does not model. Type errors in the decoded fields are still reported.
#include <algorithm>
#include <charconv>

#include "api/codec_internal.h"
#include "api/object.h"

namespace ingot::api::codec {
namespace {

/// decodeIntOrString reads an IntOrString as text: 8080 -> "8080", "http" -> "http".
void decodeIntOrString(const Field& f, std::string& out) {
  if (!f.present()) {
    return;
  }
  if (f.value().isNumber()) {
    int32_t n = 0;
    if (f.read(n)) {
      out = std::to_string(n);
    }
    return;
  }
  (void)f.read(out);
}

/// encodeIntOrString writes canonical decimal text that fits int32 as a number, else a string.
Value encodeIntOrString(const std::string& text) {
  int32_t n = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (!text.empty() && ec == std::errc() && ptr == text.data() + text.size() &&
      std::to_string(n) == text) {
    return Value::number(static_cast<int64_t>(n));
  }
  return Value::string(text);
}

void decodeServicePort(const Field& f, ServicePort& p) {
  ObjectReader r(f, Unknown::Ignore);
  (void)r["name"].read(p.name);
  (void)r["protocol"].read(p.protocol);
  (void)r["port"].read(p.port);
  decodeIntOrString(r["targetPort"], p.target_port);
  (void)r["nodePort"].read(p.node_port);
}

Value encodeServicePort(const ServicePort& p) {
  Value o = Value::object();
  putString(o, "name", p.name);
  putStringAlways(o, "protocol", p.protocol);
  putIntAlways(o, "port", p.port);
  if (!p.target_port.empty()) {
    o.set("targetPort", encodeIntOrString(p.target_port));
  }
  putInt(o, "nodePort", p.node_port);
  return o;
}

void decodeServiceSpec(const Field& f, ServiceSpec& s) {
  ObjectReader r(f, Unknown::Ignore);
  arrayOf(r["ports"], s.ports, decodeServicePort);
  (void)r["selector"].read(s.selector);
  (void)r["clusterIP"].read(s.cluster_ip);
  (void)r["clusterIPs"].read(s.cluster_ips);
  (void)r["type"].read(s.type);
  (void)r["loadBalancerIP"].read(s.load_balancer_ip);
  (void)r["externalTrafficPolicy"].read(s.external_traffic_policy);
  (void)r["ipFamilies"].read(s.ip_families);
  (void)r["ipFamilyPolicy"].read(s.ip_family_policy);
  (void)r["loadBalancerClass"].read(s.load_balancer_class);
}

Value encodeServiceSpec(const ServiceSpec& s) {
  Value o = Value::object();
  if (!s.ports.empty()) {
    Value& list = o.set("ports", Value::array());
    for (const auto& p : s.ports) {
      list.push(encodeServicePort(p));
    }
  }
  putMap(o, "selector", s.selector);
  putString(o, "clusterIP", s.cluster_ip);
  putStrings(o, "clusterIPs", s.cluster_ips);
  putString(o, "type", s.type);
  putString(o, "loadBalancerIP", s.load_balancer_ip);
  putString(o, "externalTrafficPolicy", s.external_traffic_policy);
  putStrings(o, "ipFamilies", s.ip_families);
  if (s.ip_family_policy) {
    o.set("ipFamilyPolicy", Value::string(*s.ip_family_policy));
  }
  if (s.load_balancer_class) {
    o.set("loadBalancerClass", Value::string(*s.load_balancer_class));
  }
  return o;
}

void decodeEndpoint(const Field& f, Endpoint& e) {
  ObjectReader r(f, Unknown::Ignore);
  (void)r["addresses"].read(e.addresses);
  {
    ObjectReader c(r["conditions"], Unknown::Ignore);
    (void)c["ready"].read(e.conditions.ready);
    (void)c["serving"].read(e.conditions.serving);
    (void)c["terminating"].read(e.conditions.terminating);
  }
  (void)r["nodeName"].read(e.node_name);
}

Value encodeEndpoint(const Endpoint& e) {
  Value o = Value::object();
  Value& addresses = o.set("addresses", Value::array());
  for (const auto& a : e.addresses) {
    addresses.push(Value::string(a));
  }
  Value c = Value::object();
  putOptionalBool(c, "ready", e.conditions.ready);
  putOptionalBool(c, "serving", e.conditions.serving);
  putOptionalBool(c, "terminating", e.conditions.terminating);
  o.set("conditions", std::move(c));
  if (e.node_name) {
    o.set("nodeName", Value::string(*e.node_name));
  }
  return o;
}

}  // namespace

void decodeKind(const Field& f, Service& out) {
  ObjectReader r(f, Unknown::Ignore);
  readHeader(r, out, Unknown::Ignore);
  decodeServiceSpec(r["spec"], out.spec);
  ObjectReader status(r["status"], Unknown::Ignore);
  ObjectReader lb(status["loadBalancer"], Unknown::Ignore);
  arrayOf(lb["ingress"], out.status.ingress, [](const Field& item, LoadBalancerIngress& in) {
    ObjectReader ir(item, Unknown::Ignore);
    (void)ir["ip"].read(in.ip);
    (void)ir["hostname"].read(in.hostname);
    (void)ir["ipMode"].read(in.ip_mode);
  });
  decodeConditions(status["conditions"], out.status.conditions);
}

Value encodeKind(const Service& in) {
  Value o = header(in);
  o.set("spec", encodeServiceSpec(in.spec));
  Value status = Value::object();
  if (!in.status.ingress.empty()) {
    Value list = Value::array();
    for (const auto& ingress : in.status.ingress) {
      Value v = Value::object();
      putString(v, "ip", ingress.ip);
      putString(v, "hostname", ingress.hostname);
      if (ingress.ip_mode) {
        v.set("ipMode", Value::string(*ingress.ip_mode));
      }
      list.push(std::move(v));
    }
    Value lb = Value::object();
    lb.set("ingress", std::move(list));
    status.set("loadBalancer", std::move(lb));
  }
  if (!in.status.conditions.empty()) {
    status.set("conditions", encodeConditions(in.status.conditions));
  }
  if (!in.status.ingress.empty() || !in.status.conditions.empty()) {
    o.set("status", std::move(status));
  }
  return o;
}

void decodeKind(const Field& f, EndpointSlice& out) {
  ObjectReader r(f, Unknown::Ignore);
  readHeader(r, out, Unknown::Ignore);
  (void)r["addressType"].read(out.address_type);
  arrayOf(r["endpoints"], out.endpoints, decodeEndpoint);
  arrayOf(r["ports"], out.ports, [](const Field& item, EndpointPort& p) {
    ObjectReader pr(item, Unknown::Ignore);
    (void)pr["name"].read(p.name);
    (void)pr["protocol"].read(p.protocol);
    (void)pr["port"].read(p.port);
  });
}

Value encodeKind(const EndpointSlice& in) {
  Value o = header(in);
  putStringAlways(o, "addressType", in.address_type);
  Value& endpoints = o.set("endpoints", Value::array());
  for (const auto& e : in.endpoints) {
    endpoints.push(encodeEndpoint(e));
  }
  if (!in.ports.empty()) {
    Value& ports = o.set("ports", Value::array());
    for (const auto& p : in.ports) {
      Value v = Value::object();
      if (p.name) {
        v.set("name", Value::string(*p.name));
      }
      if (p.protocol) {
        v.set("protocol", Value::string(*p.protocol));
      }
      putOptionalInt(v, "port", p.port);
      ports.push(std::move(v));
    }
  }
  return o;
}

void decodeKind(const Field& f, Node& out) {
  ObjectReader r(f, Unknown::Ignore);
  readHeader(r, out, Unknown::Ignore);
  {
    ObjectReader spec(r["spec"], Unknown::Ignore);
    (void)spec["unschedulable"].read(out.unschedulable);
    arrayOf(spec["taints"], out.taints, [](const Field& item, NodeTaint& t) {
      ObjectReader tr(item, Unknown::Ignore);
      (void)tr["key"].read(t.key);
      (void)tr["value"].read(t.value);
      (void)tr["effect"].read(t.effect);
    });
  }
  ObjectReader status(r["status"], Unknown::Ignore);
  arrayOf(status["conditions"], out.conditions, [](const Field& item, NodeCondition& c) {
    ObjectReader cr(item, Unknown::Ignore);
    (void)cr["type"].read(c.type);
    (void)cr["status"].read(c.status);
    (void)cr["reason"].read(c.reason);
    (void)cr["message"].read(c.message);
  });
  arrayOf(status["addresses"], out.addresses, [](const Field& item, NodeAddress& a) {
    ObjectReader ar(item, Unknown::Ignore);
    (void)ar["type"].read(a.type);
    (void)ar["address"].read(a.address);
  });
}

Value encodeKind(const Node& in) {
  Value o = header(in);
  Value spec = Value::object();
  putBool(spec, "unschedulable", in.unschedulable);
  if (!in.taints.empty()) {
    Value& list = spec.set("taints", Value::array());
    for (const auto& t : in.taints) {
      Value v = Value::object();
      putStringAlways(v, "key", t.key);
      putString(v, "value", t.value);
      putStringAlways(v, "effect", t.effect);
      list.push(std::move(v));
    }
  }
  putObject(o, "spec", std::move(spec));
  Value status = Value::object();
  if (!in.conditions.empty()) {
    Value& list = status.set("conditions", Value::array());
    for (const auto& c : in.conditions) {
      Value v = Value::object();
      putStringAlways(v, "type", c.type);
      putStringAlways(v, "status", c.status);
      putString(v, "reason", c.reason);
      putString(v, "message", c.message);
      list.push(std::move(v));
    }
  }
  if (!in.addresses.empty()) {
    Value& list = status.set("addresses", Value::array());
    for (const auto& a : in.addresses) {
      Value v = Value::object();
      putStringAlways(v, "type", a.type);
      putStringAlways(v, "address", a.address);
      list.push(std::move(v));
    }
  }
  putObject(o, "status", std::move(status));
  return o;
}

void decodeKind(const Field& f, Namespace& out) {
  ObjectReader r(f, Unknown::Ignore);
  readHeader(r, out, Unknown::Ignore);
}

Value encodeKind(const Namespace& in) {
  return header(in);
}

void decodeKind(const Field& f, Secret& out) {
  ObjectReader r(f, Unknown::Ignore);
  readHeader(r, out, Unknown::Ignore);
  (void)r["data"].read(out.data);
  (void)r["stringData"].read(out.string_data);
  (void)r["type"].read(out.type);
}

Value encodeKind(const Secret& in) {
  Value o = header(in);
  putMap(o, "data", in.data);
  putMap(o, "stringData", in.string_data);
  putString(o, "type", in.type);
  return o;
}

void decodeKind(const Field& f, Pod& out) {
  ObjectReader r(f, Unknown::Ignore);
  readHeader(r, out, Unknown::Ignore);
  {
    ObjectReader spec(r["spec"], Unknown::Ignore);
    (void)spec["nodeName"].read(out.node_name);
  }
  ObjectReader status(r["status"], Unknown::Ignore);
  (void)status["phase"].read(out.phase);
  (void)status["podIP"].read(out.pod_ip);
  arrayOf(status["podIPs"], out.pod_ips, [](const Field& item, std::string& ip) {
    ObjectReader ir(item, Unknown::Ignore);
    (void)ir["ip"].read(ip);
  });
  // Pod conditions carry more fields than metav1.Condition (lastProbeTime): read leniently.
  std::vector<std::pair<std::string, std::string>> conditions;
  arrayOf(status["conditions"], conditions, [](const Field& item, auto& c) {
    ObjectReader cr(item, Unknown::Ignore);
    (void)cr["type"].read(c.first);
    (void)cr["status"].read(c.second);
  });
  out.ready = std::any_of(conditions.begin(), conditions.end(),
                          [](const auto& c) { return c.first == "Ready" && c.second == "True"; });
}

Value encodeKind(const Pod& in) {
  Value o = header(in);
  Value spec = Value::object();
  putString(spec, "nodeName", in.node_name);
  putObject(o, "spec", std::move(spec));
  Value status = Value::object();
  putString(status, "phase", in.phase);
  putString(status, "podIP", in.pod_ip);
  if (!in.pod_ips.empty()) {
    Value& list = status.set("podIPs", Value::array());
    for (const auto& ip : in.pod_ips) {
      Value v = Value::object();
      putStringAlways(v, "ip", ip);
      list.push(std::move(v));
    }
  }
  if (in.ready) {
    Condition ready;
    ready.type = "Ready";
    ready.status = "True";
    status.set("conditions", encodeConditions({ready}));
  }
  putObject(o, "status", std::move(status));
  return o;
}

}  // namespace ingot::api::codec
