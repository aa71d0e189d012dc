// SPDX-License-Identifier: Apache-2.0
// Daemon wires ingot-frr: informers on the FRRConfigurations and Secrets of its namespace and on
// its own Node feed the "apply" key of kube's reconcile driver, whose single worker runs Worker.
// A change is applied at once after the cool-down that follows each apply (Worker::changeDelay:
// three times the apply's cost, at least 20 ms, at most --bgp-debounce-timeout); within it, it
// waits for the cool-down's end, so bursts coalesce without delaying a lone change.
#pragma once

#include <memory>
#include <stop_token>

#include "common/util/log.h"
#include "common/util/result.h"
#include "frr/port.h"
#include "ingotfrr/metrics.h"
#include "ingotfrr/node_state.h"
#include "ingotfrr/worker.h"
#include "kube/api_client.h"
#include "kube/controller.h"
#include "kube/events.h"

namespace ingot::ingotfrr {

/// DaemonOptions configure the Daemon.
struct DaemonOptions {
  WorkerOptions worker;
  k8s::InformerOptions informer;
  k8s::WorkQueueOptions queue;
  k8s::Duration cache_sync_timeout = std::chrono::seconds(60);
};

/// Daemon owns the informers, the queue and the worker. Every reference must outlive it.
class Daemon {
 public:
  Daemon(k8s::ApiClient& api,
         k8s::EventSink& events,
         Metrics& metrics,
         log::Logger& logger,
         frr::FrrPort& frr,
         DaemonOptions options);
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  /// start waits for every cache (error naming those that did not sync) and starts the worker,
  /// which applies once at once.
  Result<void> start(const std::stop_token& stop = {});
  /// stop ends the informers and the worker; FRR keeps what was applied last. Idempotent.
  void stop();
  /// ready: every cache synced and the worker runs (/readyz).
  bool ready() const { return controller_.synced(); }

 private:
  /// trigger queues "apply" now or at the end of the cool-down.
  void trigger();

  DaemonOptions options_;
  log::Logger& log_;
  k8s::Controller controller_;
  NodeStateWriter state_;
  std::unique_ptr<Worker> worker_;
};

}  // namespace ingot::ingotfrr
