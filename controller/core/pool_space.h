// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/net/count.h"
#include "common/net/ip.h"
#include "common/util/result.h"
#include "config/config.h"
#include "controller/core/interval_set.h"

namespace ingot::controller {

/// isBuggyIp reports whether ip is an IPv4 address ending in .0 or .255, which some consumer
/// routers drop as "smurf" traffic (IPAddressPool.spec.avoidBuggyIPs). Always false for IPv6.
bool isBuggyIp(const net::IpAddress& ip);

/// PoolSpace is one pool's address space and which of its addresses are in use. Addresses are
/// mapped to a dense index (skipping .0/.255 when avoidBuggyIPs is set) and the used indexes are
/// an IntervalSet, so finding the lowest free address is O(log n) whatever the pool size.
/// Capacities are exact (net::Count, one bit wider than U128: ::/0 holds 2^128 addresses).
class PoolSpace {
 public:
  explicit PoolSpace(config::Pool pool);

  const config::Pool& pool() const { return pool_; }
  const std::string& name() const { return pool_.name; }

  /// usable reports whether ip lies in one of the pool's CIDRs and may be handed out (an IPv4
  /// .0/.255 address of an avoidBuggyIPs pool is not usable: MetalLB treats it as outside the
  /// pool).
  bool usable(const net::IpAddress& ip) const;

  /// firstFreeIn returns the lowest usable, unused address of cidr (one of the pool's CIDRs).
  std::optional<net::IpAddress> firstFreeIn(const net::Cidr& cidr) const;

  /// markUsed / markFree record that a usable address gained its first user / lost its last one.
  void markUsed(const net::IpAddress& ip);
  void markFree(const net::IpAddress& ip);

  /// used is the number of distinct addresses of family f in use.
  net::U128 used(net::Family f) const;
  /// capacity is the number of usable addresses of family f (avoidBuggyIPs-adjusted).
  net::Count capacity(net::Family f) const { return f == net::Family::V4 ? cap_v4_ : cap_v6_; }

  /// hasFamily reports whether the pool has any CIDR of family f.
  bool hasFamily(net::Family f) const;

 private:
  bool avoidsBuggy(net::Family f) const;
  net::U128 toIndex(const net::IpAddress& ip) const;
  std::optional<net::IpAddress> fromIndex(net::Family f, net::U128 index) const;
  std::optional<net::IpAddress> firstUsableAtOrAfter(const net::IpAddress& ip) const;

  config::Pool pool_;
  IntervalSet used_v4_;
  IntervalSet used_v6_;
  net::Count cap_v4_;
  net::Count cap_v6_;
};

/// PoolIndex finds which pool of a pool set has a CIDR containing an address, in O(log c) for c
/// CIDRs. It requires the CIDRs of all pools to be disjoint.
class PoolIndex {
 public:
  /// build indexes spaces (by position). Fails naming both CIDRs and pools if two overlap.
  static Result<PoolIndex> build(const std::vector<PoolSpace>& spaces);

  /// find returns the position of the pool with a CIDR containing ip (usable or not).
  std::optional<std::size_t> find(const net::IpAddress& ip) const;

 private:
  struct Entry {
    net::IpAddress last;
    std::size_t pool = 0;
  };
  std::map<net::IpAddress, Entry> by_first_;
};

/// cidrCapacity returns the number of addresses of cidr that may be handed out: its size, minus
/// the .0/.255 addresses when avoid_buggy_ips is set (two per /24 for prefixes up to /24; for
/// longer prefixes one for a .0 first address and one for a .255 last address). Exact: 2^128 for
/// ::/0.
net::Count cidrCapacity(const net::Cidr& cidr, bool avoid_buggy_ips);

}  // namespace ingot::controller
