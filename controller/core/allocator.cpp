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

void Allocator::reserve(std::size_t services) {
  table_.reserve(services);
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
    const AllocationTable::Id id = *idOf(key);
    const std::vector<net::IpAddress> ips = table_.ips(id);
    const std::string& pool = spaces_[table_.pool(id)].name();
    const auto owner = ownerIn(spaces, *index, ips);
    if (!owner) {
      out.released.push_back({key, pool, ips});
    } else if (spaces[*owner].name() != pool) {
      out.moved.push_back({key, pool, spaces[*owner].name()});
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
  cacheAutomaticOrder();
  rebuildUsage();
  return out;
}

void Allocator::rebuildUsage() {
  services_per_pool_.assign(spaces_.size(), 0);
  table_.forEach([&](AllocationTable::Id id) {
    const std::vector<net::IpAddress> ips = table_.ips(id);
    const std::size_t pool = *ownerOf(ips);
    table_.setPool(id, static_cast<uint16_t>(pool));
    ++services_per_pool_[pool];
    for (const auto& ip : ips) {
      spaces_[pool].markUsed(ip);  // idempotent for a shared address
    }
  });
}

void Allocator::cacheAutomaticOrder() {
  // Without any serviceAllocation the order depends on no service: compute it once.
  const bool any_allocation = std::any_of(spaces_.begin(), spaces_.end(), [](const PoolSpace& s) {
    return s.pool().allocation.has_value();
  });
  automatic_order_.reset();
  if (!any_allocation) {
    automatic_order_ = automaticPoolOrder(spaces_, "", {});
  }
}

void Allocator::reset() {
  automatic_order_.reset();
  spaces_.clear();
  by_name_.clear();
  index_ = PoolIndex{};
  services_per_pool_.clear();
  table_.clear();
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
  table_.forEachUser(ip, [&](AllocationTable::Id id) {
    const std::string_view user = table_.key(id);
    if (user != service_key) {
      others.emplace_back(user);
    }
  });
  std::sort(others.begin(), others.end());
  return others;
}

bool Allocator::portFree(const std::vector<std::string>& others, const Port& port) const {
  for (const auto& other : others) {
    const auto& ports = table_.ports(*idOf(other));
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
  if (!sharingOk(table_.sharing(*idOf(others.front())), svc.sharing)) {
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
  if (!sharingOk(table_.sharing(*idOf(others.front())), svc.sharing)) {
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
  const auto held = idOf(svc.key);
  if (held && table_.ports(*held) == svc.ports && table_.sharing(*held) == svc.sharing &&
      table_.ips(*held) == normalized(ips)) {
    const PoolSpace& pool = spaces_[table_.pool(*held)];
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
  // ips is usually in order already (IPv4 first): copy it only to sort it.
  if (std::is_sorted(ips.begin(), ips.end())) {
    record(svc, held, static_cast<uint16_t>(*owner), ips);
  } else {
    record(svc, held, static_cast<uint16_t>(*owner), normalized(ips));
  }
  return {};
}

void Allocator::record(const ServiceRequest& svc,
                       std::optional<AllocationTable::Id> held,
                       uint16_t pool,
                       const std::vector<net::IpAddress>& ips) {
  if (held) {
    release(*held);
  }
  // At most two addresses (checkAssign): which of them nobody held before, as bits.
  unsigned fresh = 0;
  for (std::size_t i = 0; i < ips.size() && i < 2; ++i) {
    fresh |= table_.used(ips[i]) ? 0U : 1U << i;
  }
  const AllocationTable::Id id = table_.insert(svc.key, pool, ips, svc.ports, svc.sharing);
  for (std::size_t i = 0; i < ips.size() && i < 2; ++i) {
    if ((fresh & (1U << i)) == 0) {
      continue;
    }
    spaces_[pool].markUsed(ips[i]);
    if (!svc.sharing.sharing.empty()) {
      shared_[table_.sharingId(id)].insert(ips[i]);
    }
  }
  ++services_per_pool_[pool];
}

bool Allocator::unassign(const std::string& service_key) {
  const auto id = idOf(service_key);
  if (!id) {
    return false;
  }
  release(*id);
  return true;
}

void Allocator::release(AllocationTable::Id id) {
  const std::vector<net::IpAddress> ips = table_.ips(id);
  const std::size_t pool = table_.pool(id);
  const uint32_t sharing = table_.sharingId(id);
  table_.erase(id);
  for (const auto& ip : ips) {
    if (table_.used(ip)) {
      continue;
    }
    spaces_[pool].markFree(ip);
    if (auto group = shared_.find(sharing); group != shared_.end()) {
      group->second.erase(ip);
      if (group->second.empty()) {
        shared_.erase(group);
      }
    }
  }
  --services_per_pool_[pool];
}

// ---------------------------------------------------------------------------------------------
// Queries

std::optional<Allocation> Allocator::find(const std::string& service_key) const {
  const auto id = idOf(service_key);
  if (!id) {
    return std::nullopt;
  }
  return Allocation{spaces_[table_.pool(*id)].name(), table_.ips(*id), table_.ports(*id),
                    table_.sharing(*id)};
}

std::string Allocator::poolOf(const std::string& service_key) const {
  const auto id = idOf(service_key);
  return id ? spaces_[table_.pool(*id)].name() : std::string();
}

AllocationKey Allocator::allocationKey(const std::string& service_key) const {
  const auto id = idOf(service_key);
  return id ? table_.sharing(*id) : AllocationKey{};
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
  c.services = services_per_pool_[by_name_.at(pool)];
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
  keys.reserve(table_.size());
  table_.forEach([&](AllocationTable::Id id) { keys.emplace_back(table_.key(id)); });
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::vector<std::string> Allocator::usersOf(const net::IpAddress& ip) const {
  return othersOn("", ip);
}

}  // namespace ingot::controller
