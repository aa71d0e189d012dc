// SPDX-License-Identifier: Apache-2.0
// The controller work queue (client-go util/workqueue semantics): fair and stingy. A key is never
// handed to two workers at once, duplicate adds collapse, a key re-added while it is processed runs
// again after done(), and failed keys come back after a per-key exponential backoff.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kube/backoff.h"
#include "kube/clock.h"

namespace ingot::k8s {

/// WorkQueueOptions: addRateLimited waits max(per-key backoff, overall bucket), as client-go's
/// DefaultTypedControllerRateLimiter does (5 ms doubling to 1000 s; 10 qps, burst 100).
struct WorkQueueOptions {
  Duration base_delay = std::chrono::milliseconds(5);
  Duration max_delay = std::chrono::seconds(1000);
  double qps = 10;  ///< overall retry rate; <= 0 disables the bucket
  int burst = 100;
};

/// WorkQueue holds keys ("ns/name") to reconcile. Thread-safe. Time comes from the injected clock;
/// with a fake clock use tryGet() after advancing it.
class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions options = {}, Clock& clock = steadyClock());

  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  /// add marks key for processing. No-op when it is already queued or after shutDown; when the key
  /// is being processed it is queued again once done() is called.
  void add(const std::string& key);

  /// addAfter adds key once delay has elapsed (immediately when delay <= 0). Several pending
  /// delays for one key collapse to the earliest.
  void addAfter(const std::string& key, Duration delay);

  /// addRateLimited adds key after its backoff: base_delay * 2^(requeues) capped at max_delay, or
  /// later if the overall bucket is exhausted. Returns the delay used.
  Duration addRateLimited(const std::string& key);

  /// forget clears key's failure count (call after a successful reconcile).
  void forget(const std::string& key);

  /// numRequeues returns how many times key went through addRateLimited since the last forget.
  int numRequeues(const std::string& key) const;

  /// get blocks until a key is ready and marks it processing. Returns nullopt once the queue is
  /// shut down and no ready key is left.
  std::optional<std::string> get();

  /// tryGet is get without blocking: nullopt when no key is ready now.
  std::optional<std::string> tryGet();

  /// done ends the processing of key (required after every successful get).
  void done(const std::string& key);

  /// shutDown stops accepting keys, drops pending delayed adds and wakes every blocked get.
  void shutDown();

  bool shuttingDown() const;

  /// len returns the number of keys ready to be handed out.
  size_t len() const;

  /// delayedLen returns the number of keys waiting for a delay to elapse.
  size_t delayedLen() const;

  /// blockedGets returns how many threads wait inside get() for a key right now.
  size_t blockedGets() const;

  /// nextDelayedAt returns when the earliest delayed key becomes ready.
  std::optional<TimePoint> nextDelayedAt();

 private:
  struct Delayed {
    TimePoint at;
    std::uint64_t seq;  ///< FIFO among equal times
    std::string key;
    bool operator>(const Delayed& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  void addLocked(const std::string& key);
  void promoteDueLocked(TimePoint now);
  std::optional<std::string> popLocked();
  std::optional<TimePoint> nextDelayedLocked();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  WorkQueueOptions options_;
  Clock& clock_;
  std::deque<std::string> queue_;
  std::unordered_set<std::string> dirty_;
  std::unordered_set<std::string> processing_;
  std::unordered_map<std::string, TimePoint> waiting_;  ///< key -> earliest ready time
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<>> heap_;
  std::uint64_t seq_ = 0;
  std::unordered_map<std::string, int> failures_;
  TokenBucket bucket_;
  bool shutting_down_ = false;
  size_t blocked_gets_ = 0;
};

}  // namespace ingot::k8s
