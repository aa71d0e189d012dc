// SPDX-License-Identifier: Apache-2.0
// Allocator, part 2: finding the lowest usable addresses and choosing pools (allocator.cpp holds
// the state, pool changes and the sharing rules).
#include <algorithm>
#include <utility>

#include "controller/core/allocator.h"
#include "controller/core/go_format.h"
#include "controller/core/pool_selection.h"

namespace ingot::controller {
namespace {

ServiceFamily familyOfIps(const std::vector<net::IpAddress>& ips) {
  if (ips.size() == 2) {
    return ServiceFamily::Dual;
  }
  return ips.front().isV4() ? ServiceFamily::V4 : ServiceFamily::V6;
}

Error noAvailableInPool(const std::string& pool, ServiceFamily f) {
  return Error{ErrorCode::Exhausted, "no available IPs in pool " + pool + " for " +
                                         std::string(familyText(f)) + " IPFamily"};
}

Error unknownPool(const std::string& pool) {
  return Error{ErrorCode::NotFound, "unknown pool " + goQuote(pool)};
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Finding addresses

std::optional<net::IpAddress> Allocator::firstSharable(
    const ServiceRequest& svc,
    const net::Cidr& cidr,
    const std::optional<net::IpAddress>& below) const {
  const auto id = table_.sharingIdOf(svc.sharing);
  auto group = id ? shared_.find(*id) : shared_.end();
  if (group == shared_.end()) {
    return std::nullopt;
  }
  // Addresses already carrying this key, lowest first; stop at the first free address, which
  // would be chosen anyway. Cost: O(log n) plus the same-key addresses skipped for port clashes.
  for (auto it = group->second.lower_bound(cidr.first());
       it != group->second.end() && *it <= cidr.last() && (!below || *it < *below); ++it) {
    if (canUse(svc, *it)) {
      return *it;
    }
  }
  return std::nullopt;
}

std::optional<net::IpAddress> Allocator::firstUsable(const ServiceRequest& svc,
                                                     const PoolSpace& space,
                                                     net::Family f) const {
  // MetalLB scans the pool's CIDRs in spec order, each from its lowest address.
  for (const auto& cidr : space.pool().cidrs) {
    if (cidr.family() != f) {
      continue;
    }
    auto free = space.firstFreeIn(cidr);
    if (!svc.sharing.sharing.empty()) {
      if (auto shared = firstSharable(svc, cidr, free)) {
        return shared;
      }
    }
    if (free) {
      return free;
    }
  }
  return std::nullopt;
}

Allocator::Candidates Allocator::candidates(const ServiceRequest& svc,
                                            const PoolSpace& space,
                                            bool v4,
                                            bool v6) const {
  Candidates c;
  if (v4) {
    c.v4 = firstUsable(svc, space, net::Family::V4);
  }
  if (v6) {
    c.v6 = firstUsable(svc, space, net::Family::V6);
  }
  return c;
}

namespace {

/// selectIps chooses from one pool's candidates what a service of the given families and
/// policy gets (MetalLB's selectIPsForFamilyAndPolicy, aligned on the clusterIP family).
std::optional<std::vector<net::IpAddress>> selectIps(const std::optional<net::IpAddress>& v4,
                                                     const std::optional<net::IpAddress>& v6,
                                                     const FamilyRequest& req) {
  using Ips = std::vector<net::IpAddress>;
  switch (req.family) {
    case ServiceFamily::V4:
      return v4 ? std::optional<Ips>(Ips{*v4}) : std::nullopt;
    case ServiceFamily::V6:
      return v6 ? std::optional<Ips>(Ips{*v6}) : std::nullopt;
    case ServiceFamily::Dual:
      break;
  }
  if (v4 && v6 && req.policy != FamilyPolicy::SingleStack) {
    return Ips{*v4, *v6};
  }
  if (req.policy != FamilyPolicy::PreferDualStack) {
    return std::nullopt;
  }
  if (v4) {
    return Ips{*v4};
  }
  if (v6) {
    return Ips{*v6};
  }
  return std::nullopt;
}

bool wantsV4(ServiceFamily f) {
  return f != ServiceFamily::V6;
}
bool wantsV6(ServiceFamily f) {
  return f != ServiceFamily::V4;
}

}  // namespace

std::optional<std::vector<net::IpAddress>> Allocator::pickAutomatic(
    const ServiceRequest& svc, const FamilyRequest& families) const {
  using Ips = std::vector<net::IpAddress>;
  std::optional<Ips> primary_only;
  std::optional<Ips> secondary_only;
  std::vector<std::size_t> order;
  if (!automatic_order_) {
    order = automaticPoolOrder(spaces_, svc.namespace_, svc.labels);
  }
  for (std::size_t i : automatic_order_ ? *automatic_order_ : order) {
    const Candidates c =
        candidates(svc, spaces_[i], wantsV4(families.family), wantsV6(families.family));
    if (families.family != ServiceFamily::Dual) {
      if (auto ips = selectIps(c.v4, c.v6, families)) {
        return ips;
      }
      continue;
    }
    if (c.v4 && c.v6) {
      return families.policy == FamilyPolicy::SingleStack ? std::nullopt
                                                          : std::optional<Ips>(Ips{*c.v4, *c.v6});
    }
    // PreferDualStack falls back to one family: a pool offering both anywhere in the order wins
    // first, then the first pool with the primary family, then with the secondary one.
    const auto& primary = families.primary == net::Family::V4 ? c.v4 : c.v6;
    const auto& secondary = families.primary == net::Family::V4 ? c.v6 : c.v4;
    if (primary && !primary_only) {
      primary_only = Ips{*primary};
    }
    if (secondary && !secondary_only) {
      secondary_only = Ips{*secondary};
    }
  }
  if (families.family != ServiceFamily::Dual || families.policy != FamilyPolicy::PreferDualStack) {
    return std::nullopt;
  }
  return primary_only ? primary_only : secondary_only;
}

// ---------------------------------------------------------------------------------------------
// Allocation entry points

Result<std::vector<net::IpAddress>> Allocator::reassignExisting(const ServiceRequest& svc,
                                                                const FamilyRequest* families) {
  const std::vector<net::IpAddress> ips = table_.ips(*idOf(svc.key));
  if (families != nullptr && families->policy != FamilyPolicy::PreferDualStack &&
      familyOfIps(ips) != families->family) {
    return invalidArgument("IP for wrong family assigned alloc " +
                           std::string(familyText(familyOfIps(ips))) + " service family " +
                           std::string(familyText(families->family)));
  }
  if (auto ok = assign(svc, ips); !ok) {
    return ok.error();
  }
  return ips;
}

Result<std::vector<net::IpAddress>> Allocator::allocateFromPool(const ServiceRequest& svc,
                                                                const FamilyRequest& families,
                                                                const std::string& pool) {
  if (idOf(svc.key)) {
    return reassignExisting(svc, &families);
  }
  const PoolSpace* space = this->space(pool);
  if (space == nullptr) {
    return unknownPool(pool);
  }
  const Candidates c = candidates(svc, *space, wantsV4(families.family), wantsV6(families.family));
  auto ips = selectIps(c.v4, c.v6, families);
  if (!ips) {
    return noAvailableInPool(pool, families.family);
  }
  if (auto ok = assign(svc, *ips); !ok) {
    return ok.error();
  }
  return std::move(*ips);
}

Result<std::vector<net::IpAddress>> Allocator::allocate(const ServiceRequest& svc,
                                                        const FamilyRequest& families) {
  if (idOf(svc.key)) {
    return reassignExisting(svc, nullptr);
  }
  auto ips = pickAutomatic(svc, families);
  if (!ips || !assign(svc, *ips)) {
    return Error{ErrorCode::Exhausted, "no available IPs"};
  }
  return std::move(*ips);
}

Result<net::IpAddress> Allocator::allocateAdditionalFamily(const ServiceRequest& svc,
                                                           const net::IpAddress& existing,
                                                           const std::string& pool) {
  const PoolSpace* space = this->space(pool);
  if (space == nullptr) {
    return unknownPool(pool);
  }
  const bool want_v6 = existing.isV4();
  auto ip = firstUsable(svc, *space, want_v6 ? net::Family::V6 : net::Family::V4);
  if (!ip) {
    return noAvailableInPool(pool, want_v6 ? ServiceFamily::V6 : ServiceFamily::V4);
  }
  if (auto ok = assign(svc, {existing, *ip}); !ok) {
    return ok.error();
  }
  return *ip;
}

}  // namespace ingot::controller
