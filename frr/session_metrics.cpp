// SPDX-License-Identifier: Apache-2.0
#include "frr/session_metrics.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <utility>

#include "common/json/json.h"

namespace ingot::frr {

namespace {

using daemon::MetricFamily;
using daemon::MetricType;

Result<json::Value> parseDocument(std::string_view text, const std::string& what) {
  auto doc = json::parse(text);
  if (!doc) {
    constexpr size_t kShown = 120;
    const std::string start(text.substr(0, kShown));
    return Error{ErrorCode::InvalidArgument, what + ": not JSON: " + doc.error().message +
                                                 " (answer: \"" + start +
                                                 (text.size() > kShown ? "…" : "") + "\")"};
  }
  return doc;
}

// counter reads a non-negative integer member; absent is 0.
Result<uint64_t> counter(const json::Value& object,
                         std::string_view key,
                         const std::string& where) {
  const json::Value* v = object.find(key);
  if (v == nullptr || v->isNull()) {
    return uint64_t{0};
  }
  uint64_t out = 0;
  const std::string& t = v->text();
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
  if (!v->isNumber() || ec != std::errc() || end != t.data() + t.size()) {
    return invalidArgument(where + "." + std::string(key) + ": want a non-negative integer, got " +
                           std::string(json::typeName(v->type())) + " " + t);
  }
  return out;
}

std::string text(const json::Value& object, std::string_view key) {
  const json::Value* v = object.find(key);
  return v != nullptr && v->isString() ? v->text() : std::string();
}

// Reads the named counters of object into the fields, in order.
Result<void> readCounters(const json::Value& object,
                          const std::string& where,
                          const std::vector<std::pair<std::string_view, uint64_t*>>& fields) {
  for (const auto& [key, field] : fields) {
    auto v = counter(object, key, where);
    if (!v) {
      return v.error();
    }
    *field = *v;
  }
  return {};
}

Result<BgpNeighborStats> neighbor(const std::string& address,
                                  const json::Value& n,
                                  const std::string& vrf) {
  const std::string where = "neighbor " + address;
  if (!n.isObject()) {
    return invalidArgument(where + ": want an object");
  }
  BgpNeighborStats s;
  s.vrf = vrf;
  s.address = address;
  s.established = text(n, "bgpState") == "Established";
  if (const json::Value* port = n.find("portForeign"); port != nullptr) {
    const std::string& t = port->text();
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), s.port);
    if (!port->isNumber() || ec != std::errc() || end != t.data() + t.size()) {
      return invalidArgument(where + ".portForeign: want an integer, got " + t);
    }
  }
  static const json::Value kEmptyObject = json::Value::object();
  const json::Value* stats = n.find("messageStats");
  const json::Value& m = stats != nullptr && stats->isObject() ? *stats : kEmptyObject;
  auto r = readCounters(m, where + ".messageStats",
                        {{"opensSent", &s.opens_sent},
                         {"opensRecv", &s.opens_received},
                         {"notificationsSent", &s.notifications_sent},
                         {"updatesSent", &s.updates_sent},
                         {"updatesRecv", &s.updates_received},
                         {"keepalivesSent", &s.keepalives_sent},
                         {"keepalivesRecv", &s.keepalives_received},
                         {"routeRefreshSent", &s.route_refresh_sent},
                         {"totalSent", &s.total_sent},
                         {"totalRecv", &s.total_received}});
  if (!r) {
    return r.error();
  }
  if (const json::Value* afs = n.find("addressFamilyInfo"); afs != nullptr && afs->isObject()) {
    for (size_t i = 0; i < afs->size(); ++i) {
      uint64_t sent = 0;
      uint64_t received = 0;
      auto r = readCounters(afs->items()[i], where + ".addressFamilyInfo." + afs->keys()[i],
                            {{"sentPrefixCounter", &sent}, {"acceptedPrefixCounter", &received}});
      if (!r) {
        return r.error();
      }
      s.sent_prefixes += sent;
      s.received_prefixes += received;
    }
  }
  return s;
}

Result<BfdPeerStats> bfdPeer(const json::Value& p, const std::string& vrf, size_t index) {
  const std::string where = "BFD peer [" + std::to_string(index) + "]";
  if (!p.isObject() || text(p, "peer").empty()) {
    return invalidArgument(where + ": want an object with a \"peer\" address");
  }
  BfdPeerStats s;
  s.vrf = vrf;
  s.peer = text(p, "peer");
  s.up = text(p, "status") == "up";
  return s;
}

Result<void> addBfdCounters(const json::Value& c, BfdPeerStats& s) {
  s.has_counters = true;
  return readCounters(c, "BFD peer " + s.peer,
                      {{"control-packet-input", &s.control_packet_input},
                       {"control-packet-output", &s.control_packet_output},
                       {"echo-packet-input", &s.echo_packet_input},
                       {"echo-packet-output", &s.echo_packet_output},
                       {"session-up", &s.session_up_events},
                       {"session-down", &s.session_down_events},
                       {"zebra-notifications", &s.zebra_notifications}});
}

