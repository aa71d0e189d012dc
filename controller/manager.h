// SPDX-License-Identifier: Apache-2.0
// Manager wires the controller together (controller-runtime's Manager, client-go's
// examples/workqueue): informers on Services, IPAddressPools, Communities, Namespaces and the
// ConfigurationState feed keys into one work queue; one worker thread waits for every cache to
// sync and then runs the Reconciler on each key, batching consecutive Service keys so their
// writes go out together.
#pragma once

#include <memory>

#include "api/types.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "controller/metrics.h"
#include "controller/reconciler.h"
#include "kube/api_client.h"
#include "kube/controller.h"
#include "kube/shell.h"

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
  /// agent_labels selects the agent Pods (--agent-labels), for the unannounced check.
  std::string agent_labels = "app.kubernetes.io/component=speaker";
};

/// Manager declares the controller's informers and runs its Reconciler on kube's reconcile
/// driver (k8s::Controller). The client, event sink, metrics and logger must outlive it.
class Manager final : public k8s::Workload {
 public:
  Manager(k8s::ApiClient& api,
          EventSink& events,
          Metrics& metrics,
          log::Logger& logger,
          ManagerOptions options);
  ~Manager() override;

  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  /// start launches the informers, waits until every cache holds a complete list (error after
  /// cache_sync_timeout, naming the caches that did not sync, or when stop is requested) and
  /// starts the worker.
  Result<void> start(const std::stop_token& stop = {}) override;

  /// stop stops the informers (no new keys), lets the worker finish what is queued (bounded by
  /// drain_timeout) and joins it. Idempotent.
  void stop() override;

  /// ready is true once the first full pass succeeded (/readyz).
  bool ready() const override { return reconciler_->initialPassDone(); }

  /// synced is true once every cache synced and the worker runs.
  bool synced() const { return controller_.synced(); }

 private:
  ReconcileResult reconcile(const std::string& key);

  log::Logger& log_;
  ManagerOptions options_;
  k8s::Controller controller_;
  std::unique_ptr<AnnounceCaches> announce_;  ///< null when the unannounced check is off
  std::unique_ptr<Reconciler> reconciler_;
};

}  // namespace ingot::controller
