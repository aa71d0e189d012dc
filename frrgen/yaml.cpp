// SPDX-License-Identifier: Apache-2.0
#include "frrgen/yaml.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "common/yaml/quote.h"
#include "frrgen/served.h"

namespace ingot::frrgen {

namespace {

struct Entry;

// Node is a YAML value: a scalar (already formatted), a mapping or a sequence.
struct Node {
  enum class Kind { Scalar, Map, Seq } kind = Kind::Scalar;
  std::string scalar;
  std::vector<Entry> map;
  std::vector<Node> seq;

  bool empty() const;
};

// Entry is one key of a mapping: a struct of its own because std::pair<std::string, Node> inside
// Node would be instantiated while Node is incomplete, which clang (and so clang-tidy) rejects.
struct Entry {
  Entry(std::string k, Node v) : key(std::move(k)), value(std::move(v)) {}
  std::string key;
  Node value;
};

bool Node::empty() const {
  return (kind == Kind::Map && map.empty()) || (kind == Kind::Seq && seq.empty());
}

Node str(const std::string& s) {
  return Node{Node::Kind::Scalar, yamlScalar(s), {}, {}};
}
Node num(uint64_t v) {
  return Node{Node::Kind::Scalar, std::to_string(v), {}, {}};
}
Node inum(int64_t v) {
  return Node{Node::Kind::Scalar, std::to_string(v), {}, {}};
}
Node boolean(bool v) {
  return Node{Node::Kind::Scalar, v ? "true" : "false", {}, {}};
}
Node mapping() {
  return Node{Node::Kind::Map, "", {}, {}};
}
Node sequence() {
  return Node{Node::Kind::Seq, "", {}, {}};
}

// Builder helpers that implement omitempty.
void put(Node& m, const std::string& key, Node v) {
  if (!v.empty()) m.map.emplace_back(key, std::move(v));
}
// putKept adds v even when empty: a Go struct field, which omitempty never leaves out.
void putKept(Node& m, const std::string& key, Node v) {
  m.map.emplace_back(key, std::move(v));
}
void putStr(Node& m, const std::string& key, const std::string& v) {
  if (!v.empty()) put(m, key, str(v));
}
template <typename T>
void putNum(Node& m, const std::string& key, const std::optional<T>& v) {
  if (v) put(m, key, num(*v));
}
void putTrue(Node& m, const std::string& key, bool v) {
  if (v) put(m, key, boolean(true));
}
Node strings(const std::vector<std::string>& v) {
  Node s = sequence();
  for (const auto& x : v) s.seq.push_back(str(x));
  return s;
}

void print(std::string& out, const Node& n, int indent);

void printMap(std::string& out, const Node& n, int indent, bool first_inline) {
  auto entries = n.map;
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.key < b.key; });
  bool first = true;
  for (const auto& [key, value] : entries) {
    if (!(first && first_inline)) out.append(indent, ' ');
    first = false;
    out += str(key).scalar + ":";
    if (value.kind == Node::Kind::Scalar) {
      out += " " + value.scalar + "\n";
    } else if (value.empty()) {
      out += value.kind == Node::Kind::Map ? " {}\n" : " []\n";
    } else {
      out += "\n";
      print(out, value, value.kind == Node::Kind::Map ? indent + 2 : indent);
    }
  }
}

void print(std::string& out, const Node& n, int indent) {
  if (n.kind == Node::Kind::Map) {
    printMap(out, n, indent, false);
    return;
  }
  for (const auto& item : n.seq) {
    out.append(indent, ' ');
    out += "- ";
    if (item.kind == Node::Kind::Scalar) {
      out += item.scalar + "\n";
    } else {
      printMap(out, item, indent + 2, true);
    }
  }
}

Node selector(const api::LabelSelector& s) {
  Node m = mapping();
  Node labels = mapping();
  for (const auto& [k, v] : s.match_labels) labels.map.emplace_back(k, str(v));
  put(m, "matchLabels", std::move(labels));
  Node exprs = sequence();
  for (const auto& e : s.match_expressions) {
    Node x = mapping();
    putStr(x, "key", e.key);
    putStr(x, "operator", e.op);
    put(x, "values", strings(e.values));
    exprs.seq.push_back(std::move(x));
  }
  put(m, "matchExpressions", std::move(exprs));
  return m;
}

Node advertise(const api::FrrAdvertise& a) {
  Node m = mapping();
  Node allowed = mapping();
  putStr(allowed, "mode", a.allowed_mode);
  put(allowed, "prefixes", strings(a.allowed_prefixes));
  put(m, "allowed", std::move(allowed));
  Node lp = sequence();
  for (const auto& e : a.with_local_pref) {
    Node x = mapping();
    put(x, "localPref", num(e.local_pref));
    put(x, "prefixes", strings(e.prefixes));
    lp.seq.push_back(std::move(x));
  }
  put(m, "withLocalPref", std::move(lp));
  Node comm = sequence();
  for (const auto& e : a.with_community) {
    Node x = mapping();
    putStr(x, "community", e.community);
    put(x, "prefixes", strings(e.prefixes));
    comm.seq.push_back(std::move(x));
  }
  put(m, "withCommunity", std::move(comm));
  return m;
}

