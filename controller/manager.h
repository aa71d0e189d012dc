// SPDX-License-Identifier: Apache-2.0
// Manager wires the controller together (controller-runtime's Manager, client-go's
// examples/workqueue): informers on Services, IPAddressPools, Communities, Namespaces and the
// ConfigurationState feed keys into one work queue; one worker thread waits for every cache to
// sync and then runs the Reconciler on each key, batching consecutive Service keys so their
// writes go out together.
#pragma once

#include <atomic>
#include <memory>
#include <thread>

#include "api/types.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "controller/metrics.h"
#include "controller/reconciler.h"
#include "kube/api_client.h"
#include "kube/informer.h"
#include "kube/workqueue.h"

namespace ingot::controller {

/// ManagerOptions configure the Manager.
struct ManagerOptions {
  ReconcilerOptions reconciler;
  k8s::WorkQueueOptions queue;
  k8s::InformerOptions informer;
  size_t max_batch = 256;  ///< Service keys reconciled together
  k8s::Duration cache_sync_timeout = std::chrono::seconds(60);
  /// drain_timeout bounds shutdown: keys still queued after it are dropped.
  k8s::Duration drain_timeout = std::chrono::seconds(10);
};

/// Manager owns the informers, the queue, the reconciler and the worker thread. The client,
/// event sink, metrics and logger must outlive it.
class Manager {
 public:
  Manager(k8s::ApiClient& api,
          EventSink& events,
          Metrics& metrics,
          log::Logger& logger,
          ManagerOptions options);
  ~Manager();

  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  /// start launches the informers, waits until every cache holds a complete list (error after
  /// cache_sync_timeout, naming the caches that did not sync, or when stop is requested) and
  /// starts the worker.
  Result<void> start(const std::stop_token& stop = {});

  /// stop stops the informers (no new keys), lets the worker finish what is queued (bounded by
  /// drain_timeout) and joins it. Idempotent.
  void stop();

  /// ready is true once the first full pass succeeded (/readyz).
  bool ready() const { return reconciler_->initialPassDone(); }

  /// synced is true once every cache synced and the worker runs.
  bool synced() const { return synced_.load(); }

 private:
  void work(const std::stop_token& stop);
  void finish(const std::string& key, const ReconcileResult& result);
  bool pastDrainDeadline() const;

  log::Logger& log_;
  Metrics& metrics_;
  ManagerOptions options_;
  k8s::WorkQueue queue_;
  std::unique_ptr<k8s::Informer<api::Service>> services_;
  std::unique_ptr<k8s::Informer<api::IPAddressPool>> pools_;
  std::unique_ptr<k8s::Informer<api::Community>> communities_;
  std::unique_ptr<k8s::Informer<api::Namespace>> namespaces_;
  std::unique_ptr<k8s::Informer<api::ConfigurationState>> states_;
  std::unique_ptr<Reconciler> reconciler_;
  std::atomic<bool> synced_{false};
  std::atomic<bool> draining_{false};
  std::atomic<int64_t> drain_deadline_ns_{0};
  std::jthread worker_;
};

}  // namespace ingot::controller
