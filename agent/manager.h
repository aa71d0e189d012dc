// SPDX-License-Identifier: Apache-2.0
// Manager wires the agent together like the controller's: informers on every object the BGP
// decision reads feed singleton keys into one work queue; one worker thread waits for every cache
// to sync and then runs the Reconciler on each key.
#pragma once

#include <atomic>
#include <memory>
#include <thread>

#include "agent/metrics.h"
#include "agent/reconciler.h"
#include "api/frrk8s.h"
#include "api/types.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "kube/api_client.h"
#include "kube/informer.h"
#include "kube/workqueue.h"

namespace ingot::agent {

/// ManagerOptions configure the Manager.
struct ManagerOptions {
  ReconcilerOptions reconciler;
  k8s::WorkQueueOptions queue;
  k8s::InformerOptions informer;
  k8s::Duration cache_sync_timeout = std::chrono::seconds(60);
};

/// Manager owns the informers, the queue, the reconciler and the worker thread. The client,
/// event sink, metrics, logger and FrrApply must outlive it.
class Manager {
 public:
  Manager(k8s::ApiClient& api,
          EventSink& events,
          Metrics& metrics,
          log::Logger& logger,
          ManagerOptions options,
          FrrApply* frr = nullptr);
  ~Manager();

  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  /// start launches the informers, waits until every cache holds a complete list (error after
  /// cache_sync_timeout naming the caches that did not sync, or when stop is requested) and
  /// starts the worker.
  Result<void> start(const std::stop_token& stop = {});

  /// stop stops the informers and the worker (what is still queued is dropped: the
  /// FRRConfiguration stays as last written). Idempotent.
  void stop();

  /// ready is true once a configuration was loaded and the first sync succeeded (/readyz).
  bool ready() const { return reconciler_->ready(); }

 private:
  void work();
  std::string unsynced() const;

  log::Logger& log_;
  Metrics& metrics_;
  ManagerOptions options_;
  k8s::WorkQueue queue_;
  std::unique_ptr<k8s::Informer<api::Service>> services_;
  std::unique_ptr<k8s::Informer<api::EndpointSlice>> slices_;
  std::unique_ptr<k8s::Informer<api::Node>> nodes_;
  std::unique_ptr<k8s::Informer<api::Namespace>> namespaces_;
  std::unique_ptr<k8s::Informer<api::IPAddressPool>> pools_;
  std::unique_ptr<k8s::Informer<api::BGPPeer>> peers_;
  std::unique_ptr<k8s::Informer<api::BGPAdvertisement>> bgp_ads_;
  std::unique_ptr<k8s::Informer<api::L2Advertisement>> l2_ads_;
  std::unique_ptr<k8s::Informer<api::BFDProfile>> bfd_profiles_;
  std::unique_ptr<k8s::Informer<api::Community>> communities_;
  std::unique_ptr<k8s::Informer<api::Secret>> secrets_;
  std::unique_ptr<k8s::Informer<api::FRRConfiguration>> frr_configs_;
  std::unique_ptr<k8s::Informer<api::ServiceBGPStatus>> bgp_statuses_;
  std::unique_ptr<k8s::Informer<api::ConfigurationState>> states_;
  std::unique_ptr<Reconciler> reconciler_;
  std::jthread worker_;
};

}  // namespace ingot::agent
