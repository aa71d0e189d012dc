// SPDX-License-Identifier: Apache-2.0
#include "controller/core/allocation_table.h"

#include <cstring>

namespace ingot::controller {
namespace {

/// kKeyLengthBytes prefix every key in the arena (Kubernetes keys are at most 317 bytes).
constexpr std::size_t kKeyLengthBytes = 2;
/// Dead key bytes are reclaimed once they exceed this and half of the arena.
constexpr std::size_t kCompactAbove = 64 * 1024;

}  // namespace

std::string Port::toString() const {
  return protocol + "/" + std::to_string(port);
}

uint64_t AllocationTable::hashIp(const net::IpAddress& ip) {
  const auto lo = static_cast<uint64_t>(ip.value());
  const auto hi = static_cast<uint64_t>(ip.value() >> 64);
  uint64_t h = (lo * 0x9e3779b97f4a7c15ULL) ^ (hi + 0x632be59bd9b4e019ULL) ^
               (static_cast<uint64_t>(ip.family()) << 59);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 29);
}

uint64_t AllocationTable::hashKey(std::string_view key) {
  // Eight bytes per step, then a full avalanche (the index uses the low bits): a few
  // instructions per key where std::hash's byte-oriented Murmur took ~80, and keys are hashed
  // on every lookup and again whenever the index grows.
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ key.size();
  std::size_t at = 0;
  for (; at + 8 <= key.size(); at += 8) {
    uint64_t w = 0;
    std::memcpy(&w, key.data() + at, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  }
  if (at < key.size()) {
    uint64_t w = 0;
    std::memcpy(&w, key.data() + at, key.size() - at);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 33);
}

net::IpAddress AllocationTable::ipOf(uint32_t handle) const {
  const Record& r = records_[handle >> 1];
  const unsigned pos = handle & 1U;
  return ((r.v6 >> pos) & 1U) != 0 ? net::IpAddress::v6(r.ip[pos])
                                   : net::IpAddress::of(net::Family::V4, r.ip[pos]);
}

std::string_view AllocationTable::key(Id id) const {
  const std::size_t at = records_[id].key;
  const auto len = static_cast<std::size_t>(static_cast<unsigned char>(keys_[at])) |
                   static_cast<std::size_t>(static_cast<unsigned char>(keys_[at + 1])) << 8;
  return std::string_view(keys_).substr(at + kKeyLengthBytes, len);
}

std::optional<AllocationTable::Id> AllocationTable::find(std::string_view key) const {
  return by_key_.find(hashKey(key), [&](uint32_t id) { return this->key(id) == key; });
}

uint32_t AllocationTable::storeKey(std::string_view key) {
  const auto at = static_cast<uint32_t>(keys_.size());
  keys_.push_back(static_cast<char>(key.size() & 0xff));
  keys_.push_back(static_cast<char>((key.size() >> 8) & 0xff));
  keys_.append(key);
  return at;
}

AllocationTable::Id AllocationTable::insert(std::string_view key,
                                            uint16_t pool,
                                            const std::vector<net::IpAddress>& ips,
                                            const std::vector<Port>& ports,
                                            const AllocationKey& sharing) {
  Id id = 0;
  if (free_.empty()) {
    id = static_cast<Id>(records_.size());
    records_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  Record& r = records_[id];
  r = Record{};
  r.key = storeKey(key);
  r.ports = port_sets_.acquire(ports);
  r.sharing = sharing_keys_.acquire(sharing);
  r.pool = pool;
  r.count = static_cast<uint8_t>(ips.size());
  for (std::size_t i = 0; i < ips.size() && i < 2; ++i) {
    r.ip[i] = ips[i].value();
    r.v6 |= static_cast<uint8_t>(ips[i].isV6() ? 1U << i : 0U);
  }
  ++size_;
  by_key_.insert(hashKey(key), id, [this](uint32_t h) { return hashOfKeyHandle(h); });
  for (uint32_t pos = 0; pos < r.count; ++pos) {
    const uint32_t handle = id * 2 + pos;
    by_ip_.insert(hashOfIpHandle(handle), handle, [this](uint32_t h) { return hashOfIpHandle(h); });
  }
  return id;
}

void AllocationTable::erase(Id id) {
  Record& r = records_[id];
  for (uint32_t pos = 0; pos < r.count; ++pos) {
    const uint32_t handle = id * 2 + pos;
    by_ip_.erase(hashOfIpHandle(handle), handle, [this](uint32_t h) { return hashOfIpHandle(h); });
  }
  const std::string_view k = key(id);
  by_key_.erase(hashKey(k), id, [this](uint32_t h) { return hashOfKeyHandle(h); });
  dead_key_bytes_ += k.size() + kKeyLengthBytes;
  port_sets_.release(r.ports);
  sharing_keys_.release(r.sharing);
  r.count = 0;
  free_.push_back(id);
  --size_;
  if (size_ == 0) {
    clear();
  } else if (dead_key_bytes_ > kCompactAbove && dead_key_bytes_ * 2 > keys_.size()) {
    compactKeys();
  }
}

void AllocationTable::compactKeys() {
  std::string live;
  live.reserve(keys_.size() - dead_key_bytes_);
  forEach([&](Id id) {
    const std::string_view k = key(id);
    const auto at = static_cast<uint32_t>(live.size());
    live.append(keys_, records_[id].key, k.size() + kKeyLengthBytes);
    records_[id].key = at;
  });
  keys_ = std::move(live);
  dead_key_bytes_ = 0;
}

std::vector<net::IpAddress> AllocationTable::ips(Id id) const {
  std::vector<net::IpAddress> out;
  out.reserve(records_[id].count);
  for (uint32_t pos = 0; pos < records_[id].count; ++pos) {
    out.push_back(ipOf(id * 2 + pos));
  }
  return out;
}

void AllocationTable::reserve(std::size_t services) {
  records_.reserve(services);
  by_key_.reserve(services, [this](uint32_t h) { return hashOfKeyHandle(h); });
  by_ip_.reserve(services, [this](uint32_t h) { return hashOfIpHandle(h); });
}

void AllocationTable::clear() {
  records_.clear();
  free_.clear();
  keys_.clear();
  dead_key_bytes_ = 0;
  size_ = 0;
  by_key_.clear();
  by_ip_.clear();
  port_sets_.clear();
  sharing_keys_.clear();
}

}  // namespace ingot::controller
