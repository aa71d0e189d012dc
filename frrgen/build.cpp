// SPDX-License-Identifier: Apache-2.0
#include "frrgen/build.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "frrgen/build_keys.h"

namespace ingot::frrgen {

namespace detail {

bool carries(const config::Peer& peer, const net::Cidr& prefix) {
  if (!peer.interface.empty() || peer.dual_stack_address_family || !peer.address) {
    return true;
  }
  return peer.address->family() == prefix.family();
}

}  // namespace detail

namespace {

using detail::carries;
using detail::routerKey;
using detail::sessionKey;

constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";

// fraction splits v into v / 10^prec and the fraction digits without trailing zeros (".5"), or
// "" when the fraction is zero — Go's fmtFrac.
std::string fraction(uint64_t& v, int prec) {
  std::string digits;
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    const auto digit = static_cast<char>('0' + v % 10);
    print = print || digit != '0';
    if (print) {
      digits.insert(digits.begin(), digit);
    }
    v /= 10;
  }
  return print ? "." + digits : "";
}

std::optional<api::Duration> durationOf(const std::optional<std::chrono::nanoseconds>& d) {
  if (!d) {
    return std::nullopt;
  }
  return api::Duration{d->count(), goDurationText(d->count())};
}

std::string remoteAsText(const config::Peer& p) {
  switch (p.dynamic_asn) {
    case config::DynamicAsn::Internal:
      return "internal";
    case config::DynamicAsn::External:
      return "external";
    case config::DynamicAsn::None:
      break;
  }
  return std::to_string(p.peer_asn);
}

std::string ipText(const std::optional<net::IpAddress>& ip) {
  return ip ? ip->toString() : "";
}

// passwordFields fills password / passwordSecret the way MetalLB's passwordForSession does.
Result<void> passwordFields(const config::Peer& p, const BuildOptions& o, api::FrrNeighbor& n) {
  const bool has_secret = p.password_secret.has_value() && !p.password_secret->name.empty();
  if (!p.password.empty() && (has_secret || !p.secret_password.empty())) {
    return invalidArgument("BGPPeer " + p.name +
                           ": invalid session with password and secret set (spec.password and "
                           "spec.passwordSecret are mutually exclusive)");
  }
  const bool passthrough = o.secret_passthrough || o.frrk8s_namespace == o.metallb_namespace;
  if (passthrough) {
    n.password = p.password;
    if (has_secret) {
      n.password_secret = p.password_secret;
    }
    return {};
  }
  n.password = p.secret_password.empty() ? p.password : p.secret_password;
  return {};
}

Result<api::FrrNeighbor> neighborFor(const config::Peer& p, const BuildOptions& o) {
  api::FrrNeighbor n;
  if (p.dynamic_asn == config::DynamicAsn::None) {
    n.asn = p.peer_asn;
  } else {
    n.dynamic_asn = remoteAsText(p);
  }
  n.address = ipText(p.address);
  n.interface = p.interface;
  n.source_address = ipText(p.source_address);  // fix: MetalLB drops it
  n.local_asn = p.local_asn;                    // fix: MetalLB drops it
  n.port = p.port;
  n.hold_time = durationOf(p.hold_time);
  n.keepalive_time = durationOf(p.keepalive_time);
  n.connect_time = durationOf(p.connect_time);
  n.bfd_profile = p.bfd_profile;
  n.enable_graceful_restart = p.enable_graceful_restart;
  n.ebgp_multi_hop = p.ebgp_multi_hop;
  n.dual_stack_address_family = p.dual_stack_address_family;
  n.disable_mp = p.disable_mp;
  if (auto r = passwordFields(p, o, n); !r) {
    return r.error();
  }
  return n;
}

// Indexed is the announcements prepared once per build: the distinct prefix texts in text order,
// each announcement's rank among them and its community texts, and, per BGPPeer name, the
// announcements naming it (so each session scans only its own). Sessions then sort ranks, not
// strings.
struct Indexed {
  std::vector<std::string> text;                    // distinct prefix texts, sorted
  std::vector<uint32_t> rank;                       // announcement → index into text
  std::vector<std::vector<std::string>> community;  // announcement → community texts
  std::map<std::string, std::vector<size_t>> by_peer;
};

Indexed index(const std::vector<config::Announcement>& announcements) {
  Indexed x;
  std::vector<std::string> texts;
  texts.reserve(announcements.size());
  x.community.resize(announcements.size());
  for (size_t i = 0; i < announcements.size(); ++i) {
    texts.push_back(announcements[i].prefix.toString());
    for (const auto& c : announcements[i].communities) {
      x.community[i].push_back(communityText(c));
    }
    for (const auto& p : announcements[i].peers) {
      x.by_peer[p].push_back(i);
    }
  }
  x.text = texts;
  std::sort(x.text.begin(), x.text.end());
  x.text.erase(std::unique(x.text.begin(), x.text.end()), x.text.end());
  x.rank.reserve(texts.size());
  for (const auto& t : texts) {
    x.rank.push_back(
        static_cast<uint32_t>(std::lower_bound(x.text.begin(), x.text.end(), t) - x.text.begin()));
  }
  return x;
}

/// texts returns the distinct prefix texts of ranks, in text order.
std::vector<std::string> texts(std::vector<uint32_t>& ranks, const Indexed& x) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::vector<std::string> out;
  out.reserve(ranks.size());
  for (uint32_t r : ranks) {
    out.push_back(x.text[r]);
  }
  return out;
}

