// SPDX-License-Identifier: Apache-2.0
// The allocator's storage: which service holds which addresses, in a compact form. One fixed-size
// record per service (addresses as 128-bit values, pool as an index, ports and sharing keys as
// interned ids), service keys in one character arena, and two open-addressing indexes of 32-bit
// handles (key -> service, address -> services). About 80 bytes per allocation, where hash maps
// of strings and vectors took ~420.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/net/ip.h"

namespace ingot::controller {

/// Port is one (protocol, port) pair of a Service; two services may share an address only if
/// none of their Ports are equal.
struct Port {
  std::string protocol;
  int32_t port = 0;
  /// toString renders "TCP/80", the form MetalLB's conflict message uses.
  std::string toString() const;
  friend auto operator<=>(const Port&, const Port&) = default;
  friend bool operator==(const Port&, const Port&) = default;
};

/// AllocationKey is what decides whether services may share an address: the sharing key
/// (allow-shared-ip annotation; empty = no sharing) and the backend key (the pod selector when
/// externalTrafficPolicy is Local, "" otherwise).
struct AllocationKey {
  std::string sharing;
  std::string backend;
  friend auto operator<=>(const AllocationKey&, const AllocationKey&) = default;
  friend bool operator==(const AllocationKey&, const AllocationKey&) = default;
};

/// HandleIndex is an open-addressing hash index (linear probing, backward-shift deletion) of
/// 32-bit handles: 4 bytes per slot, at most 70% full. It stores no keys: the caller passes the
/// hash of what it looks for and a predicate that tells whether a handle matches, and for
/// inserts and erases a function giving the hash of any stored handle (to move it). Several
/// handles may match the same probe (an address with several users).
class HandleIndex {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;

  /// forEachMatch calls f(handle) for every stored handle on hash's probe chain that matches.
  template <typename Match, typename F>
  void forEachMatch(uint64_t hash, Match&& match, F&& f) const {
    if (slots_.empty()) {
      return;
    }
    for (std::size_t i = hash & mask_; slots_[i] != kEmpty; i = (i + 1) & mask_) {
      if (match(slots_[i])) {
        f(slots_[i]);
      }
    }
  }

  /// find returns the first matching handle.
  template <typename Match>
  std::optional<uint32_t> find(uint64_t hash, Match&& match) const {
    std::optional<uint32_t> out;
    forEachMatch(hash, match, [&](uint32_t h) {
      if (!out) {
        out = h;
      }
    });
    return out;
  }

  /// insert adds handle (stored under hash).
  template <typename HashOf>
  void insert(uint64_t hash, uint32_t handle, HashOf&& hash_of) {
    if ((count_ + 1) * 10 > slots_.size() * 7) {
      grow(slots_.empty() ? 16 : slots_.size() * 2, hash_of);
    }
    place(hash, handle);
    ++count_;
  }

  /// erase removes handle, which must be stored under hash.
  template <typename HashOf>
  void erase(uint64_t hash, uint32_t handle, HashOf&& hash_of) {
    std::size_t hole = hash & mask_;
    while (slots_[hole] != handle) {
      hole = (hole + 1) & mask_;
    }
    for (std::size_t j = (hole + 1) & mask_; slots_[j] != kEmpty; j = (j + 1) & mask_) {
      const std::size_t home = hash_of(slots_[j]) & mask_;
      // Leave slots_[j] where it is when its home lies cyclically in (hole, j].
      const bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (!stays) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = kEmpty;
    --count_;
  }

  /// reserve sizes the table for n handles.
  template <typename HashOf>
  void reserve(std::size_t n, HashOf&& hash_of) {
    std::size_t size = slots_.empty() ? 16 : slots_.size();
    while (n * 10 > size * 7) {
      size *= 2;
    }
    if (size > slots_.size()) {
      grow(size, hash_of);
    }
  }

  void clear() {
    slots_.clear();
    mask_ = 0;
    count_ = 0;
  }

 private:
  void place(uint64_t hash, uint32_t handle) {
    std::size_t i = hash & mask_;
    while (slots_[i] != kEmpty) {
      i = (i + 1) & mask_;
    }
    slots_[i] = handle;
  }

  template <typename HashOf>
  void grow(std::size_t size, HashOf&& hash_of) {
    std::vector<uint32_t> old(size, kEmpty);
    old.swap(slots_);
    mask_ = size - 1;
    for (uint32_t h : old) {
      if (h != kEmpty) {
        place(hash_of(h), h);
      }
    }
  }

  std::vector<uint32_t> slots_;
  std::size_t mask_ = 0;
  std::size_t count_ = 0;
};

/// InternTable gives each distinct value a small id, shared by every holder and reference
/// counted; an id is reused once its last holder released it.
template <typename T>
class InternTable {
 public:
  /// acquire returns v's id, adding a reference.
  uint32_t acquire(const T& v) {
    auto [it, fresh] = ids_.try_emplace(v, 0);
    if (fresh) {
      if (free_.empty()) {
        it->second = static_cast<uint32_t>(slots_.size());
        slots_.push_back(Slot{&it->first, 0});
      } else {
        it->second = free_.back();
        free_.pop_back();
        slots_[it->second] = Slot{&it->first, 0};
      }
    }
    ++slots_[it->second].refs;
    return it->second;
  }