// bfdKey identifies a BFD session in both listings: peer, local address and interface.
std::string bfdKey(const json::Value& p) {
  return text(p, "peer") + "|" + text(p, "local") + "|" + text(p, "interface");
}

}  // namespace

Result<std::vector<std::string>> parseVrfNames(std::string_view json) {
  auto doc = parseDocument(json, "show bgp vrf all json");
  if (!doc) {
    return doc.error();
  }
  if (!doc->isObject()) {
    return invalidArgument("show bgp vrf all json: want an object keyed by VRF name");
  }
  std::vector<std::string> out = doc->keys();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<std::vector<BgpNeighborStats>> parseBgpNeighbors(std::string_view json,
                                                        const std::string& vrf) {
  auto doc = parseDocument(json, "show bgp vrf " + vrf + " neighbors json");
  if (!doc) {
    return doc.error();
  }
  if (!doc->isObject()) {
    return invalidArgument("show bgp vrf " + vrf + " neighbors json: want an object");
  }
  std::vector<BgpNeighborStats> out;
  for (size_t i = 0; i < doc->size(); ++i) {
    auto n = neighbor(doc->keys()[i], doc->items()[i], vrf);
    if (!n) {
      return n.error();
    }
    out.push_back(std::move(*n));
  }
  return out;
}

Result<std::vector<BfdPeerStats>> parseBfdPeers(std::string_view peers,
                                                std::string_view counters,
                                                const std::string& vrf) {
  auto p = parseDocument(peers, "show bfd vrf " + vrf + " peers json");
  auto c = parseDocument(counters, "show bfd vrf " + vrf + " peers counters json");
  if (!p || !c) {
    return p ? c.error() : p.error();
  }
  if (!p->isArray() || !c->isArray()) {
    return invalidArgument("show bfd vrf " + vrf + " peers [counters] json: want an array");
  }
  std::map<std::string, const json::Value*> by_key;
  for (const auto& e : c->items()) {
    by_key.emplace(bfdKey(e), &e);
  }
  std::vector<BfdPeerStats> out;
  for (size_t i = 0; i < p->size(); ++i) {
    auto s = bfdPeer(p->items()[i], vrf, i);
    if (!s) {
      return s.error();
    }
    if (auto it = by_key.find(bfdKey(p->items()[i])); it != by_key.end()) {
      if (auto r = addBfdCounters(*it->second, *s); !r) {
        return r.error();
      }
    }
    out.push_back(std::move(*s));
  }
  return out;
}

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Family describes one family: its name after the style's prefix and "_", help, type and how a
// sample's value is read.
template <typename T>
struct Family {
  const char* name;
  const char* help;
  MetricType type;
  uint64_t (*value)(const T&);
};

template <typename T>
void addFamilies(std::vector<MetricFamily>& out,
                 std::string_view prefix,
                 const std::vector<Family<T>>& families,
                 const std::vector<std::pair<const T*, Labels>>& rows) {
  for (const auto& f : families) {
    MetricFamily m{std::string(prefix) + "_" + f.name, f.help, f.type, {}};
    for (const auto& [row, labels] : rows) {
      m.samples.push_back({labels, static_cast<double>(f.value(*row))});
    }
    out.push_back(std::move(m));
  }
}

using B = BgpNeighborStats;
constexpr MetricType kCounter = MetricType::Counter;
constexpr MetricType kGauge = MetricType::Gauge;

const std::vector<Family<B>>& bgpFamilies() {
  static const std::vector<Family<B>> kFamilies = {
      {"bgp_session_up", "BGP session state (1 is up, 0 is down)", kGauge,
       [](const B& s) -> uint64_t { return s.established ? 1 : 0; }},
      {"bgp_announced_prefixes_total",
       "Number of prefixes currently being advertised on the BGP session", kGauge,
       [](const B& s) { return s.sent_prefixes; }},
      {"bgp_opens_sent", "Number of BGP open messages sent", kCounter,
       [](const B& s) { return s.opens_sent; }},
      {"bgp_opens_received", "Number of BGP open messages received", kCounter,
       [](const B& s) { return s.opens_received; }},
      {"bgp_notifications_sent", "Number of BGP notification messages sent", kCounter,
       [](const B& s) { return s.notifications_sent; }},
      {"bgp_updates_total", "Number of BGP UPDATE messages sent", kCounter,
       [](const B& s) { return s.updates_sent; }},
      {"bgp_updates_total_received", "Number of BGP UPDATE messages received", kCounter,
       [](const B& s) { return s.updates_received; }},
      {"bgp_keepalives_sent", "Number of BGP keepalive messages sent", kCounter,
       [](const B& s) { return s.keepalives_sent; }},
      {"bgp_keepalives_received", "Number of BGP keepalive messages received", kCounter,
       [](const B& s) { return s.keepalives_received; }},
      {"bgp_route_refresh_sent", "Number of BGP route refresh messages sent", kCounter,
       [](const B& s) { return s.route_refresh_sent; }},
      {"bgp_total_sent", "Number of total BGP messages sent", kCounter,
       [](const B& s) { return s.total_sent; }},
      {"bgp_total_received", "Number of total BGP messages received", kCounter,
       [](const B& s) { return s.total_received; }},
  };
  return kFamilies;
}

using F = BfdPeerStats;

const std::vector<Family<F>>& bfdCounterFamilies() {
  static const std::vector<Family<F>> kFamilies = {
      {"bfd_control_packet_input", "Number of received BFD control packets", kCounter,
       [](const F& s) { return s.control_packet_input; }},
      {"bfd_control_packet_output", "Number of sent BFD control packets", kCounter,
       [](const F& s) { return s.control_packet_output; }},
      {"bfd_echo_packet_input", "Number of received BFD echo packets", kCounter,
       [](const F& s) { return s.echo_packet_input; }},
      {"bfd_echo_packet_output", "Number of sent BFD echo packets", kCounter,
       [](const F& s) { return s.echo_packet_output; }},
      {"bfd_session_up_events", "Number of BFD session up events", kCounter,
       [](const F& s) { return s.session_up_events; }},
      {"bfd_session_down_events", "Number of BFD session down events", kCounter,
       [](const F& s) { return s.session_down_events; }},
      {"bfd_zebra_notifications", "Number of BFD zebra notifications", kCounter,
       [](const F& s) { return s.zebra_notifications; }},
  };
  return kFamilies;
}

constexpr Family<B> kReceivedPrefixes = {
    "bgp_received_prefixes_total", "Number of prefixes currently being received on the BGP session",
    kGauge, [](const B& s) { return s.received_prefixes; }};

constexpr Family<F> kBfdUp = {"bfd_session_up", "BFD session state (1 is up, 0 is down)", kGauge,
                              [](const F& s) -> uint64_t { return s.up ? 1 : 0; }};

}  // namespace