Node receive(const api::FrrReceive& r) {
  Node m = mapping();
  Node allowed = mapping();
  putStr(allowed, "mode", r.allowed_mode);
  Node prefixes = sequence();
  for (const auto& p : r.allowed_prefixes) {
    Node x = mapping();
    putStr(x, "prefix", p.prefix);
    putNum(x, "le", p.le);
    putNum(x, "ge", p.ge);
    prefixes.seq.push_back(std::move(x));
  }
  put(allowed, "prefixes", std::move(prefixes));
  put(m, "allowed", std::move(allowed));
  return m;
}

// neighbor renders one neighbor; served also writes the false booleans the CRD defaults.
Node neighbor(const api::FrrNeighbor& n, bool served) {
  Node m = mapping();
  putNum(m, "asn", n.asn);
  putStr(m, "dynamicASN", n.dynamic_asn);
  putStr(m, "address", n.address);
  putStr(m, "interface", n.interface);
  putStr(m, "sourceaddress", n.source_address);
  putNum(m, "port", n.port);
  putStr(m, "password", n.password);
  if (n.password_secret) {
    Node s = mapping();
    putStr(s, "name", n.password_secret->name);
    putStr(s, "namespace", n.password_secret->namespace_);
    putKept(m, "passwordSecret", std::move(s));
  }
  if (n.hold_time) put(m, "holdTime", str(n.hold_time->text));
  if (n.keepalive_time) put(m, "keepaliveTime", str(n.keepalive_time->text));
  if (n.connect_time) put(m, "connectTime", str(n.connect_time->text));
  putTrue(m, "ebgpMultiHop", n.ebgp_multi_hop);
  putStr(m, "bfdProfile", n.bfd_profile);
  putTrue(m, "enableGracefulRestart", n.enable_graceful_restart);
  putNum(m, "localASN", n.local_asn);
  put(m, "toAdvertise", advertise(n.to_advertise));
  put(m, "toReceive", receive(n.to_receive));
  if (served) {
    put(m, "disableMP", boolean(n.disable_mp));
    put(m, "dualStackAddressFamily", boolean(n.dual_stack_address_family));
  } else {
    putTrue(m, "disableMP", n.disable_mp);
    putTrue(m, "dualStackAddressFamily", n.dual_stack_address_family);
  }
  return m;
}

Node router(const api::FrrRouter& r, bool served) {
  Node m = mapping();
  put(m, "asn", num(r.asn));
  putStr(m, "id", r.id);
  putStr(m, "vrf", r.vrf);
  Node neighbors = sequence();
  for (const auto& n : r.neighbors) neighbors.seq.push_back(neighbor(n, served));
  put(m, "neighbors", std::move(neighbors));
  put(m, "prefixes", strings(r.prefixes));
  Node imports = sequence();
  for (const auto& v : r.imports) {
    Node x = mapping();
    putStr(x, "vrf", v);
    imports.seq.push_back(std::move(x));
  }
  put(m, "imports", std::move(imports));
  return m;
}

Node bfdProfile(const api::FrrBfdProfile& b) {
  Node m = mapping();
  putStr(m, "name", b.name);
  putNum(m, "receiveInterval", b.receive_interval);
  putNum(m, "transmitInterval", b.transmit_interval);
  putNum(m, "detectMultiplier", b.detect_multiplier);
  putNum(m, "echoInterval", b.echo_interval);
  if (b.echo_mode) put(m, "echoMode", boolean(*b.echo_mode));
  if (b.passive_mode) put(m, "passiveMode", boolean(*b.passive_mode));
  putNum(m, "minimumTtl", b.minimum_ttl);
  return m;
}

Node spec(const api::FRRConfigurationSpec& s, bool served) {
  Node m = mapping();
  Node bgp = mapping();
  Node routers = sequence();
  for (const auto& r : s.routers) routers.seq.push_back(router(r, served));
  put(bgp, "routers", std::move(routers));
  Node profiles = sequence();
  for (const auto& b : s.bfd_profiles) profiles.seq.push_back(bfdProfile(b));
  put(bgp, "bfdProfiles", std::move(profiles));
  put(m, "bgp", std::move(bgp));
  put(m, "nodeSelector", selector(s.node_selector));
  if (s.raw) {
    Node raw = mapping();
    if (s.raw->priority != 0) put(raw, "priority", inum(s.raw->priority));
    putStr(raw, "rawConfig", s.raw->raw_config);
    putKept(m, "raw", std::move(raw));
  }
  return m;
}

}  // namespace

std::string toYaml(const api::FRRConfiguration& config, const YamlOptions& options) {
  Node doc = mapping();
  put(doc, "apiVersion", str("frrk8s.metallb.io/v1beta1"));
  put(doc, "kind", str("FRRConfiguration"));
  Node meta = mapping();
  putStr(meta, "name", config.metadata.name);
  putStr(meta, "namespace", config.metadata.namespace_);
  Node labels = mapping();
  for (const auto& [k, v] : config.metadata.labels) labels.map.emplace_back(k, str(v));
  put(meta, "labels", std::move(labels));
  put(doc, "metadata", std::move(meta));
  put(doc, "spec", options.served ? spec(servedSpec(config.spec), true) : spec(config.spec, false));
  std::string out;
  print(out, doc, 0);
  return out;
}

}  // namespace ingot::frrgen
