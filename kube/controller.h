// SPDX-License-Identifier: Apache-2.0
// The reconcile driver both daemons run (client-go's examples/workqueue controller, with
// controller-runtime's result kinds): a set of informers whose handlers enqueue keys, a gate that
// waits until every cache holds a complete list, and one worker thread that takes keys from the
// work queue, reconciles them and decides from the ReconcileResult what happens to the key next.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "common/util/log.h"
#include "common/util/result.h"
#include "kube/informer.h"
#include "kube/workqueue.h"

namespace ingot::k8s {

/// ReconcileResult says what the driver does with a key after one reconcile:
/// - Done: forget its failures;
/// - Retry: add it again after the queue's per-key exponential backoff (a transient error);
/// - RequeueAfter: add it again after an explicit delay (the failure count is kept);
/// - Terminal: log the error and forget the key; only a new change of an input brings it back.
struct ReconcileResult {
  enum class Kind { Done, Retry, RequeueAfter, Terminal };
  Kind kind = Kind::Done;
  Error error;        ///< why, for every kind but Done (may be empty for RequeueAfter)
  Duration delay{0};  ///< for RequeueAfter
  static ReconcileResult done() { return {}; }
  static ReconcileResult retry(Error e) { return {Kind::Retry, std::move(e), {}}; }
  static ReconcileResult requeueAfter(Duration d, Error e = {}) {
    return {Kind::RequeueAfter, std::move(e), d};
  }
  static ReconcileResult terminal(Error e) { return {Kind::Terminal, std::move(e), {}}; }
  /// ok is true for Done only.
  bool ok() const { return kind == Kind::Done; }
};

/// resourceVersionOf returns metadata.resourceVersion of a JSON object as the API server returned
/// it from a write ("" when absent or unreadable): the version the cache must reach before it
/// shows that write.
std::string resourceVersionOf(std::string_view json);

/// InformerSet owns a daemon's informers, starts and stops them together and says which caches
/// have not synced yet. Informers added with `enabled` false are still created (their store
/// exists, empty) but never started, and they do not hold back the sync gate. Informers added
/// with `gates_sync` false are started but do not hold back the sync gate either: their resource
/// may not be served (a CRD that is not installed), and their reflector keeps trying.
class InformerSet {
 public:
  /// add creates an informer on ref in ns (see Informer) and returns its store, which lives as
  /// long as the set. name appears in the "did not sync" error.
  template <typename T>
  const Store<T>& add(std::string name,
                      ApiClient& api,
                      const ResourceRef& ref,
                      const std::string& ns,
                      typename Informer<T>::Decode decode,
                      typename Informer<T>::Handlers handlers,
                      const InformerOptions& options,
                      bool enabled = true,
                      bool gates_sync = true) {
    auto informer = std::make_unique<Informer<T>>(api, ref, ns, std::move(decode),
                                                  std::move(handlers), options);
    const Store<T>& store = informer->store();
    Informer<T>* raw = informer.get();
    entries_.push_back({std::move(name), enabled, gates_sync, [raw] { raw->start(); },
                        [raw] { raw->stop(); }, [raw] { return raw->hasSynced(); },
                        std::shared_ptr<void>(std::move(informer))});
    return store;
  }

  /// start starts every enabled informer. Call once.
  void start();

  /// stop stops every informer (no handler runs afterwards). Idempotent.
  void stop();

  /// unsynced returns the names of the enabled informers that gate the sync and have no complete
  /// list yet, each preceded by a space ("" once all synced).
  std::string unsynced() const;

 private:
  struct Entry {
    std::string name;
    bool enabled;
    bool gates_sync;
    std::function<void()> start;
    std::function<void()> stop;
    std::function<bool()> synced;
    std::shared_ptr<void> owner;
  };
  std::vector<Entry> entries_;
};

/// ControllerOptions configure the driver.
struct ControllerOptions {
  WorkQueueOptions queue;
  Duration cache_sync_timeout = std::chrono::seconds(60);
  /// drain_timeout bounds shutdown: keys still queued after it are dropped without a reconcile
  /// (zero: every key still queued when stop() is called is dropped).
  Duration drain_timeout = Duration::zero();
  /// on_queue_depth receives the number of keys waiting (ready or delayed) plus those being
  /// reconciled, before and after each reconcile: 0 once the worker has nothing left to do.
  std::function<void(size_t)> on_queue_depth;
  /// idle_trim_interval: once the caches synced, and whenever the worker runs out of ready keys
  /// after reconciling some, the heap freed meanwhile goes back to the system (glibc
  /// malloc_trim), at most once per interval. Without it a daemon keeps the high-water mark of
  /// its initial list (the raw JSON of every object) for good. Zero disables it.
  Duration idle_trim_interval = std::chrono::seconds(1);
};

/// Reconcile is what the worker runs. `reconcile` handles one key. When `batchable` accepts a
/// key, the worker also takes every further ready key it accepts (up to max_batch) and hands them
/// to `reconcile_batch` together, which returns one result per key in order.
struct Reconcile {
  std::function<ReconcileResult(const std::string& key)> reconcile;
  std::function<bool(std::string_view key)> batchable;
  std::function<std::vector<ReconcileResult>(const std::vector<std::string>& keys)> reconcile_batch;
  size_t max_batch = 1;
};

/// Controller owns the informers, the work queue and the worker thread of one daemon. Add the
/// informers (and build whatever reads their stores) before start(). The logger must outlive it.
class Controller {
 public:
  /// Controller takes time for the queue's delays from clock (tests inject a fake).
  Controller(std::string name,
             log::Logger& logger,
             ControllerOptions options,
             Clock& clock = steadyClock());
  ~Controller();

  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  InformerSet& informers() { return informers_; }
  WorkQueue& queue() { return queue_; }

  /// start starts the informers, waits until every enabled cache holds a complete list (an error
  /// naming the caches that did not sync after cache_sync_timeout, or when stop is requested)
  /// and then starts the worker running `reconcile`. Call once.
  Result<void> start(Reconcile reconcile, const std::stop_token& stop = {});

  /// stop stops the informers (no new keys), lets the worker finish what is queued within
  /// drain_timeout and joins it. Idempotent.
  void stop();

  /// synced is true once every cache synced and the worker runs.
  bool synced() const { return synced_.load(); }

  /// processNextItem takes one key (blocking), reconciles it (with the keys batched with it) and
  /// handles the results. Returns false once the queue is shut down and empty. The worker thread
  /// calls it in a loop; tests call it by hand after setReconcile() instead of start().
  bool processNextItem();

  /// setReconcile sets what processNextItem runs without starting anything (start() does it too).
  void setReconcile(Reconcile reconcile) { reconcile_ = std::move(reconcile); }

 private:
  void handleResult(const std::string& key, const ReconcileResult& result);
  void reportDepth(size_t in_flight);
  bool pastDrainDeadline() const;
  void trimWhenIdle();
  Result<void> waitForSync(const std::stop_token& stop);

  std::string name_;
  log::Logger& log_;
  ControllerOptions options_;
  WorkQueue queue_;
  InformerSet informers_;
  Reconcile reconcile_;
  std::atomic<bool> synced_{false};
  std::atomic<bool> draining_{false};
  std::atomic<int64_t> drain_deadline_ns_{0};
  std::chrono::steady_clock::time_point last_trim_{};  ///< worker thread only (after start)
  std::jthread worker_;
};

}  // namespace ingot::k8s
