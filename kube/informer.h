// SPDX-License-Identifier: Apache-2.0
// Informer<T>: a Reflector feeding a typed Store<T>, with add/update/delete handlers and periodic
// resync (client-go's SharedIndexInformer, one consumer). Objects are decoded by the caller's
// function, so this header does not depend on any particular codec.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kube/reflector.h"
#include "kube/store.h"

namespace ingot::k8s {

/// InformerOptions: the reflector's options plus the resync period (0 = never). A resync
/// re-delivers every cached object to on_update(obj, obj), so level-based consumers periodically
/// re-check everything even when nothing changed.
struct InformerOptions {
  ReflectorOptions reflector;
  Duration resync_period = Duration::zero();
};

/// Informer keeps Store<T> in step with one collection and calls handlers on changes. Handlers
/// run on the informer's threads, one at a time, in event order; they should be quick (enqueue a
/// key). Objects that fail to decode are reported to on_error and skipped (the cache keeps the
/// previous version). A relist diffs against the cache: on_add for new keys, on_update for changed
/// resourceVersions, on_delete for keys that disappeared (with the last known object).
template <typename T>
class Informer final : private ReflectorSink {
 public:
  using Ptr = typename Store<T>::Ptr;
  using Decode = std::function<Result<T>(std::string_view json)>;

  /// Handlers are the informer's per-type hooks: the change handlers, and two applied before an
  /// object enters the store (so that every reader, handlers included, sees their result).
  struct Handlers {
    std::function<void(const Ptr&)> on_add;
    std::function<void(const Ptr& old_obj, const Ptr& new_obj)> on_update;
    std::function<void(const Ptr&)> on_delete;
    std::function<void(const Error&)> on_error;
    /// transform projects a decoded object onto what its readers use (client-go's
    /// TransformFunc): clearing the fields nobody reads keeps the cache small. Empty = keep all.
    std::function<void(T&)> transform = {};
    /// index, when set, indexes the store (Store::byIndex).
    typename Store<T>::IndexFn index = {};
  };

  Informer(ApiClient& client,
           ResourceRef ref,
           std::string ns,
           Decode decode,
           Handlers handlers = {},
           InformerOptions options = {})
      : decode_(std::move(decode)),
        handlers_(std::move(handlers)),
        options_(std::move(options)),
        store_(handlers_.index) {
    if (!options_.reflector.on_error) options_.reflector.on_error = handlers_.on_error;
    reflector_ =
        std::make_unique<Reflector>(client, std::move(ref), std::move(ns), options_.reflector,
                                    static_cast<ReflectorSink&>(*this));
  }

  ~Informer() override { stop(); }

  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  /// start launches the list/watch thread (and the resync thread). Call once.
  void start() {
    thread_ = std::jthread([this](std::stop_token stop) { reflector_->run(std::move(stop)); });
    if (options_.resync_period > Duration::zero()) {
      resync_thread_ = std::jthread([this](std::stop_token stop) { resyncLoop(stop); });
    }
  }

  /// stop ends both threads and waits for them; handlers are not called afterwards.
  void stop() {
    thread_.request_stop();
    resync_thread_.request_stop();
    if (thread_.joinable()) thread_.join();
    if (resync_thread_.joinable()) resync_thread_.join();
  }

  /// hasSynced is true once the first complete list is in the store and its handlers have run.
  bool hasSynced() const { return synced_.load(); }

  /// waitForSync blocks until hasSynced() or the timeout; returns hasSynced().
  bool waitForSync(Duration timeout) const {
    std::unique_lock lock(sync_mu_);
    sync_cv_.wait_for(lock, timeout, [this] { return synced_.load(); });
    return synced_.load();
  }

  const Store<T>& store() const { return store_; }
  Reflector::Stats stats() const { return reflector_->stats(); }

 private:
  using Entry = typename Store<T>::Entry;

  std::optional<Entry> decodeEntry(const RawObject& raw) {
    auto decoded = decode_(raw.json);
    if (!decoded) {
      report(Error{decoded.error().code, "decode " + raw.key + ": " + decoded.error().message});
      return std::nullopt;
    }
    if (handlers_.transform) {
      handlers_.transform(*decoded);
    }
    return Entry{std::make_shared<const T>(std::move(*decoded)), raw.resource_version};
  }

  void report(const Error& e) {
    if (handlers_.on_error) handlers_.on_error(e);
  }

  // ingot::k8s::ReflectorSink
  void replace(std::vector<RawObject> objects) override {
    typename Store<T>::Map next;
    for (const RawObject& raw : objects) {
      if (auto entry = decodeEntry(raw)) {
        next[raw.key] = std::move(*entry);
      } else if (auto old = store_.entry(raw.key); old.object) {
        next[raw.key] = std::move(old);  // keep the last good version of an undecodable object
      }
    }
    std::lock_guard dispatch(dispatch_mu_);
    typename Store<T>::Map old = store_.replaceAll(next);
    for (const auto& [key, entry] : next) {
      auto it = old.find(key);
      if (it == old.end()) {
        call(handlers_.on_add, entry.object);
      } else if (it->second.resource_version != entry.resource_version) {
        call(handlers_.on_update, it->second.object, entry.object);
      }
    }
    for (const auto& [key, entry] : old) {
      if (!next.contains(key)) call(handlers_.on_delete, entry.object);
    }
    notifySynced();
  }

  void apply(WatchEventType type, RawObject raw) override {
    std::optional<Entry> entry = decodeEntry(raw);
    std::lock_guard dispatch(dispatch_mu_);
    if (type == WatchEventType::Deleted) {
      Entry old = store_.erase(raw.key);
      Ptr last = entry ? entry->object : old.object;
      if (last) call(handlers_.on_delete, last);
      return;
    }
    if (!entry) return;
    Entry old = store_.upsert(raw.key, *entry);
    if (old.object) {
      call(handlers_.on_update, old.object, entry->object);
    } else {
      call(handlers_.on_add, entry->object);
    }
  }

  template <typename F, typename... Args>
  static void call(const F& f, const Args&... args) {
    if (f) f(args...);
  }

  void notifySynced() {
    std::lock_guard lock(sync_mu_);
    synced_.store(true);
    sync_cv_.notify_all();
  }

  void resyncLoop(std::stop_token stop) {
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    while (!stop.stop_requested()) {
      cv.wait_for(lock, stop, options_.resync_period, [] { return false; });
      if (stop.stop_requested() || !hasSynced()) continue;
      std::lock_guard dispatch(dispatch_mu_);
      for (const Ptr& obj : store_.list()) call(handlers_.on_update, obj, obj);
    }
  }

  Decode decode_;
  Handlers handlers_;
  InformerOptions options_;
  Store<T> store_;
  std::unique_ptr<Reflector> reflector_;
  std::mutex dispatch_mu_;  ///< one handler at a time, across the watch and resync threads
  std::atomic<bool> synced_{false};
  mutable std::mutex sync_mu_;
  mutable std::condition_variable sync_cv_;
  std::jthread thread_;
  std::jthread resync_thread_;
};

}  // namespace ingot::k8s
