// SPDX-License-Identifier: Apache-2.0
// WriteOverlay: read-your-writes for every status and state write of both daemons. A daemon
// decides from its informer cache, and the watch event of its own write arrives some time after
// the write: a pass that runs in between would see the old object and act on it again (write
// again, emit a second event, create an object that exists, or treat a Service that already holds
// an address as pending). The writer records each write here, and every read of that object goes
// through lookup(), which answers with what was written until the cache has caught up.
//
// The semantics kept from the four copies this replaces (the controller's Services, pools and
// ConfigurationState; the agent's ServiceBGPStatus writes and ConfigurationState; the Layer 2
// backend's ServiceL2Status writes):
//  - Keyed by object key (or object name within one namespace), one entry per object: a new write
//    replaces the entry (the last write is what the server holds).
//  - A write records the value and the resourceVersion the server answered with; a deletion
//    records that the object is gone. The entry is forgotten when the cache catches up: it shows
//    the written resourceVersion, or (when the caller passes the cached value) a value equal to
//    the written one (reading the cache then gives the same answer), or, for a deletion, no object.
//    A cache that does not hold a written object has not caught up (its watch may not have
//    delivered the create yet). A write whose resourceVersion is unknown ("") is caught up only by
//    value or by the ttl.
//  - Every entry expires after ttl: a relist may skip the written version, and an entry must never
//    hide the cache for good. Expired entries are forgotten when looked up.
//  - Whether caught up is decided from the cache view the caller passes (the snapshot its pass
//    reads), never from a second read of the cache: an object that lands between the snapshot and
//    the check must not make a write look caught up while the snapshot still shows the old one.
//  - What the writer learns from the server outside the cache (NotFound on a patch, a deletion the
//    informer reported) is erase(): the next pass reads the cache again.
//  - Entries may carry a group (the Service a status object reports on), so that a pass over some
//    Services visits only their writes (keysIn).
// Single-threaded: the reconcile worker that writes owns its overlays.
#pragma once

#include <concepts>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "kube/clock.h"

namespace ingot::k8s {

/// CacheView is what the informer cache shows for one key, as the caller's pass read it.
template <typename V>
struct CacheView {
  bool present = false;                 ///< the cache holds the object
  std::string_view resource_version{};  ///< its resourceVersion ("" when absent)
  /// value, when given, is the cached value: equal to the written one counts as caught up.
  const V* value = nullptr;
};

/// ValueEqual is WriteOverlay's default Eq: operator== where V has one (a V without one is caught
/// up by resourceVersion and ttl alone).
struct ValueEqual {
  template <std::equality_comparable T>
  bool operator()(const T& a, const T& b) const {
    return a == b;
  }
};

/// WriteOverlay<V, Eq> maps an object key to the last value written to it (or its deletion) and
/// the resourceVersion the server gave the object with that write, until the cache shows it.
/// Eq compares a cached value with a written one (used only when the caller passes the value).
template <typename V, typename Eq = ValueEqual>
class WriteOverlay {
 public:
  /// Write is one remembered write.
  struct Write {
    std::optional<V> value;        ///< nullopt: the object was deleted
    std::string resource_version;  ///< the object's after the write ("" unknown or deleted)
    TimePoint expires;
    std::string group;
  };

  /// ttl bounds how long an entry may hide the cache.
  explicit WriteOverlay(Duration ttl) : ttl_(ttl) {}

  /// record remembers value as written for key; written_rv is the resourceVersion of the stored
  /// object after the write ("" when unknown: only an equal cached value or the ttl end it).
  void record(const std::string& key,
              V value,
              std::string written_rv,
              TimePoint now,
              std::string group = {}) {
    put(key, Write{std::move(value), std::move(written_rv), now + ttl_, std::move(group)});
  }

  /// recordDeleted remembers that key was deleted (or found gone).
  void recordDeleted(const std::string& key, TimePoint now, std::string group = {}) {
    put(key, Write{std::nullopt, {}, now + ttl_, std::move(group)});
  }

  /// lookup returns the write of key the cache, as cached shows it, has not caught up with yet;
  /// nullptr when the cache is current. It forgets the entry once caught up or expired.
  const Write* lookup(const std::string& key, const CacheView<V>& cached, TimePoint now) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    if (caughtUp(it->second, cached) || now >= it->second.expires) {
      erase(key);
      return nullptr;
    }
    return &it->second;
  }

  /// written is lookup for an object the cache holds at cached_rv (or not at all: ""): the value
  /// written over it, or nullptr.
  const V* written(const std::string& key, std::string_view cached_rv, TimePoint now) {
    const Write* w = lookup(key, CacheView<V>{!cached_rv.empty(), cached_rv}, now);
    return w != nullptr && w->value ? &*w->value : nullptr;
  }

  /// overlay lays the writes of keys over snapshot (key → S, one pass's read of the cache): a
  /// deletion removes the key, a written value replaces it with make(key, write); entries the
  /// snapshot shows caught up, and expired ones, are forgotten. view(const S&) returns the
  /// CacheView of a snapshot entry.
  template <typename S, typename View, typename Make>
  void overlay(std::map<std::string, S>& snapshot,
               const std::vector<std::string>& keys,
               TimePoint now,
               View view,
               Make make) {
    for (const std::string& key : keys) {
      auto listed = snapshot.find(key);
      const Write* w =
          lookup(key, listed == snapshot.end() ? CacheView<V>{} : view(listed->second), now);
      if (w == nullptr) continue;
      if (!w->value) {
        if (listed != snapshot.end()) snapshot.erase(listed);
      } else {
        snapshot.insert_or_assign(key, make(key, *w));
      }
    }
  }

  /// erase forgets key (the object was deleted, or the server said it is gone).
  void erase(const std::string& key) {
    auto it = entries_.find(key);
    if (it == entries_.end()) return;
    unindex(key, it->second.group);
    entries_.erase(it);
  }

  /// keys returns every key with a remembered write, in order.
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const auto& [key, w] : entries_) out.push_back(key);
    return out;
  }

  /// keysIn returns the keys with a remembered write in group, in order.
  std::vector<std::string> keysIn(const std::string& group) const {
    auto it = groups_.find(group);
    if (it == groups_.end()) return {};
    return std::vector<std::string>(it->second.begin(), it->second.end());
  }

  size_t size() const { return entries_.size(); }

 private:
  bool caughtUp(const Write& w, const CacheView<V>& cached) const {
    if (!w.value) return !cached.present;
    if (!cached.present) return false;
    if (!w.resource_version.empty() && cached.resource_version == w.resource_version) return true;
    if constexpr (std::is_invocable_r_v<bool, const Eq&, const V&, const V&>) {
      return cached.value != nullptr && Eq{}(*cached.value, *w.value);
    } else {
      return false;
    }
  }

  void put(const std::string& key, Write w) {
    erase(key);  // its group may differ
    if (!w.group.empty()) groups_[w.group].insert(key);
    entries_.insert_or_assign(key, std::move(w));
  }

  void unindex(const std::string& key, const std::string& group) {
    auto it = groups_.find(group);
    if (it == groups_.end()) return;
    it->second.erase(key);
    if (it->second.empty()) groups_.erase(it);
  }

  Duration ttl_;
  std::map<std::string, Write> entries_;
  std::unordered_map<std::string, std::set<std::string>> groups_;
};

}  // namespace ingot::k8s
