// SPDX-License-Identifier: Apache-2.0
#include "controller/core/allocator.h"

#include <algorithm>
#include <utility>

#include "controller/core/go_format.h"
#include "controller/core/pool_selection.h"

namespace ingot::controller {
namespace {

/// sharingOk is MetalLB's rule: both keys set and equal, and the same backends.
bool sharingOk(const AllocationKey& existing, const AllocationKey& wanted) {
  return !existing.sharing.empty() && !wanted.sharing.empty() &&
         existing.sharing == wanted.sharing && existing.backend == wanted.backend;
}

std::string joinComma(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) {
      out += ',';
    }
    out += item;
  }
  return out;
}

/// normalized puts IPv4 before IPv6 (IpAddress ordering), the order Ingot writes to status.
std::vector<net::IpAddress> normalized(std::vector<net::IpAddress> ips) {
  std::sort(ips.begin(), ips.end());
  return ips;
}

std::vector<PoolSpace> buildSpaces(const std::map<std::string, config::Pool>& pools) {
  std::vector<PoolSpace> spaces;
  spaces.reserve(pools.size());
  for (const auto& [name, pool] : pools) {
    config::Pool copy = pool;
    copy.name = name;  // the map key is the pool's identity
    spaces.emplace_back(std::move(copy));
  }
  return spaces;
}

/// ownerIn returns the position of the pool in which every address of ips is usable.
std::optional<std::size_t> ownerIn(const std::vector<PoolSpace>& spaces,
                                   const PoolIndex& index,
                                   const std::vector<net::IpAddress>& ips) {
  std::optional<std::size_t> owner;
  for (const auto& ip : ips) {
    auto pos = index.find(ip);
    if (!pos || !spaces[*pos].usable(ip) || (owner && *owner != *pos)) {
      return std::nullopt;
    }
    owner = pos;
  }
  return owner;
}

}  // namespace

std::string Port::toString() const {
  return protocol + "/" + std::to_string(port);
}

std::string_view familyText(ServiceFamily f) {
  switch (f) {
    case ServiceFamily::V4:
      return "ipv4";
    case ServiceFamily::V6:
      return "ipv6";
    case ServiceFamily::Dual:
      return "dual";
  }
  return "unknown";
}

std::size_t Allocator::IpHash::operator()(const net::IpAddress& ip) const {
  const auto lo = static_cast<uint64_t>(ip.value());
  const auto hi = static_cast<uint64_t>(ip.value() >> 64);
  uint64_t h = (lo * 0x9e3779b97f4a7c15ULL) ^ (hi + 0x632be59bd9b4e019ULL) ^
               (static_cast<uint64_t>(ip.family()) << 59);
  h ^= h >> 31;
  return static_cast<std::size_t>(h * 0xbf58476d1ce4e5b9ULL);
}

void Allocator::IpUsers::add(const std::string* user) {
  if (first == nullptr) {
    first = user;
  } else {
    more.push_back(user);
  }
}

void Allocator::IpUsers::remove(const std::string* user) {
  if (first == user) {
    first = more.empty() ? nullptr : more.back();
    if (!more.empty()) {
      more.pop_back();
    }
    return;
  }
  more.erase(std::remove(more.begin(), more.end(), user), more.end());
}

void Allocator::reserve(std::size_t services) {
  allocs_.reserve(services);
  ips_.reserve(services);
}

// ---------------------------------------------------------------------------------------------
// Pools

Result<SetPoolsOutcome> Allocator::setPools(const std::map<std::string, config::Pool>& pools) {
  std::vector<PoolSpace> spaces = buildSpaces(pools);
  auto index = PoolIndex::build(spaces);
  if (!index) {
    return index.error();
  }
  // Decide each allocation's fate against the new pools before touching any state.
  SetPoolsOutcome out;
  for (const auto& key : serviceKeys()) {
    const Allocation& alloc = allocs_.at(key);
    const auto owner = ownerIn(spaces, *index, alloc.ips);
    if (!owner) {
      out.released.push_back({key, alloc.pool, alloc.ips});
    } else if (spaces[*owner].name() != alloc.pool) {
      out.moved.push_back({key, alloc.pool, spaces[*owner].name()});
    }
  }
  for (const auto& r : out.released) {
    unassign(r.service);
  }
  spaces_ = std::move(spaces);
  index_ = std::move(*index);
  by_name_.clear();
  for (std::size_t i = 0; i < spaces_.size(); ++i) {
    by_name_.emplace(spaces_[i].name(), i);
  }
  rebuildUsage();
  return out;
}

