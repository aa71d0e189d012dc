// SPDX-License-Identifier: Apache-2.0
// BGPAdvertisement (MetalLB's CRD and config parser): aggregation, communities, LOCAL_PREF
// consistency.
#include "config/internal.h"

namespace ingot::config::detail {
namespace {

constexpr char kBgpAdvertisementKind[] = "BGPAdvertisement";

void parseLengths(const api::BGPAdvertisementSpec& spec, BgpAdvertisement& ad, ObjectErrors& errs) {
  if (const auto& v4 = spec.aggregation_length; v4) {
    if (*v4 < 1 || *v4 > 32) {
      errs.fail("spec.aggregationLength", "invalid aggregation length " + std::to_string(*v4) +
                                              " for IPv4, must be in 1-32 range");
    } else {
      ad.aggregation_length = *v4;
    }
  }
  // No lower bound, as in MetalLB: a negative length only matters for a pool with IPv6
  // addresses, and checkAggregation rejects it there (no prefix is shorter than 0).
  if (const auto& v6 = spec.aggregation_length_v6; v6) {
    if (*v6 > 128) {
      errs.fail("spec.aggregationLengthV6", "invalid aggregation length " + std::to_string(*v6) +
                                                " for IPv6, must be at most 128");
    } else {
      ad.aggregation_length_v6 = *v6;
    }
  }
  const bool custom_length = (spec.aggregation_length && *spec.aggregation_length != 32) ||
                             (spec.aggregation_length_v6 && *spec.aggregation_length_v6 != 128);
  if (!spec.service_selectors.empty() && custom_length) {
    errs.fail("spec.serviceSelectors",
              "serviceSelectors and aggregationLength are mutually exclusive, can only be used "
              "together with default aggregationLength (32) and aggregationLengthV6 (128)");
  }
}

/// resolveCommunity looks text up as a Community alias first, then parses it as a literal. A
/// string that is neither is a transient error (its alias may still be created); a malformed
/// literal is a hard one.
std::optional<BgpCommunity> resolveCommunity(const std::string& text,
                                             const std::string& field,
                                             const State& s,
                                             ObjectErrors& errs) {
  if (const auto it = s.cfg.community_aliases.find(text); it != s.cfg.community_aliases.end()) {
    return it->second;
  }
  auto value = parseCommunity(text);
  if (value) {
    return *value;
  }
  const std::string message =
      "invalid community " + goQuote(text) + " in BGP advertisement: " + value.error().message;
  if (value.error().code == ErrorCode::NotFound) {
    errs.retry(field, message + " (no Community alias with this name either)");
  } else {
    errs.fail(field, message);
  }
  return std::nullopt;
}

void parseCommunitiesOf(const api::BGPAdvertisement& cr,
                        const State& s,
                        BgpAdvertisement& ad,
                        ObjectErrors& errs) {
  const auto& list = cr.spec.communities;
  if (!checkUnique(list, "spec.communities", "community", errs)) {
    return;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string field = indexed("spec.communities", i);
    const auto value = resolveCommunity(list[i], field, s, errs);
    if (!value) {
      continue;
    }
    if (s.options.backend == Backend::Native && value->large) {
      errs.fail(field, "native BGP mode only supports legacy communities, BGP advertisement " +
                           goQuote(cr.metadata.name) + " has non legacy community " +
                           goQuote(list[i]));
      continue;
    }
    ad.communities.push_back(*value);
  }
  std::sort(ad.communities.begin(), ad.communities.end());
  // An alias and a literal may name the same community; it is sent once.
  ad.communities.erase(std::unique(ad.communities.begin(), ad.communities.end()),
                       ad.communities.end());
  if (s.options.backend != Backend::Native && ad.communities.size() > kMaxCommunitiesFrr) {
    errs.fail("spec.communities", "too many communities: " + std::to_string(ad.communities.size()) +
                                      ", at most " + std::to_string(kMaxCommunitiesFrr) +
                                      " are supported per advertisement with FRR");
  }
}

BgpAdvertisement bgpFromCr(const api::BGPAdvertisement& cr, const State& s, ObjectErrors& errs) {
  const auto& spec = cr.spec;
  BgpAdvertisement ad;
  ad.name = cr.metadata.name;
  checkUnique(spec.ip_address_pools, "spec.ipAddressPools", "ipAddressPools", errs);
  checkUnique(spec.peers, "spec.peers", "peers", errs);
  if (checkSelectors(spec.ip_address_pool_selectors, "spec.ipAddressPoolSelectors", errs)) {
    ad.pools = resolvePools(spec.ip_address_pools, spec.ip_address_pool_selectors, s.cfg.pools);
  }
  if (checkSelectors(spec.node_selectors, "spec.nodeSelectors", errs)) {
    ad.nodes = selectNodes(s.in.nodes, spec.node_selectors);
  }
  checkSelectors(spec.service_selectors, "spec.serviceSelectors", errs);
  ad.service_selectors = spec.service_selectors;
  parseLengths(spec, ad, errs);
  ad.local_pref = spec.local_pref;
  parseCommunitiesOf(cr, s, ad, errs);
  ad.peers = spec.peers;
  return ad;
}

/// checkAggregation rejects an aggregation length shorter than the shortest prefix of any of the
/// pool's address entries (the aggregate would cover addresses outside the entry).
void checkAggregation(const BgpAdvertisement& ad,
                      const Pool& pool,
                      const api::IPAddressPool& cr,
                      ObjectErrors& errs) {
  for (size_t i = 0; i < pool.entries.size() && i < cr.spec.addresses.size(); ++i) {
    const auto& entry = pool.entries[i];
    if (entry.empty()) {
      continue;
    }
    const bool v6 = entry.front().family() == net::Family::V6;
    const int length = v6 ? ad.aggregation_length_v6 : ad.aggregation_length;
    int lowest = entry.front().prefixLength();
    for (const auto& c : entry) {
      lowest = std::min(lowest, c.prefixLength());
    }
    if (length < lowest) {
      errs.fail(v6 ? "spec.aggregationLengthV6" : "spec.aggregationLength",
                "invalid aggregation length " + std::to_string(length) + ": prefix " +
                    std::to_string(lowest) +
                    " in this pool is more specific than the aggregation length for addresses " +
                    cr.spec.addresses[i] + " (IPAddressPool " + goQuote(pool.name) + ")");
    }
  }
}

void checkLocalPref(const BgpAdvertisement& ad,
                    const Pool& pool,
                    const State& s,
                    std::set<std::string>& reported,
                    ObjectErrors& errs) {
  if (!ad.service_selectors.empty()) {
    return;  // checked per service at announce time (conflictingAdvertisements)
  }
  for (const auto& other : s.cfg.bgp_advertisements) {
    if (other.pools.count(pool.name) == 0 || !other.service_selectors.empty() ||
        compatibleLocalPref(ad, other, pool) || !reported.insert(other.name).second) {
      continue;
    }
    errs.fail("spec.localPref",
              "invalid local preference " + std::to_string(ad.local_pref) + ": local preference " +
                  std::to_string(other.local_pref) +
                  " was already set for the same type of BGP update. Check existing BGP "
                  "advertisements with common pools and aggregation lengths (BGPAdvertisement " +
                  goQuote(other.name) + ", IPAddressPool " + goQuote(pool.name) + ")");
  }
}

void checkAgainstPools(const BgpAdvertisement& ad, const State& s, ObjectErrors& errs) {
  std::set<std::string> reported;
  for (const auto& name : ad.pools) {
    const Pool& pool = s.cfg.pools.at(name);
    const auto& crs = s.in.pools;
    const auto cr = std::find_if(crs.begin(), crs.end(), [&](const api::IPAddressPool& p) {
      return p.metadata.name == name;
    });
    if (cr != crs.end()) {
      checkAggregation(ad, pool, *cr, errs);
    }
    checkLocalPref(ad, pool, s, reported, errs);
  }
}

}  // namespace

void parseBgpAdvertisements(State& s) {
  const NamedKind named{kBgpAdvertisementKind, "missing advertisement name",
                        [](const std::string& name) {
                          return "duplicate definition of bgpadvertisement " + goQuote(name);
                        }};
  forEachNamed(s, s.in.bgp_advertisements, named,
               [&](const api::BGPAdvertisement& cr, ObjectErrors& errs) {
                 BgpAdvertisement ad = bgpFromCr(cr, s, errs);
                 if (!errs.ok()) {
                   return;
                 }
                 checkAgainstPools(ad, s, errs);
                 if (errs.ok()) {
                   s.cfg.bgp_advertisements.push_back(std::move(ad));
                 }
               });
}

}  // namespace ingot::config::detail