// advertiseFor fills toAdvertise from the announcements the session receives and marks the
// prefixes in the router's set (by rank).
void advertiseFor(const config::Peer& p,
                  const std::vector<config::Announcement>& announcements,
                  const Indexed& x,
                  api::FrrAdvertise& out,
                  std::vector<bool>& router_prefixes) {
  auto it = x.by_peer.find(p.name);
  if (it == x.by_peer.end()) {
    return;
  }
  std::vector<uint32_t> allowed;
  allowed.reserve(it->second.size());
  std::map<std::string, std::vector<uint32_t>> by_community;
  std::map<uint32_t, std::vector<uint32_t>> by_local_pref;
  std::map<uint32_t, std::vector<uint32_t>> by_bandwidth;
  for (size_t i : it->second) {
    const config::Announcement& a = announcements[i];
    if (!carries(p, a.prefix)) {
      continue;
    }
    const uint32_t r = x.rank[i];
    allowed.push_back(r);
    router_prefixes[r] = true;
    for (const auto& c : x.community[i]) {
      by_community[c].push_back(r);
    }
    if (a.local_pref != 0) {
      by_local_pref[a.local_pref].push_back(r);
    }
    if (a.bandwidth != 0) {
      by_bandwidth[a.bandwidth].push_back(r);
    }
  }
  out.allowed_prefixes = texts(allowed, x);
  for (auto& [community, ranks] : by_community) {
    out.with_community.push_back({community, texts(ranks, x)});
  }
  for (auto& [local_pref, ranks] : by_local_pref) {
    out.with_local_pref.push_back({local_pref, texts(ranks, x)});
  }
  for (auto& [bandwidth, ranks] : by_bandwidth) {
    out.with_bandwidth.push_back({bandwidth, texts(ranks, x)});
  }
}

api::FrrBfdProfile bfdProfileFor(const config::BfdProfile& b) {
  api::FrrBfdProfile out;
  out.name = b.name;
  out.receive_interval = b.receive_interval;
  out.transmit_interval = b.transmit_interval;
  out.detect_multiplier = b.detect_multiplier;
  out.echo_interval = b.echo_interval;
  out.echo_mode = b.echo_mode;
  out.passive_mode = b.passive_mode;
  out.minimum_ttl = b.minimum_ttl;
  return out;
}

struct RouterAcc {
  api::FrrRouter router;
  std::map<std::string, api::FrrNeighbor> neighbors;  // by session key
  std::vector<bool> prefixes;                         // by rank (Indexed)
};

