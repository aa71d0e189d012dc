// SPDX-License-Identifier: Apache-2.0
// WriteOverlay remembers what the controller last wrote to an object until the informer cache
// has caught up with that write. Without it, a reconcile that runs between the write and the
// watch event would see the old status and act on it again: write again, emit a second event,
// or, in a full pass, treat a Service that already holds an address as pending.
#pragma once

#include <map>
#include <string>

#include "kube/clock.h"

namespace ingot::controller {

/// WriteOverlay<V> maps an object key to the value written and the resourceVersion the server
/// gave the object with that write. Single-threaded (the reconcile worker owns it).
template <typename V>
class WriteOverlay {
 public:
  /// ttl bounds how long an entry may hide the cache (a relist may skip the written version).
  explicit WriteOverlay(k8s::Duration ttl) : ttl_(ttl) {}

  /// record remembers value as written for key; written_rv is the resourceVersion of the stored
  /// object after the write ("" when unknown: the entry then lives until the ttl).
  void record(const std::string& key, V value, std::string written_rv, k8s::TimePoint now) {
    entries_[key] = Entry{std::move(value), std::move(written_rv), now + ttl_};
  }

  /// lookup returns the value written for key while the cache, now at cached_rv, has not seen
  /// that write yet; nullptr otherwise. It forgets entries the cache caught up with (cached_rv
  /// equals the written version) and expired ones.
  const V* lookup(const std::string& key, const std::string& cached_rv, k8s::TimePoint now) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    const Entry& e = it->second;
    if ((!e.written_rv.empty() && e.written_rv == cached_rv) || now >= e.expires) {
      entries_.erase(it);
      return nullptr;
    }
    return &it->second.value;
  }

  /// erase forgets key (the object was deleted).
  void erase(const std::string& key) { entries_.erase(key); }

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    V value;
    std::string written_rv;
    k8s::TimePoint expires;
  };
  k8s::Duration ttl_;
  std::map<std::string, Entry> entries_;
};

}  // namespace ingot::controller