void Allocator::rebuildUsage() {
  services_per_pool_.clear();
  for (auto& [key, alloc] : allocs_) {
    alloc.pool = spaces_[*ownerOf(alloc.ips)].name();
    ++services_per_pool_[alloc.pool];
  }
  for (const auto& [ip, users] : ips_) {
    spaces_[*index_.find(ip)].markUsed(ip);
  }
}

void Allocator::reset() {
  spaces_.clear();
  by_name_.clear();
  index_ = PoolIndex{};
  services_per_pool_.clear();
  allocs_.clear();
  ips_.clear();
  shared_.clear();
}

const PoolSpace* Allocator::space(const std::string& pool) const {
  auto it = by_name_.find(pool);
  return it == by_name_.end() ? nullptr : &spaces_[it->second];
}

std::optional<std::size_t> Allocator::ownerOf(const std::vector<net::IpAddress>& ips) const {
  return ownerIn(spaces_, index_, ips);
}

std::string Allocator::poolFor(const std::vector<net::IpAddress>& ips) const {
  auto owner = ips.empty() ? std::nullopt : ownerOf(ips);
  return owner ? spaces_[*owner].name() : std::string();
}

// ---------------------------------------------------------------------------------------------
// Sharing rules

std::vector<std::string> Allocator::othersOn(const std::string& service_key,
                                             const net::IpAddress& ip) const {
  std::vector<std::string> others;
  auto it = ips_.find(ip);
  if (it == ips_.end()) {
    return others;
  }
  it->second.forEach([&](const std::string& user) {
    if (user != service_key) {
      others.push_back(user);
    }
  });
  std::sort(others.begin(), others.end());
  return others;
}

bool Allocator::portFree(const std::vector<std::string>& others, const Port& port) const {
  for (const auto& other : others) {
    const auto& ports = allocs_.at(other).ports;
    if (std::find(ports.begin(), ports.end(), port) != ports.end()) {
      return false;
    }
  }
  return true;
}

bool Allocator::canUse(const ServiceRequest& svc, const net::IpAddress& ip) const {
  const auto others = othersOn(svc.key, ip);
  if (others.empty()) {
    return true;
  }
  // Every user of an address has the same key (assign enforces it), so any one stands for all.
  if (!sharingOk(allocs_.at(others.front()).key, svc.sharing)) {
    return false;
  }
  return std::all_of(svc.ports.begin(), svc.ports.end(),
                     [&](const Port& p) { return portFree(others, p); });
}

Result<void> Allocator::checkSharing(const ServiceRequest& svc, const net::IpAddress& ip) const {
  const auto others = othersOn(svc.key, ip);
  if (others.empty()) {
    return {};
  }
  if (!sharingOk(allocs_.at(others.front()).key, svc.sharing)) {
    return Error{ErrorCode::Conflict, "can't change sharing key for " + goQuote(svc.key) +
                                          ", address also in use by " + joinComma(others)};
  }
  for (const auto& port : svc.ports) {
    if (!portFree(others, port)) {
      return Error{ErrorCode::Conflict,
                   "port " + port.toString() + " is already in use on " + goQuote(ip.toString())};
    }
  }
  return {};
}

