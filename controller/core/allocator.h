// SPDX-License-Identifier: Apache-2.0
// The controller's address allocator: MetalLB's internal/allocator semantics (allocation and
// pool changes) over interval sets, so pools of any size (an IPv4 /8, an IPv6 /48, ::/0) cost
// memory only for the addresses in use, and finding the lowest usable address is O(log n).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "common/net/ip.h"
#include "common/util/result.h"
#include "config/config.h"
#include "controller/core/allocation_table.h"
#include "controller/core/pool_space.h"

namespace ingot::controller {

/// ServiceRequest is what the allocator needs to know about a service.
struct ServiceRequest {
  std::string key;         ///< "namespace/name"
  std::string namespace_;  ///< for serviceAllocation.namespaces
  api::StringMap labels;   ///< for serviceAllocation.serviceSelectors
  std::vector<Port> ports;
  AllocationKey sharing;
};

/// ServiceFamily is the family of a service's clusterIPs (MetalLB's ipfamily.Family).
enum class ServiceFamily { V4, V6, Dual };

/// familyText returns MetalLB's spelling: "ipv4", "ipv6" or "dual".
std::string_view familyText(ServiceFamily f);

enum class FamilyPolicy { SingleStack, PreferDualStack, RequireDualStack };

/// FamilyRequest says which families a new allocation must have. primary is spec.ipFamilies[0]
/// (IPv4 when unset); it only matters when PreferDualStack falls back to one family.
struct FamilyRequest {
  ServiceFamily family = ServiceFamily::V4;
  FamilyPolicy policy = FamilyPolicy::SingleStack;
  net::Family primary = net::Family::V4;
};

/// Allocation is what a service holds: one or two addresses (IPv4 first) of one pool (a copy:
/// the allocator stores it in compact form).
struct Allocation {
  std::string pool;
  std::vector<net::IpAddress> ips;
  std::vector<Port> ports;
  AllocationKey key;
};

/// PoolMove reports an allocation whose addresses now belong to another pool after setPools.
struct PoolMove {
  std::string service;
  std::string from;
  std::string to;
};

/// Released reports an allocation dropped by setPools because its addresses are in no pool.
struct Released {
  std::string service;
  std::string pool;
  std::vector<net::IpAddress> ips;
};

/// SetPoolsOutcome lists, by service key, what a pool change did to existing allocations.
struct SetPoolsOutcome {
  std::vector<PoolMove> moved;
  std::vector<Released> released;
};

/// PoolCounters are a pool's exact usage: distinct addresses in use (a shared address counts
/// once) and usable addresses, per family.
struct PoolCounters {
  std::string pool;
  net::U128 assigned_v4 = 0;
  net::U128 assigned_v6 = 0;
  net::Count capacity_v4;  ///< exact, also for ::/0 (2^128, one more than a U128 holds)
  net::Count capacity_v6;
  uint64_t services = 0;  ///< services holding addresses of this pool
  /// availableV4 / availableV6: capacity - assigned, exact, never negative.
  net::Count availableV4() const { return capacity_v4 - net::Count(assigned_v4); }
  net::Count availableV6() const { return capacity_v6 - net::Count(assigned_v6); }
};

/// Allocator tracks pools and which service holds which addresses. It is an in-memory engine:
/// no I/O, single-threaded, deterministic (pools are tried in a fixed order, never map order).
class Allocator {
 public:
  /// setPools installs a new pool set (a Config's pools). Allocations whose addresses all lie
  /// in one new pool are re-homed there; the others are released. Fails, changing nothing, if
  /// two CIDRs overlap (config::parse already rejects that).
  Result<SetPoolsOutcome> setPools(const std::map<std::string, config::Pool>& pools);

  /// reset forgets every pool and allocation.
  void reset();

  /// assign gives svc exactly ips (one, or one per family), if allowed: all in one pool that
  /// admits the service, and each address unused or shared legally (same non-empty sharing key,
  /// same backend key, no common port). Idempotent; replaces svc's previous allocation.
  /// Errors are MetalLB's texts ("%q is not allowed in config", "can't change sharing key ...").
  Result<void> assign(const ServiceRequest& svc, const std::vector<net::IpAddress>& ips);

  /// allocateFromPool assigns the lowest usable addresses of the named pool for the requested
  /// families. A service that already holds addresses keeps them (re-assigned).
  Result<std::vector<net::IpAddress>> allocateFromPool(const ServiceRequest& svc,
                                                       const FamilyRequest& families,
                                                       const std::string& pool);

