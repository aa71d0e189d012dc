// SPDX-License-Identifier: Apache-2.0
// BFD profiles and the config parser's BFD echo / IPv6 rule.
#include <optional>

#include "api/frr_limits.h"
#include "config/internal.h"

namespace ingot::config::detail {
namespace {

constexpr char kBfdProfileKind[] = "BFDProfile";

/// checkRange copies value into out when it lies in [min, max]; reports MetalLB's range message
/// at field otherwise.
void checkRange(const std::optional<uint32_t>& value,
                uint32_t min,
                uint32_t max,
                const char* field,
                std::optional<uint32_t>& out,
                ObjectErrors& errs) {
  if (!value) {
    return;
  }
  if (*value < min || *value > max) {
    errs.fail(field, "invalid value " + std::to_string(*value) + ", must be in " +
                         std::to_string(min) + "-" + std::to_string(max) + " range");
    return;
  }
  out = value;
}

BfdProfile profileFromCr(const api::BFDProfile& cr, ObjectErrors& errs) {
  BfdProfile p;
  p.name = cr.metadata.name;
  const auto& spec = cr.spec;
  checkRange(spec.detect_multiplier, 2, 255, "spec.detectMultiplier", p.detect_multiplier, errs);
  checkRange(spec.receive_interval, 10, 60000, "spec.receiveInterval", p.receive_interval, errs);
  checkRange(spec.transmit_interval, 10, 60000, "spec.transmitInterval", p.transmit_interval, errs);
  checkRange(spec.minimum_ttl, 1, 254, "spec.minimumTtl", p.minimum_ttl, errs);
  checkRange(spec.echo_interval, 10, 60000, "spec.echoInterval", p.echo_interval, errs);
  p.echo_mode = spec.echo_mode.value_or(false);
  p.passive_mode = spec.passive_mode.value_or(false);
  return p;
}

bool hasBfdEcho(const State& s, const Peer& peer) {
  const auto it = s.cfg.bfd_profiles.find(peer.bfd_profile);
  return it != s.cfg.bfd_profiles.end() && it->second.echo_mode;
}

bool poolHasV6(const Pool& pool) {
  return std::any_of(pool.cidrs.begin(), pool.cidrs.end(),
                     [](const net::Cidr& c) { return c.family() == net::Family::V6; });
}

/// targetPeers returns the parsed peers an advertisement sends to: all when peers is empty,
/// otherwise the named ones that exist.
std::vector<const Peer*> targetPeers(const State& s, const BgpAdvertisement& ad) {
  std::vector<const Peer*> out;
  for (const auto& [name, peer] : s.cfg.peers) {
    if (ad.peers.empty() || std::find(ad.peers.begin(), ad.peers.end(), name) != ad.peers.end()) {
      out.push_back(&peer);
    }
  }
  return out;
}

}  // namespace

void parseBfdProfiles(State& s) {
  const NamedKind named{kBfdProfileKind, "missing bfd profile name", [](const std::string& name) {
                          return "found duplicate bfd profile name " + name;
                        }};
  forEachNamed(s, s.in.bfd_profiles, named, [&](const api::BFDProfile& cr, ObjectErrors& errs) {
    if (auto problem = api::frr::bfdProfileNameProblem(cr.metadata.name); !problem.empty()) {
      errs.fail("metadata.name", problem);
      return;
    }
    BfdProfile p = profileFromCr(cr, errs);
    if (errs.ok()) {
      s.cfg.bfd_profiles.emplace(p.name, std::move(p));
    }
  });
}

void checkBfdEcho(State& s) {
  for (const auto& ad : s.cfg.bgp_advertisements) {
    for (const auto& pool_name : ad.pools) {
      const auto pool = s.cfg.pools.find(pool_name);
      if (pool == s.cfg.pools.end() || !poolHasV6(pool->second)) {
        continue;
      }
      for (const Peer* peer : targetPeers(s, ad)) {
        if (!hasBfdEcho(s, *peer)) {
          continue;
        }
        ObjectErrors(s.errors, "BGPAdvertisement", metaOf(s.in.bgp_advertisements, ad.name))
            .fail("spec.peers", "pool " + pool_name + " has bgpadvertisement " + ad.name +
                                    " which references peer " + peer->name +
                                    " which has bfd echo enabled, which is not possible");
      }
    }
  }
}

}  // namespace ingot::config::detail
