// SPDX-License-Identifier: Apache-2.0
#include "frrgen/render.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "frrgen/policy.h"

namespace ingot::frrgen {

namespace {

constexpr uint32_t kFrrDefaultRouteMapTimer = 5;

// FRR 8.4 BFD profile defaults (frr-bfdd.yang); lines with these values are omitted.
constexpr uint32_t kBfdDefaultInterval = 300;
constexpr uint32_t kBfdDefaultMultiplier = 3;
constexpr uint32_t kBfdDefaultEchoInterval = 50;
constexpr uint32_t kBfdDefaultMinimumTtl = 254;

// Out is an append-only text buffer with line helpers.
class Out {
 public:
  void line(std::string_view indent, std::string_view text) {
    text_.append(indent);
    text_.append(text);
    text_.push_back('\n');
  }
  void line(std::string_view text) { line("", text); }
  /// parts appends the pieces as one line (no temporaries: prefix-lists dominate large files).
  void parts(std::initializer_list<std::string_view> pieces) {
    for (auto piece : pieces) text_.append(piece);
    text_.push_back('\n');
  }
  std::string take() { return std::move(text_); }
  void reserve(size_t n) { text_.reserve(n); }

 private:
  std::string text_;
};

std::string family(net::Family f) {
  return f == net::Family::V4 ? "ip" : "ipv6";
}
std::string action(Action a) {
  return a == Action::Permit ? "permit" : "deny";
}

void header(Out& out, const RenderOptions& o) {
  out.line("log stdout " + o.log_level);
  out.line("log timestamp precision 3");
  if (!o.hostname.empty()) out.line("hostname " + o.hostname);
  out.line("ip nht resolve-via-default");
  out.line("ipv6 nht resolve-via-default");
  if (o.route_map_delay_timer != kFrrDefaultRouteMapTimer) {
    out.line("bgp route-map delay-timer " + std::to_string(o.route_map_delay_timer));
  }
  out.line("!");
}

void prefixList(Out& out, const PrefixList& list) {
  const std::string head = family(list.family) + " prefix-list " + list.name + " seq ";
  for (const auto& e : list.entries) {
    const std::string seq = std::to_string(e.seq);
    const std::string ge = e.ge ? " ge " + std::to_string(*e.ge) : "";
    const std::string le = e.le ? " le " + std::to_string(*e.le) : "";
    out.parts({head, seq, " ", action(e.action), " ", e.prefix.empty() ? "any" : e.prefix, ge, le});
  }
}

void routeMap(Out& out, const RouteMap& map) {
  for (const auto& e : map.entries) {
    out.parts({"route-map ", map.name, " ", action(e.action), " ", std::to_string(e.seq)});
    out.line(" ", "match " + family(e.match_family) + " address prefix-list " + e.match_list);
    switch (e.set) {
      case SetKind::LocalPreference:
        out.line(" ", "set local-preference " + e.set_value);
        break;
      case SetKind::Community:
        out.line(" ", "set community " + frrCommunityText(e.set_value) + " additive");
        break;
      case SetKind::LargeCommunity:
        out.line(" ", "set large-community " + e.set_value + " additive");
        break;
      case SetKind::Bandwidth:
        out.line(" ", "set extcommunity bandwidth " + e.set_value);
        break;
      case SetKind::None:
        break;
    }
    if (e.on_match_next) out.line(" ", "on-match next");
    out.line("exit");
    out.line("!");
  }
}

void policy(Out& out, const NeighborPolicy& p) {
  for (const auto& list : p.prefix_lists) prefixList(out, list);
  out.line("!");
  routeMap(out, p.out);
  routeMap(out, p.in);
}

void optionalLine(Out& out,
                  const std::optional<uint32_t>& v,
                  uint32_t def,
                  const std::string& cmd) {
  if (v && *v != def) out.line("  ", cmd + " " + std::to_string(*v));
}

void bfd(Out& out, const std::vector<BfdProfile>& profiles) {
  if (profiles.empty()) return;
  out.line("bfd");
  for (const auto& p : profiles) {
    out.line(" ", "profile " + p.name);
    optionalLine(out, p.detect_multiplier, kBfdDefaultMultiplier, "detect-multiplier");
    optionalLine(out, p.receive_interval, kBfdDefaultInterval, "receive-interval");
    optionalLine(out, p.transmit_interval, kBfdDefaultInterval, "transmit-interval");
    if (p.echo_mode) out.line("  ", "echo-mode");
    optionalLine(out, p.echo_interval, kBfdDefaultEchoInterval, "echo transmit-interval");
    optionalLine(out, p.echo_interval, kBfdDefaultEchoInterval, "echo receive-interval");
    if (p.passive_mode) out.line("  ", "passive-mode");
    optionalLine(out, p.minimum_ttl, kBfdDefaultMinimumTtl, "minimum-ttl");
    out.line(" ", "exit");
    out.line(" ", "!");
  }
  out.line("exit");
  out.line("!");
}

// isExternal reports whether the session is eBGP (frr-k8s' mustDisableConnectedCheck input).
bool isExternal(const Neighbor& n, uint32_t router_asn) {
  if (n.remote_as == "internal") return false;
  if (n.remote_as == "external") return true;
  return n.remote_as != std::to_string(router_asn);
}

void neighborSession(Out& out, const Neighbor& n, uint32_t router_asn) {
  const std::string p = " neighbor " + n.peer();
  out.line(n.interface.empty() ? p + " remote-as " + n.remote_as
                               : p + " interface remote-as " + n.remote_as);
  // FRR 8.4 shows the TTL even when it is the maximum; writing it keeps reloads diff-free.
  if (n.ebgp_multi_hop) out.line(p + " ebgp-multihop 255");
  if (n.local_asn) {
    out.line(p + " local-as " + std::to_string(*n.local_asn) + " no-prepend replace-as");
  }
  if (n.port && *n.port != kBgpDefaultPort) out.line(p + " port " + std::to_string(*n.port));
  if (n.hold_time && n.keepalive_time) {
    out.line(p + " timers " + std::to_string(*n.keepalive_time) + " " +
             std::to_string(*n.hold_time));
  }
  if (n.connect_time) out.line(p + " timers connect " + std::to_string(*n.connect_time));
  if (!n.password.empty()) out.line(p + " password " + n.password);
  if (!n.source_address.empty()) out.line(p + " update-source " + n.source_address);
  if (n.graceful_restart) out.line(p + " graceful-restart");
  if (!n.bfd_profile.empty()) {
    out.line(p + " bfd");
    out.line(p + " bfd profile " + n.bfd_profile);
  }
  if (n.family == NeighborFamily::V6 && !n.ebgp_multi_hop && isExternal(n, router_asn)) {
    out.line(p + " disable-connected-check");
  }
}

bool carries(const Neighbor& n, net::Family f) {
  return n.family == NeighborFamily::Dual ||
         (n.family == NeighborFamily::V4) == (f == net::Family::V4);
}

void addressFamily(Out& out, const Router& r, net::Family f) {
  const auto& networks = f == net::Family::V4 ? r.prefixes_v4 : r.prefixes_v6;
  const bool any_neighbor = std::any_of(r.neighbors.begin(), r.neighbors.end(),
                                        [f](const Neighbor& n) { return carries(n, f); });
  if (networks.empty() && r.import_vrfs.empty() && !any_neighbor) return;
  out.line(" ",
           f == net::Family::V4 ? "address-family ipv4 unicast" : "address-family ipv6 unicast");
  for (const auto& v : r.import_vrfs) out.line("  ", "import vrf " + v);
  for (const auto& p : networks) out.line("  ", "network " + p);
  for (const auto& n : r.neighbors) {
    if (!carries(n, f)) continue;
    const std::string p = "neighbor " + n.peer();
    out.line("  ", p + " activate");
    out.line("  ", p + " route-map " + n.id() + "-in in");
    out.line("  ", p + " route-map " + n.id() + "-out out");
  }
  out.line(" ", "exit-address-family");
  out.line(" ", "!");
}

void router(Out& out, const Router& r) {
  out.line("router bgp " + std::to_string(r.asn) + (r.vrf.empty() ? "" : " vrf " + r.vrf));
  if (!r.router_id.empty()) out.line(" ", "bgp router-id " + r.router_id);
  out.line(" ", "no bgp ebgp-requires-policy");
  out.line(" ", "no bgp default ipv4-unicast");
  out.line(" ", "bgp graceful-restart preserve-fw-state");
  out.line(" ", "no bgp network import-check");
  for (const auto& n : r.neighbors) neighborSession(out, n, r.asn);
  out.line(" ", "!");
  addressFamily(out, r, net::Family::V4);
  addressFamily(out, r, net::Family::V6);
  out.line("exit");
  out.line("!");
}

size_t estimateSize(const Model& m) {
  size_t n = 4096;
  for (const auto& r : m.routers) {
    n += 48 * (r.prefixes_v4.size() + r.prefixes_v6.size());
    for (const auto& nb : r.neighbors) {
      n += 512 + 96 * (nb.outgoing_v4.size() + nb.outgoing_v6.size());
    }
  }
  return n + m.raw_config.size();
}

}  // namespace

Result<std::string> render(const Model& model, const RenderOptions& options) {
  if (options.route_map_delay_timer > kMaxRouteMapDelayTimer) {
    return invalidArgument("route-map delay timer " +
                           std::to_string(options.route_map_delay_timer) +
                           " is out of range 0-600");
  }
  // Raw text is written against frr-k8s' file: its entry numbers must mean the same here.
  auto plan = planPolicy(model, model.raw_config.empty() ? Numbering::Stable : Numbering::FrrK8s);
  if (!plan) return plan.error();
  Out out;
  out.reserve(estimateSize(model));
  header(out, options);
  for (const auto& p : *plan) policy(out, p);
  bfd(out, model.bfd_profiles);
  for (const auto& r : model.routers) router(out, r);
  std::string text = out.take();
  text += model.raw_config;
  return text;
}

}  // namespace ingot::frrgen

// Stanza helpers shared with the compact renderer (render_parts.h).
namespace ingot::frrgen {

std::string renderHeaderText(const RenderOptions& options) {
  Out out;
  header(out, options);
  return out.take();
}

std::string renderBfdText(const std::vector<BfdProfile>& profiles) {
  Out out;
  bfd(out, profiles);
  return out.take();
}

std::string renderSessionText(const Neighbor& neighbor, uint32_t router_asn) {
  Out out;
  neighborSession(out, neighbor, router_asn);
  return out.take();
}

std::string renderPrefixListText(const PrefixList& list) {
  Out out;
  prefixList(out, list);
  return out.take();
}

std::string renderRouteMapText(const RouteMap& map) {
  Out out;
  routeMap(out, map);
  return out.take();
}

bool neighborCarries(const Neighbor& neighbor, net::Family family) {
  return carries(neighbor, family);
}

}  // namespace ingot::frrgen
