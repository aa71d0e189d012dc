// SPDX-License-Identifier: Apache-2.0
// renderCompact() and the per-stanza texts the incremental apply sends to FRR.
#include <algorithm>

#include "frrgen/compact.h"
#include "frrgen/render_parts.h"

namespace ingot::frrgen {

namespace {

std::string attributeLines(const Attributes& a) {
  std::string out;
  if (a.local_pref != 0) {
    out += " set local-preference " + std::to_string(a.local_pref) + "\n";
  }
  if (!a.communities.empty()) {
    out += " set community";
    for (const auto& c : a.communities) {
      out += " " + frrCommunityText(c);
    }
    out += " additive\n";
  }
  if (!a.large_communities.empty()) {
    out += " set large-community";
    for (const auto& c : a.large_communities) {
      out += " " + c;
    }
    out += " additive\n";
  }
  if (a.bandwidth != 0) {
    out += " set extcommunity bandwidth " + std::to_string(a.bandwidth) + "\n";
  }
  return out;
}

void neighborPolicy(std::string& out, const CompactNeighbor& n) {
  for (const auto& list : n.inbound.prefix_lists) {
    out += renderPrefixListText(list);
  }
  out += "!\n";
  const std::string name = n.outMapName();
  for (const auto& e : n.out) {
    out += outEntryText(name, e);
    out += "!\n";
  }
  out += outDenyText(name);
  out += "!\n";
  out += renderRouteMapText(n.inbound.in);
}

void networks(std::string& out, const std::map<std::string, uint32_t>& by_prefix) {
  for (const auto& [prefix, tag] : by_prefix) {
    out += "  ";
    out += networkLine(prefix, tag);
    out += '\n';
  }
}

void addressFamily(std::string& out, const CompactRouter& r, net::Family f) {
  const auto& nets = f == net::Family::V4 ? r.networks_v4 : r.networks_v6;
  const bool any_neighbor =
      std::any_of(r.neighbors.begin(), r.neighbors.end(),
                  [f](const CompactNeighbor& n) { return neighborCarries(n.session, f); });
  if (nets.empty() && r.import_vrfs.empty() && !any_neighbor) {
    return;
  }
  out += f == net::Family::V4 ? " address-family ipv4 unicast\n" : " address-family ipv6 unicast\n";
  for (const auto& v : r.import_vrfs) {
    out += "  import vrf " + v + "\n";
  }
  networks(out, nets);
  for (const auto& n : r.neighbors) {
    if (!neighborCarries(n.session, f)) {
      continue;
    }
    const std::string p = "  neighbor " + n.session.peer();
    out += p + " activate\n";
    out += p + " route-map " + n.inbound.in.name + " in\n";
    out += p + " route-map " + n.outMapName() + " out\n";
  }
  out += " exit-address-family\n !\n";
}

void router(std::string& out, const CompactRouter& r) {
  out += routerLine(r) + "\n";
  if (!r.router_id.empty()) {
    out += " bgp router-id " + r.router_id + "\n";
  }
  out +=
      " no bgp ebgp-requires-policy\n no bgp default ipv4-unicast\n"
      " bgp graceful-restart preserve-fw-state\n no bgp network import-check\n";
  for (const auto& n : r.neighbors) {
    out += renderSessionText(n.session, r.asn);
  }
  out += " !\n";
  addressFamily(out, r, net::Family::V4);
  addressFamily(out, r, net::Family::V6);
  out += "exit\n!\n";
}

}  // namespace

std::string advMapText(const AdvertClass& c) {
  const std::string tag = std::to_string(c.tag);
  return "route-map " + c.mapName() + " permit " + std::to_string(kAdvEntrySeq) + "\n set tag " +
         tag + "\n" + attributeLines(c.attributes) + "exit\n";
}

std::string outEntryText(const std::string& map_name, const OutEntry& e) {
  return "route-map " + map_name + " permit " + std::to_string(e.seq) + "\n match tag " +
         std::to_string(e.tag) + "\n" + attributeLines(e.attributes) + "exit\n";
}

std::string outDenyText(const std::string& map_name) {
  return "route-map " + map_name + " deny " + std::to_string(kOutDenySeq) + "\nexit\n";
}

std::string networkLine(const std::string& prefix, uint32_t tag) {
  std::string line = "network ";
  line += prefix;
  line += " route-map ";
  line += kAdvMapPrefix;
  line += std::to_string(tag);
  return line;
}

std::string routerLine(const CompactRouter& r) {
  return "router bgp " + std::to_string(r.asn) + (r.vrf.empty() ? "" : " vrf " + r.vrf);
}

Result<std::string> renderCompact(const CompactModel& model, const RenderOptions& options) {
  if (options.route_map_delay_timer > kMaxRouteMapDelayTimer) {
    return invalidArgument("route-map delay timer " +
                           std::to_string(options.route_map_delay_timer) +
                           " is out of range 0-600");
  }
  std::string out = renderHeaderText(options);
  size_t size = 4096;
  for (const auto& r : model.routers) {
    size += 56 * (r.networks_v4.size() + r.networks_v6.size()) + 1024 * r.neighbors.size();
  }
  out.reserve(size + model.raw_config.size());
  for (const auto& c : model.classes) {
    out += advMapText(c);
    out += "!\n";
  }
  for (const auto& r : model.routers) {
    for (const auto& n : r.neighbors) {
      neighborPolicy(out, n);
    }
  }
  out += renderBfdText(model.bfd_profiles);
  for (const auto& r : model.routers) {
    router(out, r);
  }
  out += model.raw_config;
  return out;
}

}  // namespace ingot::frrgen
