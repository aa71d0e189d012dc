// SPDX-License-Identifier: Apache-2.0
// L2Advertisement: pools, nodes, interfaces, selectors, preferences.
#include "api/selector.h"
#include "config/internal.h"

namespace ingot::config::detail {
namespace {

constexpr char kL2AdvertisementKind[] = "L2Advertisement";
constexpr int32_t kMinWeight = 1;
constexpr int32_t kMaxWeight = 100;

/// parsePreferred resolves each preferredNodeSelector to the nodes it matches among the nodes
/// eligible under the advertisement's own nodeSelectors, in spec order.
std::vector<PreferredNodes> parsePreferred(const api::L2AdvertisementSpec& spec,
                                           const State& s,
                                           const std::set<std::string>& eligible,
                                           ObjectErrors& errs) {
  std::vector<PreferredNodes> out;
  for (size_t i = 0; i < spec.preferred_node_selectors.size(); ++i) {
    const auto& pref = spec.preferred_node_selectors[i];
    const std::string field = indexed("spec.preferredNodeSelectors", i);
    if (pref.weight < kMinWeight || pref.weight > kMaxWeight) {
      errs.fail(field + ".weight",
                "invalid weight " + std::to_string(pref.weight) + ", must be in 1-100 range");
      continue;
    }
    if (auto valid = api::checkSelector(pref.preference); !valid) {
      errs.fail(field + ".preference", "invalid label selector: " + valid.error().message);
      continue;
    }
    PreferredNodes resolved;
    resolved.weight = pref.weight;
    for (const auto& node : s.in.nodes) {
      const auto& name = node.metadata.name;
      if (eligible.count(name) != 0 && api::matches(pref.preference, node.metadata.labels)) {
        resolved.nodes.insert(name);
      }
    }
    out.push_back(std::move(resolved));
  }
  return out;
}

L2Advertisement l2FromCr(const api::L2Advertisement& cr, const State& s, ObjectErrors& errs) {
  const auto& spec = cr.spec;
  L2Advertisement ad;
  ad.name = cr.metadata.name;
  checkUnique(spec.ip_address_pools, "spec.ipAddressPools", "ipAddressPools", errs);
  if (checkSelectors(spec.ip_address_pool_selectors, "spec.ipAddressPoolSelectors", errs)) {
    ad.pools = resolvePools(spec.ip_address_pools, spec.ip_address_pool_selectors, s.cfg.pools);
  }
  if (checkSelectors(spec.node_selectors, "spec.nodeSelectors", errs)) {
    ad.nodes = selectNodes(s.in.nodes, spec.node_selectors);
  }
  checkSelectors(spec.service_selectors, "spec.serviceSelectors", errs);
  ad.service_selectors = spec.service_selectors;
  ad.interfaces = spec.interfaces;
  ad.preferred_nodes = parsePreferred(spec, s, ad.nodes, errs);
  return ad;
}

}  // namespace

void parseL2Advertisements(State& s) {
  const NamedKind named{kL2AdvertisementKind, "missing advertisement name",
                        [](const std::string& name) {
                          return "duplicate definition of l2advertisement " + goQuote(name);
                        }};
  forEachNamed(s, s.in.l2_advertisements, named,
               [&](const api::L2Advertisement& cr, ObjectErrors& errs) {
                 L2Advertisement ad = l2FromCr(cr, s, errs);
                 if (errs.ok()) {
                   s.cfg.l2_advertisements.push_back(std::move(ad));
                 }
               });
}

}  // namespace ingot::config::detail
