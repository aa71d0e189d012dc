// SPDX-License-Identifier: Apache-2.0
// Manager wires the agent together like the controller's: informers on every object the
// decisions read feed singleton keys into kube's reconcile driver (k8s::Controller), whose worker
// runs the Reconciler on each key once every cache synced.
#pragma once

#include <functional>
#include <memory>

#include "agent/core/member_meta.h"
#include "agent/daemon/membership_source.h"
#include "agent/daemon/metrics.h"
#include "agent/reconcile/reconciler.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "kube/api_client.h"
#include "kube/controller.h"

namespace ingot::agent {

/// The projections of the agent's informers (Informer::Handlers::transform): each clears, in
/// place, the fields of a decoded object the agent never reads, before the object is cached.
/// The decisions over projected objects are those over the full ones. EndpointSlices and
/// ServiceBGPStatus objects are cached packed (agent/daemon/compact_cache.h), as their projections.
void projectService(api::Service& svc);
void projectEndpointSlice(api::EndpointSlice& slice);
void projectNode(api::Node& node);
void projectBgpStatus(api::ServiceBGPStatus& status);
void projectPod(api::Pod& pod);

/// ManagerOptions configure the Manager.
struct ManagerOptions {
  ReconcilerOptions reconciler;
  k8s::WorkQueueOptions queue;
  k8s::InformerOptions informer;
  k8s::Duration cache_sync_timeout = std::chrono::seconds(60);
  /// watch_frr_configurations: watch FRRConfiguration metallb-<node> (a backend writes it). The
  /// watch does not hold back start(): the resource may not be served (frr-k8s not installed).
  bool watch_frr_configurations = true;
  /// membership, when memberlist is on: the Manager watches the agent pods it selects (the
  /// seeds), feeds its live set to the election and detaches it on stop. Must outlive the
  /// Manager.
  MembershipSource* membership = nullptr;
  /// member_meta builds what this agent advertises in its memberlist metadata (hold-down, MACs);
  /// start() adds joined_ms (the wall clock when it attaches) and sets it right before the
  /// member binds. Null: an Ingot agent's metadata with nothing but joined_ms.
  std::function<MemberMeta()> member_meta;
};

/// Manager owns the informers, the queue, the reconciler (with the backends `backends` builds)
/// and the worker thread. The client, event sink, metrics and logger must outlive it.
class Manager {
 public:
  Manager(k8s::ApiClient& api,
          EventSink& events,
          Metrics& metrics,
          log::Logger& logger,
          ManagerOptions options,
          BackendFactory backends);
  ~Manager();

  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  /// start starts the backends (Backend::start), launches the informers, waits until every cache
  /// but the FRRConfiguration one holds a complete list (error after cache_sync_timeout naming the
  /// caches that did not sync, or when stop is requested) and starts the worker.
  Result<void> start(const std::stop_token& stop = {});

  /// stop stops the informers and the worker (what is still queued is dropped: the
  /// FRRConfiguration stays as last written). Idempotent.
  void stop();

  /// drainBeforeStop is the sigterm drain trigger (agent/core/drain.h): it tells the reconciler
  /// the agent is stopping and, when that starts a drain (the Node is cordoned), waits until the
  /// announcements are withdrawn (the drain delay) and applied, at most delay + 3 s. Returns at
  /// once when the trigger is off or the node does not drain. Call from the stopping thread,
  /// before stop().
  void drainBeforeStop();

  /// ready is true once a configuration was loaded and the first sync succeeded (/readyz).
  bool ready() const { return reconciler_->ready(); }

 private:
  log::Logger& log_;
  /// watchMembership adds the agent-pod informer and connects options_.membership.
  void watchMembership(k8s::ApiClient& api);

  ManagerOptions options_;
  k8s::Controller controller_;
  const k8s::Store<api::Pod>* pods_ = nullptr;
  std::unique_ptr<Reconciler> reconciler_;
};

}  // namespace ingot::agent