Result<void> Allocator::checkAssign(const ServiceRequest& svc,
                                    const std::vector<net::IpAddress>& ips,
                                    const PoolSpace& space) const {
  if (!admits(space.pool(), svc.namespace_, svc.labels)) {
    return invalidArgument("pool " + space.name() + " not compatible for ip assignment");
  }
  if (ips.size() > 2) {
    return invalidArgument("more than two addresses " + goQuoteList(ipStrings(ips)));
  }
  if (ips.size() == 2 && ips[0].family() == ips[1].family()) {
    return invalidArgument(goQuote(ips[0].toString()) + " " + goQuote(ips[1].toString()) +
                           " has the same family");
  }
  for (const auto& ip : ips) {
    if (auto ok = checkSharing(svc, ip); !ok) {
      return ok;
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Assign / unassign

Result<void> Allocator::assign(const ServiceRequest& svc, const std::vector<net::IpAddress>& ips) {
  if (ips.empty()) {
    return invalidArgument("no addresses to assign to " + goQuote(svc.key));
  }
  // Re-assigning exactly what the service holds cannot clash with anyone (every later user of
  // its addresses was checked against it); only the pool's admission may have changed.
  if (auto it = allocs_.find(svc.key); it != allocs_.end() && it->second.ports == svc.ports &&
                                       it->second.key == svc.sharing &&
                                       it->second.ips == normalized(ips)) {
    const PoolSpace& pool = spaces_[by_name_.at(it->second.pool)];
    if (!admits(pool.pool(), svc.namespace_, svc.labels)) {
      return invalidArgument("pool " + pool.name() + " not compatible for ip assignment");
    }
    return {};
  }
  auto owner = ownerOf(ips);
  if (!owner) {
    return invalidArgument(goQuoteList(ipStrings(ips)) + " is not allowed in config");
  }
  const PoolSpace& pool = spaces_[*owner];
  if (auto ok = checkAssign(svc, ips, pool); !ok) {
    return ok;
  }
  record(svc.key, Allocation{pool.name(), normalized(ips), svc.ports, svc.sharing});
  return {};
}

void Allocator::record(const std::string& service_key, Allocation alloc) {
  unassign(service_key);
  auto [it, fresh] = allocs_.emplace(service_key, std::move(alloc));
  const Allocation& a = it->second;
  PoolSpace& pool = spaces_[by_name_.at(a.pool)];
  for (const auto& ip : a.ips) {
    IpUsers& users = ips_[ip];
    if (users.empty()) {
      pool.markUsed(ip);
      if (!a.key.sharing.empty()) {
        shared_[a.key].insert(ip);
      }
    }
    users.add(&it->first);
  }
  ++services_per_pool_[a.pool];
}

bool Allocator::unassign(const std::string& service_key) {
  auto it = allocs_.find(service_key);
  if (it == allocs_.end()) {
    return false;
  }
  const Allocation& a = it->second;
  PoolSpace* pool = by_name_.count(a.pool) ? &spaces_[by_name_.at(a.pool)] : nullptr;
  for (const auto& ip : a.ips) {
    auto users = ips_.find(ip);
    users->second.remove(&it->first);
    if (!users->second.empty()) {
      continue;
    }
    ips_.erase(users);
    if (pool != nullptr) {
      pool->markFree(ip);
    }
    if (auto group = shared_.find(a.key); group != shared_.end()) {
      group->second.erase(ip);
      if (group->second.empty()) {
        shared_.erase(group);
      }
    }
  }
  if (auto count = services_per_pool_.find(a.pool);
      count != services_per_pool_.end() && --count->second == 0) {
    services_per_pool_.erase(count);
  }
  allocs_.erase(it);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Queries

const Allocation* Allocator::find(const std::string& service_key) const {
  auto it = allocs_.find(service_key);
  return it == allocs_.end() ? nullptr : &it->second;
}

std::string Allocator::poolOf(const std::string& service_key) const {
  const Allocation* a = find(service_key);
  return a == nullptr ? std::string() : a->pool;
}

AllocationKey Allocator::allocationKey(const std::string& service_key) const {
  const Allocation* a = find(service_key);
  return a == nullptr ? AllocationKey{} : a->key;
}

std::optional<PoolCounters> Allocator::counters(const std::string& pool) const {
  const PoolSpace* s = space(pool);
  if (s == nullptr) {
    return std::nullopt;
  }
  PoolCounters c;
  c.pool = pool;
  c.assigned_v4 = s->used(net::Family::V4);
  c.assigned_v6 = s->used(net::Family::V6);
  c.capacity_v4 = s->capacity(net::Family::V4);
  c.capacity_v6 = s->capacity(net::Family::V6);
  auto count = services_per_pool_.find(pool);
  c.services = count == services_per_pool_.end() ? 0 : count->second;
  return c;
}

std::vector<std::string> Allocator::poolNames() const {
  std::vector<std::string> names;
  names.reserve(spaces_.size());
  for (const auto& s : spaces_) {
    names.push_back(s.name());
  }
  return names;
}

std::vector<std::string> Allocator::serviceKeys() const {
  std::vector<std::string> keys;
  keys.reserve(allocs_.size());
  for (const auto& [key, alloc] : allocs_) {
    keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> Allocator::usersOf(const net::IpAddress& ip) const {
  return othersOn("", ip);
}

}  // namespace ingot::controller
