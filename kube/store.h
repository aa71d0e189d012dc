// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace ingot::k8s {

/// Store<T> is an informer's cache: decoded objects keyed "ns/name" (client-go's Indexer without
/// indexes). Readers get immutable snapshots (shared_ptr<const T>) that stay valid after the
/// store moves on. Thread-safe; writes come only from the owning informer.
template <typename T>
class Store {
 public:
  using Ptr = std::shared_ptr<const T>;

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

  size_t size() const {
    std::shared_lock lock(mu_);
    return items_.size();
  }

  /// upsert stores entry under key and returns the previous entry (object nullptr when new).
  Entry upsert(const std::string& key, Entry entry) {
    std::unique_lock lock(mu_);
    Entry& slot = items_[key];
    std::swap(slot, entry);
    return entry;
  }

  /// erase removes key and returns what was stored (object nullptr when absent).
  Entry erase(const std::string& key) {
    std::unique_lock lock(mu_);
    auto it = items_.find(key);
    if (it == items_.end()) return {};
    Entry old = std::move(it->second);
    items_.erase(it);
    return old;
  }

  /// replaceAll swaps in a complete new content and returns the old one.
  Map replaceAll(Map items) {
    std::unique_lock lock(mu_);
    std::swap(items_, items);
    return items;
  }

  /// entry returns a copy of the entry under key (object nullptr when absent).
  Entry entry(const std::string& key) const {
    std::shared_lock lock(mu_);
    auto it = items_.find(key);
    return it == items_.end() ? Entry{} : it->second;
  }

 private:
  mutable std::shared_mutex mu_;
  Map items_;
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
