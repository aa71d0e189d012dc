// SPDX-License-Identifier: Apache-2.0
// The reflector keeps a sink in step with one collection on the API server: list (paged), then
// watch from the list's resourceVersion; resume the watch where it stopped when the server closes
// it; relist on 410 Gone; back off on errors. It works on raw JSON and is type-agnostic; the typed
// cache on top of it is Informer<T> (kube/informer.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "kube/api_client.h"
#include "kube/backoff.h"
#include "kube/clock.h"

namespace ingot::k8s {

/// RawMeta is the object metadata the reflector needs.
struct RawMeta {
  std::string name;
  std::string namespace_;
  std::string resource_version;
};

/// rawObjectMeta reads metadata.name/namespace/resourceVersion from an object's JSON.
Result<RawMeta> rawObjectMeta(std::string_view object);

/// RawObject is one object as listed or watched: cache key ("ns/name"), version and JSON.
struct RawObject {
  std::string key;
  std::string resource_version;
  std::string json;
};

/// ReflectorSink receives the collection. Calls come from the reflector's thread, in order.
class ReflectorSink {
 public:
  virtual ~ReflectorSink() = default;
  /// replace delivers the complete collection after a list (initial or relist).
  virtual void replace(std::vector<RawObject> objects) = 0;
  /// apply delivers one Added, Modified or Deleted event.
  virtual void apply(WatchEventType type, RawObject object) = 0;
};

/// ReflectorOptions; defaults follow client-go's reflector.
struct ReflectorOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t page_size = 500;  ///< list page size; 0 = unpaged
  /// min_watch_timeout: each watch asks the server to end it after a random time in
  /// [min, 2*min), so that watches of many clients do not all restart together.
  Duration min_watch_timeout = std::chrono::minutes(5);
  BackoffOptions backoff{std::chrono::milliseconds(800), std::chrono::seconds(30), 2.0, 1.0};
  /// A watch that ends within short_watch without delivering anything counts as a failure (backs
  /// off), so a server that closes every watch at once cannot make the client spin.
  Duration short_watch = std::chrono::seconds(1);
  Clock* clock = nullptr;  ///< nullptr = steadyClock()
  Backoff::Random random;  ///< empty = defaultRandom()
  /// sleep waits d or until stop; returns false when stopped. Empty = real interruptible sleep.
  std::function<bool(Duration, std::stop_token)> sleep;
  std::function<void(const Error&)> on_error;  ///< reports each failure (for logs); optional
};

/// Reflector runs list+watch for one resource (in one namespace or all when ns is empty).
class Reflector {
 public:
  Reflector(ApiClient& client,
            ResourceRef ref,
            std::string ns,
            ReflectorOptions options,
            ReflectorSink& sink);

  /// run lists and watches until stop is requested. Blocks; call it on a dedicated thread.
  void run(std::stop_token stop);

  /// hasSynced is true once the first complete list has been delivered to the sink.
  bool hasSynced() const { return synced_.load(); }

  /// resourceVersion returns the version the next watch resumes from.
  std::string resourceVersion() const;

  /// Stats counts what the reflector did, for tests and metrics.
  struct Stats {
    std::uint64_t lists = 0;         ///< complete lists delivered
    std::uint64_t watches = 0;       ///< watch requests made
    std::uint64_t gone_relists = 0;  ///< relists caused by 410 Gone
    std::uint64_t failures = 0;      ///< failed lists and watches
  };
  Stats stats() const;

 private:
  Result<void> listAll(const std::stop_token& stop);
  Result<void> listInto(ListOptions options,
                        const std::stop_token& stop,
                        std::vector<RawObject>& out,
                        std::string& rv);
  WatchOutcome watchOnce(const std::stop_token& stop, bool& delivered);
  /// afterWatch applies how a watch ended (relist, backoff); returns false to stop running.
  bool afterWatch(const WatchOutcome& out,
                  bool delivered,
                  bool quick,
                  bool& need_list,
                  const std::stop_token& stop);
  bool onEvent(const WatchEvent& e);
  void report(const Error& e);
  void setResourceVersion(std::string rv);

  ApiClient& client_;
  ResourceRef ref_;
  std::string ns_;
  ReflectorOptions options_;
  ReflectorSink& sink_;
  Clock& clock_;
  Backoff backoff_;
  std::atomic<bool> synced_{false};
  int quick_gones_ = 0;    ///< consecutive 410s with nothing delivered in between
  mutable std::mutex mu_;  ///< guards rv_ and stats_
  std::string rv_;
  Stats stats_;
};

}  // namespace ingot::k8s
