// SPDX-License-Identifier: Apache-2.0
#include "controller/core/pool_status.h"

#include <functional>
#include <limits>

#include "controller/core/pool_space.h"

namespace ingot::controller {
namespace {

struct Gauge {
  const char* name;
  const char* help;
  std::function<net::Count(const PoolCounters&)> value;
};

const std::vector<Gauge>& gauges() {
  static const std::vector<Gauge> kGauges = {
      {"metallb_allocator_addresses_total", "Number of usable IP addresses, per pool",
       [](const PoolCounters& c) { return c.capacity_v4 + c.capacity_v6; }},
      {"metallb_allocator_ipv4_addresses_total", "Number of usable IPv4 addresses, per pool",
       [](const PoolCounters& c) { return c.capacity_v4; }},
      {"metallb_allocator_ipv6_addresses_total", "Number of usable IPv6 addresses, per pool",
       [](const PoolCounters& c) { return c.capacity_v6; }},
      {"metallb_allocator_addresses_in_use_total", "Number of IP addresses in use, per pool",
       [](const PoolCounters& c) { return net::Count(c.assigned_v4) + net::Count(c.assigned_v6); }},
      {"metallb_allocator_ipv4_addresses_in_use_total", "Number of IPv4 addresses in use, per pool",
       [](const PoolCounters& c) { return net::Count(c.assigned_v4); }},
      {"metallb_allocator_ipv6_addresses_in_use_total", "Number of IPv6 addresses in use, per pool",
       [](const PoolCounters& c) { return net::Count(c.assigned_v6); }},
      {"metallb_allocator_services_allocated_total",
       "Number of services holding addresses, per pool",
       [](const PoolCounters& c) { return net::Count(net::U128{c.services}); }},
  };
  return kGauges;
}

}  // namespace

int64_t saturateToInt64(const net::Count& v) {
  constexpr auto kMax = static_cast<net::U128>(std::numeric_limits<int64_t>::max());
  return v > net::Count(kMax) ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(v.low());
}

double u128ToDouble(const net::Count& v) {
  return v.toDouble();
}

api::IPAddressPoolStatus poolStatus(const PoolCounters& counters) {
  api::IPAddressPoolStatus status;
  status.assigned_ipv4 = saturateToInt64(counters.assigned_v4);
  status.assigned_ipv6 = saturateToInt64(counters.assigned_v6);
  status.available_ipv4 = saturateToInt64(counters.availableV4());
  status.available_ipv6 = saturateToInt64(counters.availableV6());
  return status;
}

std::vector<PoolCounters> allPoolCounters(const Allocator& allocator) {
  std::vector<PoolCounters> out;
  for (const auto& name : allocator.poolNames()) {
    out.push_back(*allocator.counters(name));
  }
  return out;
}

std::vector<Metric> allocatorMetrics(const Allocator& allocator) {
  const auto counters = allPoolCounters(allocator);
  std::vector<Metric> out;
  out.reserve(counters.size() * gauges().size());
  for (const auto& g : gauges()) {
    for (const auto& c : counters) {
      out.push_back(Metric{g.name, g.help, {{"pool", c.pool}}, u128ToDouble(g.value(c))});
    }
  }
  return out;
}

}  // namespace ingot::controller
