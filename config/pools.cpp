// SPDX-License-Identifier: Apache-2.0
// IPAddressPool: addresses, overlap across all pools, serviceAllocation.
#include "api/selector.h"
#include "config/internal.h"

namespace ingot::config::detail {
namespace {

constexpr char kPoolKind[] = "IPAddressPool";

/// CidrIndex holds every CIDR accepted so far (pairwise disjoint) ordered by first address, so an
/// overlap lookup is a logarithmic search instead of MetalLB's scan over all CIDRs.
class CidrIndex {
 public:
  /// overlap returns the earliest-added CIDR that overlaps c, if any (the one MetalLB's in-order
  /// scan would name).
  std::optional<net::Cidr> overlap(const net::Cidr& c) const {
    std::optional<Entry> best;
    auto it = by_first_.upper_bound(c.last());
    // Entries are disjoint and sorted, so the overlapping ones are contiguous just below it.
    while (it != by_first_.begin()) {
      --it;
      if (it->second.cidr.last() < c.first()) {
        break;
      }
      if (!best || it->second.seq < best->seq) {
        best = it->second;
      }
    }
    return best ? std::optional<net::Cidr>(best->cidr) : std::nullopt;
  }

  void add(const net::Cidr& c) { by_first_.emplace(c.first(), Entry{c, next_++}); }

 private:
  struct Entry {
    net::Cidr cidr;
    size_t seq = 0;
  };
  std::map<net::IpAddress, Entry> by_first_;
  size_t next_ = 0;
};

void parseAddresses(const api::IPAddressPool& cr,
                    Pool& pool,
                    CidrIndex& index,
                    ObjectErrors& errs) {
  const auto& addresses = cr.spec.addresses;
  if (addresses.empty()) {
    errs.fail("spec.addresses", "pool has no prefixes defined");
    return;
  }
  const std::string pool_name = goQuote(cr.metadata.name);
  for (size_t i = 0; i < addresses.size(); ++i) {
    const std::string field = indexed("spec.addresses", i);
    auto cidrs = net::parseCidrOrRange(addresses[i]);
    if (!cidrs) {
      errs.fail(field, "invalid CIDR " + goQuote(addresses[i]) + " in pool " + pool_name + ": " +
                           cidrs.error().message);
      pool.entries.emplace_back();
      continue;
    }
    for (const auto& c : *cidrs) {
      if (const auto other = index.overlap(c)) {
        errs.fail(field, "CIDR " + goQuote(c.toString()) + " in pool " + pool_name +
                             " overlaps with already defined CIDR " + goQuote(other->toString()));
      } else {
        index.add(c);
      }
    }
    pool.cidrs.insert(pool.cidrs.end(), cidrs->begin(), cidrs->end());
    pool.entries.push_back(std::move(*cidrs));
  }
}

std::optional<ServiceAllocation> parseAllocation(const api::IPAddressPool& cr,
                                                 const State& s,
                                                 ObjectErrors& errs) {
  if (!cr.spec.service_allocation) {
    return std::nullopt;
  }
  const auto& spec = *cr.spec.service_allocation;
  ServiceAllocation out;
  out.priority = spec.priority;
  for (size_t i = 0; i < spec.namespaces.size(); ++i) {
    if (!out.namespaces.insert(spec.namespaces[i]).second) {
      errs.fail(indexed("spec.serviceAllocation.namespaces", i),
                "duplicate definition in namespaces field");
    }
  }
  const auto& ns_selectors = spec.namespace_selectors;
  if (checkSelectors(ns_selectors, "spec.serviceAllocation.namespaceSelectors", errs)) {
    for (const auto& ns : s.in.namespaces) {
      if (api::matchesAny(ns_selectors, ns.metadata.labels)) {
        out.namespaces.insert(ns.metadata.name);
      }
    }
  }
  checkSelectors(spec.service_selectors, "spec.serviceAllocation.serviceSelectors", errs);
  out.service_selectors = spec.service_selectors;
  out.has_namespace_constraint = !spec.namespaces.empty() || !ns_selectors.empty();
  return out;
}

}  // namespace

void parsePools(State& s) {
  CidrIndex index;
  const NamedKind named{kPoolKind, "missing pool name", [](const std::string& name) {
                          return "duplicate definition of pool " + goQuote(name);
                        }};
  forEachNamed(s, s.in.pools, named, [&](const api::IPAddressPool& cr, ObjectErrors& errs) {
    Pool pool;
    pool.name = cr.metadata.name;
    pool.labels = cr.metadata.labels;
    pool.auto_assign = cr.spec.auto_assign.value_or(true);
    pool.avoid_buggy_ips = cr.spec.avoid_buggy_ips;
    parseAddresses(cr, pool, index, errs);
    pool.allocation = parseAllocation(cr, s, errs);
    if (errs.ok()) {
      s.cfg.pools.emplace(pool.name, std::move(pool));
    }
  });
}

}  // namespace ingot::config::detail
