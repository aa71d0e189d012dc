// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ingot::k8s {

/// Store<T> is an informer's cache: decoded objects keyed "ns/name" (client-go's Indexer with at
/// most one index). Readers get immutable snapshots (shared_ptr<const T>) that stay valid after
/// the store moves on. Thread-safe; writes come only from the owning informer.
template <typename T>
class Store {
 public:
  using Ptr = std::shared_ptr<const T>;
  /// IndexFn gives the value an object is indexed under ("" = not indexed), e.g. the Service an
  /// EndpointSlice belongs to; byIndex then finds the objects of one value without a scan.
  using IndexFn = std::function<std::string(const T&)>;

  Store() = default;
  explicit Store(IndexFn index) : index_fn_(std::move(index)) {}

  /// Entry is a cached object and the resourceVersion it was decoded from.
  struct Entry {
    Ptr object;
    std::string resource_version;
  };
  using Map = std::map<std::string, Entry>;

  /// get returns the object under key, or nullptr.
  Ptr get(const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? nullptr : it->second.object;
  }

  /// list returns every object, ordered by key.
  std::vector<Ptr> list() const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    out.reserve(items_.size());
    for (const auto& [key, entry] : items_) out.push_back(entry.object);
    return out;
  }

  /// keys returns every key, sorted.
  std::vector<std::string> keys() const {
    std::shared_lock lock(mu_);
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& [key, entry] : items_) out.push_back(key);
    return out;
  }

  /// byIndex returns the objects indexed under value, ordered by key (none without an index).
  std::vector<Ptr> byIndex(const std::string& value) const {
    std::shared_lock lock(mu_);
    std::vector<Ptr> out;
    auto it = index_.find(value);
    if (it == index_.end()) {
      return out;
    }
    out.reserve(it->second.size());
    for (const std::string& key : it->second) {
      out.push_back(items_.at(key).object);
    }
    return out;
  }

  size_t size() const {
    std::shared_lock lock(mu_);
    return items_.size();
  }

  /// upsert stores entry under key and returns the previous entry (object nullptr when new).
  Entry upsert(const std::string& key, Entry entry) {
    std::unique_lock lock(mu_);
    Entry& slot = items_[key];
    unindex(key, slot.object);
    index(key, entry.object);
    std::swap(slot, entry);
    return entry;
  }

  /// erase removes key and returns what was stored (object nullptr when absent).
  Entry erase(const std::string& key) {
    std::unique_lock lock(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return {};
    unindex(key, it->second.object);
    Entry old = std::move(it->second);
    items_.erase(it);
    return old;
  }

  /// replaceAll swaps in a complete new content and returns the old one.
  Map replaceAll(Map items) {
    std::unique_lock lock(mu_);
    std::swap(items_, items);
    index_.clear();
    for (const auto& [key, entry] : items_) {
      index(key, entry.object);
    }
    return items;
  }

  /// entry returns a copy of the entry under key (object nullptr when absent).
  Entry entry(const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? Entry{} : it->second;
  }

 private:
  void index(const std::string& key, const Ptr& object) {
    if (!index_fn_ || !object) {
      return;
    }
    if (std::string value = index_fn_(*object); !value.empty()) {
      index_[std::move(value)].insert(key);
    }
  }
  void unindex(const std::string& key, const Ptr& object) {
    if (!index_fn_ || !object) {
      return;
    }
    auto it = index_.find(index_fn_(*object));
    if (it == index_.end()) {
      return;
    }
    it->second.erase(key);
    if (it->second.empty()) {
      index_.erase(it);
    }
  }

  IndexFn index_fn_;
  mutable std::shared_mutex mu_;
  Map items_;
  std::unordered_map<std::string, std::set<std::string>> index_;  ///< value → keys
};

/// values copies every object of store, ordered by key (what the pure decisions take).
template <typename T>
std::vector<T> values(const Store<T>& store) {
  std::vector<T> out;
  const auto objects = store.list();
  out.reserve(objects.size());
  for (const auto& p : objects) {
    out.push_back(*p);
  }
  return out;
}

}  // namespace ingot::k8s