  /// release drops one reference to id.
  void release(uint32_t id) {
    Slot& s = slots_[id];
    if (--s.refs == 0) {
      ids_.erase(*s.value);
      s.value = nullptr;
      free_.push_back(id);
    }
  }

  const T& at(uint32_t id) const { return *slots_[id].value; }

  /// find returns v's id when some holder has it.
  std::optional<uint32_t> find(const T& v) const {
    auto it = ids_.find(v);
    return it == ids_.end() ? std::nullopt : std::optional<uint32_t>(it->second);
  }

  void clear() {
    slots_.clear();
    ids_.clear();
    free_.clear();
  }

 private:
  struct Slot {
    const T* value = nullptr;  ///< the key in ids_ (map nodes do not move)
    uint32_t refs = 0;
  };
  std::vector<Slot> slots_;
  std::map<T, uint32_t> ids_;
  std::vector<uint32_t> free_;
};

/// AllocationTable stores, per service key, one or two addresses, a pool index, the ports and
/// the sharing key. Ids are dense and reused; an id stays valid until its service is erased.
class AllocationTable {
 public:
  using Id = uint32_t;

  /// find returns the id of the service with this key.
  std::optional<Id> find(std::string_view key) const;

  /// insert stores a service that holds nothing yet; returns its id.
  Id insert(std::string_view key,
            uint16_t pool,
            const std::vector<net::IpAddress>& ips,
            const std::vector<Port>& ports,
            const AllocationKey& sharing);

  /// erase forgets a service.
  void erase(Id id);

  std::string_view key(Id id) const;
  uint16_t pool(Id id) const { return records_[id].pool; }
  void setPool(Id id, uint16_t pool) { records_[id].pool = pool; }
  std::vector<net::IpAddress> ips(Id id) const;
  const std::vector<Port>& ports(Id id) const { return port_sets_.at(records_[id].ports); }
  const AllocationKey& sharing(Id id) const { return sharing_keys_.at(records_[id].sharing); }
  uint32_t sharingId(Id id) const { return records_[id].sharing; }
  /// sharingIdOf returns the id of key when some service holds it.
  std::optional<uint32_t> sharingIdOf(const AllocationKey& key) const {
    return sharing_keys_.find(key);
  }

  /// forEachUser calls f(id) for every service holding ip.
  template <typename F>
  void forEachUser(const net::IpAddress& ip, F&& f) const {
    by_ip_.forEachMatch(
        hashIp(ip), [&](uint32_t h) { return ipOf(h) == ip; }, [&](uint32_t h) { f(h >> 1); });
  }

  /// used reports whether any service holds ip.
  bool used(const net::IpAddress& ip) const {
    return by_ip_.find(hashIp(ip), [&](uint32_t h) { return ipOf(h) == ip; }).has_value();
  }

  /// forEach calls f(id) for every stored service.
  template <typename F>
  void forEach(F&& f) const {
    for (Id id = 0; id < records_.size(); ++id) {
      if (records_[id].count != 0) {
        f(id);
      }
    }
  }

  std::size_t size() const { return size_; }
  void reserve(std::size_t services);
  void clear();

 private:
  /// Record is one service: 48 bytes.
  struct Record {
    net::U128 ip[2] = {0, 0};
    uint32_t key = 0;      ///< offset of the key in keys_ (a 2-byte length, then the text)
    uint32_t ports = 0;    ///< id in port_sets_
    uint32_t sharing = 0;  ///< id in sharing_keys_
    uint16_t pool = 0;
    uint8_t count = 0;  ///< addresses held (1 or 2); 0 = free record
    uint8_t v6 = 0;     ///< bit i set: ip[i] is IPv6
  };

  static uint64_t hashIp(const net::IpAddress& ip);
  static uint64_t hashKey(std::string_view key);
  net::IpAddress ipOf(uint32_t handle) const;
  uint64_t hashOfIpHandle(uint32_t handle) const { return hashIp(ipOf(handle)); }
  uint64_t hashOfKeyHandle(uint32_t id) const { return hashKey(key(id)); }
  uint32_t storeKey(std::string_view key);
  void compactKeys();

  std::vector<Record> records_;
  std::vector<Id> free_;
  std::string keys_;
  std::size_t dead_key_bytes_ = 0;
  std::size_t size_ = 0;
  HandleIndex by_key_;  ///< handles: ids
  HandleIndex by_ip_;   ///< handles: id * 2 + address position
  InternTable<std::vector<Port>> port_sets_;
  InternTable<AllocationKey> sharing_keys_;
};

}  // namespace ingot::controller
