// SPDX-License-Identifier: Apache-2.0
#include "controller/core/pool_space.h"

#include <utility>

#include "controller/core/go_format.h"

namespace ingot::controller {
namespace {

// Usable addresses per /24 when .0 and .255 are skipped.
constexpr net::U128 kUsablePer24 = 254;

uint32_t lastOctet(const net::IpAddress& ip) {
  return static_cast<uint32_t>(ip.value() & 0xff);
}

}  // namespace

bool isBuggyIp(const net::IpAddress& ip) {
  if (!ip.isV4()) {
    return false;
  }
  const uint32_t octet = lastOctet(ip);
  return octet == 0 || octet == 255;
}

net::Count cidrCapacity(const net::Cidr& cidr, bool avoid_buggy_ips) {
  if (!avoid_buggy_ips || cidr.family() != net::Family::V4) {
    return net::Count::ofCidr(cidr);
  }
  net::U128 size = cidr.size();
  if (cidr.prefixLength() <= 24) {
    return size - (net::U128{2} << (24 - cidr.prefixLength()));
  }
  if (isBuggyIp(cidr.first())) {
    --size;
  }
  // A /32 holds one address: do not count it twice.
  if (cidr.last() != cidr.first() && isBuggyIp(cidr.last())) {
    --size;
  }
  return size;
}

PoolSpace::PoolSpace(config::Pool pool) : pool_(std::move(pool)) {
  for (const auto& cidr : pool_.cidrs) {
    net::Count& cap = cidr.family() == net::Family::V4 ? cap_v4_ : cap_v6_;
    cap = cap + cidrCapacity(cidr, pool_.avoid_buggy_ips);
  }
}

bool PoolSpace::avoidsBuggy(net::Family f) const {
  return pool_.avoid_buggy_ips && f == net::Family::V4;
}

bool PoolSpace::hasFamily(net::Family f) const {
  for (const auto& cidr : pool_.cidrs) {
    if (cidr.family() == f) {
      return true;
    }
  }
  return false;
}

bool PoolSpace::usable(const net::IpAddress& ip) const {
  if (avoidsBuggy(ip.family()) && isBuggyIp(ip)) {
    return false;
  }
  for (const auto& cidr : pool_.cidrs) {
    if (cidr.contains(ip)) {
      return true;
    }
  }
  return false;
}

net::U128 PoolSpace::toIndex(const net::IpAddress& ip) const {
  if (!avoidsBuggy(ip.family())) {
    return ip.value();
  }
  // Dense numbering of .1-.254: consecutive usable addresses get consecutive indexes, so a full
  // run of /24s coalesces into one IntervalSet run.
  return (ip.value() >> 8) * kUsablePer24 + lastOctet(ip) - 1;
}

std::optional<net::IpAddress> PoolSpace::fromIndex(net::Family f, net::U128 index) const {
  net::U128 value = index;
  if (avoidsBuggy(f)) {
    value = ((index / kUsablePer24) << 8) | (index % kUsablePer24 + 1);
  }
  if (value > net::maxValue(f)) {
    return std::nullopt;
  }
  return net::IpAddress::of(f, value);
}

std::optional<net::IpAddress> PoolSpace::firstUsableAtOrAfter(const net::IpAddress& ip) const {
  if (!avoidsBuggy(ip.family()) || !isBuggyIp(ip)) {
    return ip;
  }
  const net::U128 skip = lastOctet(ip) == 0 ? 1 : 2;  // .0 -> .1; .255 -> next .1
  if (ip.value() > net::maxValue(ip.family()) - skip) {
    return std::nullopt;
  }
  return ip.plus(skip);
}

std::optional<net::IpAddress> PoolSpace::firstFreeIn(const net::Cidr& cidr) const {
  auto start = firstUsableAtOrAfter(cidr.first());
  if (!start || *start > cidr.last()) {
    return std::nullopt;
  }
  const IntervalSet& used = cidr.family() == net::Family::V4 ? used_v4_ : used_v6_;
  auto index = used.firstAbsentAtOrAfter(toIndex(*start));
  if (!index) {
    return std::nullopt;
  }
  auto ip = fromIndex(cidr.family(), *index);
  if (!ip || *ip > cidr.last()) {
    return std::nullopt;
  }
  return ip;
}

void PoolSpace::markUsed(const net::IpAddress& ip) {
  (ip.isV4() ? used_v4_ : used_v6_).insert(toIndex(ip));
}

void PoolSpace::markFree(const net::IpAddress& ip) {
  (ip.isV4() ? used_v4_ : used_v6_).erase(toIndex(ip));
}

net::U128 PoolSpace::used(net::Family f) const {
  return f == net::Family::V4 ? used_v4_.size() : used_v6_.size();
}

Result<PoolIndex> PoolIndex::build(const std::vector<PoolSpace>& spaces) {
  PoolIndex index;
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    for (const auto& cidr : spaces[i].pool().cidrs) {
      auto [it, fresh] = index.by_first_.emplace(cidr.first(), Entry{cidr.last(), i});
      auto clash = it;
      if (fresh) {
        // Disjointness only needs checking against the neighbours in address order.
        auto next = std::next(it);
        if (it != index.by_first_.begin() && std::prev(it)->second.last >= cidr.first()) {
          clash = std::prev(it);
        } else if (next != index.by_first_.end() && next->first <= cidr.last()) {
          clash = next;
        } else {
          continue;
        }
      }
      return invalidArgument("CIDR " + goQuote(cidr.toString()) + " in pool " +
                             goQuote(spaces[i].name()) + " overlaps with addresses from " +
                             goQuote(clash->first.toString()) + " to " +
                             goQuote(clash->second.last.toString()) + " in pool " +
                             goQuote(spaces[clash->second.pool].name()));
    }
  }
  return index;
}

std::optional<std::size_t> PoolIndex::find(const net::IpAddress& ip) const {
  auto it = by_first_.upper_bound(ip);
  if (it == by_first_.begin()) {
    return std::nullopt;
  }
  --it;
  if (it->second.last < ip) {
    return std::nullopt;
  }
  return it->second.pool;
}

}  // namespace ingot::controller