namespace ingot::config {

namespace {

/// aggregationsDiffer reports whether two advertisements aggregate every family the pool has to
/// different lengths (vacuously true for a pool without addresses).
bool aggregationsDiffer(const BgpAdvertisement& a, const BgpAdvertisement& b, const Pool& pool) {
  bool has_v4 = false;
  bool has_v6 = false;
  for (const auto& c : pool.cidrs) {
    (c.family() == net::Family::V4 ? has_v4 : has_v6) = true;
  }
  return (!has_v4 || a.aggregation_length != b.aggregation_length) &&
         (!has_v6 || a.aggregation_length_v6 != b.aggregation_length_v6);
}

}  // namespace

bool compatibleLocalPref(const BgpAdvertisement& a, const BgpAdvertisement& b, const Pool& pool) {
  if (a.local_pref == b.local_pref || aggregationsDiffer(a, b, pool)) {
    return true;
  }
  const std::set<std::string> peers_a(a.peers.begin(), a.peers.end());
  const std::set<std::string> peers_b(b.peers.begin(), b.peers.end());
  if (!peers_a.empty() && !peers_b.empty() && !detail::intersects(peers_a, peers_b)) {
    return true;
  }
  return !detail::intersects(a.nodes, b.nodes);
}

}  // namespace ingot::config