std::vector<MetricFamily> sessionFamilies(const SessionSnapshot& snapshot,
                                          const SessionMetricStyle& style) {
  std::vector<MetricFamily> out;
  std::vector<std::pair<const B*, Labels>> bgp;
  bgp.reserve(snapshot.bgp.size());
  for (const auto& n : snapshot.bgp) {
    const std::string peer = style.peer_port ? n.address + ":" + std::to_string(n.port) : n.address;
    bgp.emplace_back(&n, Labels{{"peer", peer}, {"vrf", n.vrf}});
  }
  const auto& bgp_families = bgpFamilies();
  // frr-k8s lists received prefixes right after the announced ones.
  addFamilies(out, style.prefix, {bgp_families.begin(), bgp_families.begin() + 2}, bgp);
  if (style.received_prefixes) {
    addFamilies(out, style.prefix, {kReceivedPrefixes}, bgp);
  }
  addFamilies(out, style.prefix, {bgp_families.begin() + 2, bgp_families.end()}, bgp);
  std::vector<std::pair<const F*, Labels>> bfd;
  std::vector<std::pair<const F*, Labels>> counted;
  for (const auto& p : snapshot.bfd) {
    bfd.emplace_back(&p, Labels{{"peer", p.peer}, {"vrf", p.vrf}});
    if (p.has_counters) {
      counted.push_back(bfd.back());
    }
  }
  addFamilies(out, style.prefix, {kBfdUp}, bfd);
  addFamilies(out, style.prefix, bfdCounterFamilies(), counted);
  return out;
}

Result<SessionSnapshot> SessionMetrics::read() {
  std::lock_guard lock(mu_);
  return readLocked();
}

Result<SessionSnapshot> SessionMetrics::readLocked() {
  auto vrfs_text = vtysh_.show("show bgp vrf all json");
  if (!vrfs_text) {
    return vrfs_text.error();
  }
  auto vrfs = parseVrfNames(*vrfs_text);
  if (!vrfs) {
    return vrfs.error();
  }
  SessionSnapshot snap;
  for (const auto& vrf : *vrfs) {
    if (auto r = readVrf(vrf, snap); !r) {
      return r.error();
    }
  }
  return snap;
}

Result<void> SessionMetrics::readVrf(const std::string& vrf, SessionSnapshot& snap) {
  auto neighbors = vtysh_.show("show bgp vrf " + vrf + " neighbors json");
  if (!neighbors) {
    return neighbors.error();
  }
  auto n = parseBgpNeighbors(*neighbors, vrf);
  if (!n) {
    return n.error();
  }
  auto peers = vtysh_.show("show bfd vrf " + vrf + " peers json");
  if (!peers) {
    return peers.error();
  }
  auto counters = vtysh_.show("show bfd vrf " + vrf + " peers counters json");
  if (!counters) {
    return counters.error();
  }
  auto b = parseBfdPeers(*peers, *counters, vrf);
  if (!b) {
    return b.error();
  }
  snap.bgp.insert(snap.bgp.end(), n->begin(), n->end());
  snap.bfd.insert(snap.bfd.end(), b->begin(), b->end());
  return {};
}

std::vector<MetricFamily> SessionMetrics::families() {
  std::lock_guard lock(mu_);
  auto snap = readLocked();
  last_error_ = snap ? "" : snap.error().message;
  return snap ? sessionFamilies(*snap, style_) : std::vector<MetricFamily>{};
}

std::string SessionMetrics::lastError() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace ingot::frr