// assemble writes the object: identity, routers in key order, every BFD profile by name.
api::FRRConfiguration assemble(const config::Config& config,
                               const std::string& node,
                               const BuildOptions& options,
                               const Indexed& indexed,
                               std::map<std::string, RouterAcc>& routers) {
  api::FRRConfiguration out;
  out.metadata.name = configName(node);
  out.metadata.namespace_ = options.frrk8s_namespace;
  out.spec.node_selector.match_labels = {{std::string(kHostnameLabel), node}};
  for (auto& [key, acc] : routers) {
    for (auto& [session, n] : acc.neighbors) {
      acc.router.neighbors.push_back(std::move(n));
    }
    for (size_t r = 0; r < acc.prefixes.size(); ++r) {
      if (acc.prefixes[r]) {
        acc.router.prefixes.push_back(indexed.text[r]);
      }
    }
    out.spec.routers.push_back(std::move(acc.router));
  }
  for (const auto& [name, profile] : config.bfd_profiles) {
    out.spec.bfd_profiles.push_back(bfdProfileFor(profile));
  }
  return out;
}

}  // namespace

namespace detail {

std::string routerKey(const config::Peer& p) {
  return std::to_string(p.my_asn) + "@" + ipText(p.router_id) + "@" + p.vrf;
}

std::string sessionKey(const config::Peer& p) {
  const std::string target = p.interface.empty() ? ipText(p.address) : p.interface;
  std::string key = remoteAsText(p) + "@" + target + "-" + std::to_string(p.my_asn) + "@" +
                    ipText(p.source_address);
  return p.vrf.empty() ? key : key + "/" + p.vrf;
}

}  // namespace detail

std::string configName(const std::string& node) {
  return "metallb-" + node;
}

std::string goDurationText(int64_t nanoseconds) {
  const bool negative = nanoseconds < 0;
  uint64_t u = negative ? 0 - static_cast<uint64_t>(nanoseconds) : nanoseconds;
  std::string out;
  if (u == 0) {
    return "0s";
  }
  if (u < 1'000'000'000) {
    const int prec = u < 1'000 ? 0 : (u < 1'000'000 ? 3 : 6);
    const char* unit = u < 1'000 ? "ns" : (u < 1'000'000 ? "\u00b5s" : "ms");
    const std::string frac = fraction(u, prec);
    out = std::to_string(u) + frac + unit;
  } else {
    const std::string frac = fraction(u, 9);
    out = std::to_string(u % 60) + frac + "s";
    u /= 60;
    if (u > 0) {
      out = std::to_string(u % 60) + "m" + out;
      u /= 60;
      if (u > 0) {
        out = std::to_string(u) + "h" + out;
      }
    }
  }
  return negative ? "-" + out : out;
}

std::string communityText(const config::BgpCommunity& c) {
  if (c.large) {
    return "large:" + std::to_string(c.a) + ":" + std::to_string(c.b) + ":" + std::to_string(c.c);
  }
  return std::to_string(c.a) + ":" + std::to_string(c.b);
}

Result<api::FRRConfiguration> build(const config::Config& config,
                                    const std::string& node,
                                    const std::vector<config::Announcement>& announcements,
                                    const BuildOptions& options) {
  for (const auto& a : announcements) {
    if (a.communities.size() > detail::kMaxCommunities) {
      return invalidArgument("BGPAdvertisement " + a.advertisement +
                             ": max supported communities is 63, got " +
                             std::to_string(a.communities.size()));
    }
  }
  std::map<std::string, RouterAcc> routers;
  const Indexed indexed = index(announcements);
  for (const auto& [name, peer] : config.peers) {
    if (!peer.nodes.contains(node)) {
      continue;
    }
    auto neighbor = neighborFor(peer, options);
    if (!neighbor) {
      return neighbor.error();
    }
    RouterAcc& acc = routers[routerKey(peer)];
    acc.prefixes.resize(indexed.text.size());
    acc.router.asn = peer.my_asn;
    acc.router.id = ipText(peer.router_id);
    acc.router.vrf = peer.vrf;
    advertiseFor(peer, announcements, indexed, neighbor->to_advertise, acc.prefixes);
    acc.neighbors.emplace(sessionKey(peer), std::move(*neighbor));
  }
  return assemble(config, node, options, indexed, routers);
}

}  // namespace ingot::frrgen
