// SPDX-License-Identifier: Apache-2.0
// IPAddressPool.status and the allocator metrics (MetalLB's names), computed from the
// allocator's exact 128-bit counters.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api/types.h"
#include "common/net/count.h"
#include "common/net/ip.h"
#include "controller/core/allocator.h"

namespace ingot::controller {

/// saturateToInt64 converts a count for an int64 API field: values above INT64_MAX (an IPv6
/// /64 has 2^64 addresses) become INT64_MAX. Never negative.
int64_t saturateToInt64(const net::Count& v);

/// u128ToDouble converts a count for a Prometheus sample (rounded to double precision).
double u128ToDouble(const net::Count& v);

/// poolStatus builds IPAddressPool.status: assigned and available addresses per family.
/// available = capacity - assigned, exact before the int64 saturation, never negative.
api::IPAddressPoolStatus poolStatus(const PoolCounters& counters);

/// allPoolCounters returns every pool's counters, by pool name.
std::vector<PoolCounters> allPoolCounters(const Allocator& allocator);

/// Metric is one gauge sample for a Prometheus text endpoint.
struct Metric {
  std::string name;  ///< full name, e.g. "metallb_allocator_addresses_total"
  std::string help;
  std::vector<std::pair<std::string, std::string>> labels;
  double value = 0;
};

/// allocatorMetrics returns MetalLB's allocator gauges for every pool, label `pool`, grouped by
/// metric name then by pool name: addresses_total (+ ipv4/ipv6, capacity after avoidBuggyIPs),
/// addresses_in_use_total (+ ipv4/ipv6, distinct addresses: a shared one counts once) and
/// services_allocated_total. Capacities are exact (MetalLB caps IPv6 CIDRs of 62+ host bits at
/// INT64_MAX); a double carries them with 53 bits of precision.
std::vector<Metric> allocatorMetrics(const Allocator& allocator);

}  // namespace ingot::controller