  /// allocate picks a pool automatically: pools whose serviceAllocation admits the service
  /// (priority > 0 ascending, then priority 0; ties by name), then autoAssign pools without
  /// serviceAllocation in name order. A pool offering every requested family wins; for
  /// PreferDualStack the first pool offering the primary, then the secondary family follows.
  Result<std::vector<net::IpAddress>> allocate(const ServiceRequest& svc,
                                               const FamilyRequest& families);

  /// allocateAdditionalFamily adds an address of the other family from pool to a service that
  /// holds exactly `existing` (PreferDualStack upgrade). Returns the new address.
  Result<net::IpAddress> allocateAdditionalFamily(const ServiceRequest& svc,
                                                  const net::IpAddress& existing,
                                                  const std::string& pool);

  /// unassign releases svc's addresses. Returns false if it held none.
  bool unassign(const std::string& service_key);

  /// find returns svc's allocation, or nullopt.
  std::optional<Allocation> find(const std::string& service_key) const;

  /// poolOf returns the pool svc's addresses come from, "" if it holds none.
  std::string poolOf(const std::string& service_key) const;

  /// allocationKey returns svc's sharing and backend keys, empty when it holds nothing.
  AllocationKey allocationKey(const std::string& service_key) const;

  /// poolFor returns the pool holding all of ips (usable there), "" if none does.
  std::string poolFor(const std::vector<net::IpAddress>& ips) const;

  /// counters returns a pool's usage, nullopt for an unknown pool.
  std::optional<PoolCounters> counters(const std::string& pool) const;

  /// poolNames lists the pools in name order.
  std::vector<std::string> poolNames() const;

  /// serviceKeys lists the services holding addresses, sorted.
  std::vector<std::string> serviceKeys() const;

  /// usersOf lists the services holding ip, sorted (empty when unused).
  std::vector<std::string> usersOf(const net::IpAddress& ip) const;

  /// reserve sizes the internal tables for about n services (avoids rehashing in a full pass).
  void reserve(std::size_t services);

 private:
  struct Candidates {
    std::optional<net::IpAddress> v4;
    std::optional<net::IpAddress> v6;
  };

  const PoolSpace* space(const std::string& pool) const;
  std::optional<std::size_t> ownerOf(const std::vector<net::IpAddress>& ips) const;
  std::vector<std::string> othersOn(const std::string& service_key, const net::IpAddress& ip) const;
  bool portFree(const std::vector<std::string>& others, const Port& port) const;
  bool canUse(const ServiceRequest& svc, const net::IpAddress& ip) const;
  Result<void> checkSharing(const ServiceRequest& svc, const net::IpAddress& ip) const;
  Result<void> checkAssign(const ServiceRequest& svc,
                           const std::vector<net::IpAddress>& ips,
                           const PoolSpace& space) const;
  /// record stores svc's allocation, replacing what it held (held: its id, looked up once).
  void record(const ServiceRequest& svc,
              std::optional<AllocationTable::Id> held,
              uint16_t pool,
              const std::vector<net::IpAddress>& ips);
  /// release frees what the service with this id holds.
  void release(AllocationTable::Id id);
  std::optional<AllocationTable::Id> idOf(const std::string& service_key) const {
    return table_.find(service_key);
  }
  void rebuildUsage();
  void cacheAutomaticOrder();
  std::optional<net::IpAddress> firstUsable(const ServiceRequest& svc,
                                            const PoolSpace& space,
                                            net::Family f) const;
  std::optional<net::IpAddress> firstSharable(const ServiceRequest& svc,
                                              const net::Cidr& cidr,
                                              const std::optional<net::IpAddress>& below) const;
  Candidates candidates(const ServiceRequest& svc, const PoolSpace& space, bool v4, bool v6) const;
  std::optional<std::vector<net::IpAddress>> pickAutomatic(const ServiceRequest& svc,
                                                           const FamilyRequest& families) const;
  Result<std::vector<net::IpAddress>> reassignExisting(const ServiceRequest& svc,
                                                       const FamilyRequest* families);

  std::vector<PoolSpace> spaces_;               // sorted by pool name
  std::map<std::string, std::size_t> by_name_;  // pool name -> index in spaces_
  PoolIndex index_;
  std::vector<uint64_t> services_per_pool_;  // by position in spaces_
  AllocationTable table_;
  std::map<uint32_t, std::set<net::IpAddress>> shared_;  // by sharing id; non-empty keys only
  // automaticPoolOrder when no pool has a serviceAllocation (then it is the same for every
  // service); nullopt otherwise.
  std::optional<std::vector<std::size_t>> automatic_order_;
};

}  // namespace ingot::controller
