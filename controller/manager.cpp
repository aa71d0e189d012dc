// SPDX-License-Identifier: Apache-2.0
#include "controller/manager.h"

#include <malloc.h>

#include "api/codec.h"
#include "controller/announce_watch.h"
#include "controller/compact_cache.h"
#include "controller/core/projections.h"
#include "controller/status_writes.h"
#include "kube/compact_cache.h"
#include "kube/resources.h"

namespace ingot::controller {
namespace {

using ErrorHandler = std::function<void(const Error&)>;

/// Handlers only enqueue keys; level-based reconciles read the caches themselves.

k8s::Informer<PackedService>::Handlers serviceHandlers(k8s::WorkQueue& q,
                                                       bool announce,
                                                       ErrorHandler err) {
  using Ptr = k8s::Informer<PackedService>::Ptr;
  auto add = [&q, announce](const Ptr& s) {
    const std::string key = k8s::objectKey(*s->namespace_, s->name);
    q.add(keys::service(key));
    if (announce) q.add(keys::announce(key));
  };
  // An update that changed only what the projection dropped is not a change for the controller;
  // a resync (the same object twice) still re-checks the Service.
  auto update = [add](const Ptr& o, const Ptr& n) {
    if (o == n || !samePackedService(*o, *n)) {
      add(n);
    }
  };
  return {add, update, add, std::move(err)};
}

/// Pools: a spec change (generation) re-parses the configuration, as MetalLB's
/// GenerationChangedPredicate does; any other change (status, labels) only re-checks the status.
k8s::Informer<api::IPAddressPool>::Handlers poolHandlers(k8s::WorkQueue& q, ErrorHandler err) {
  using Ptr = k8s::Informer<api::IPAddressPool>::Ptr;
  auto config = [&q](const Ptr&) { q.add(std::string(keys::kConfig)); };
  return {[&q](const Ptr& p) {
            q.add(std::string(keys::kConfig));
            q.add(keys::poolStatus(p->metadata.name));
          },
          [&q](const Ptr& o, const Ptr& n) {
            if (o->metadata.generation != n->metadata.generation || o->spec != n->spec) {
              q.add(std::string(keys::kConfig));
            } else {
              q.add(keys::poolStatus(n->metadata.name));
            }
          },
          config, std::move(err)};
}

k8s::Informer<api::Community>::Handlers communityHandlers(k8s::WorkQueue& q, ErrorHandler err) {
  using Ptr = k8s::Informer<api::Community>::Ptr;
  auto config = [&q](const Ptr&) { q.add(std::string(keys::kConfig)); };
  return {config, [config](const Ptr&, const Ptr& n) { config(n); }, config, std::move(err)};
}

/// Namespaces matter only through their labels (pool namespaceSelectors).
k8s::Informer<api::Namespace>::Handlers namespaceHandlers(k8s::WorkQueue& q, ErrorHandler err) {
  using Ptr = k8s::Informer<api::Namespace>::Ptr;
  auto config = [&q](const Ptr&) { q.add(std::string(keys::kConfig)); };
  return {config,
          [&q](const Ptr& o, const Ptr& n) {
            if (o->metadata.labels != n->metadata.labels) q.add(std::string(keys::kConfig));
          },
          config, std::move(err), projectNamespace};
}

/// The ConfigurationState is ours: re-check it when someone else changes or deletes it.
/// stateHandlers queue the state key on every change; deleted (called first) tells the
/// reconciler that its last write is gone.
k8s::Informer<api::ConfigurationState>::Handlers stateHandlers(k8s::WorkQueue& q,
                                                               ErrorHandler err,
                                                               std::function<void()> deleted) {
  using Ptr = k8s::Informer<api::ConfigurationState>::Ptr;
  auto state = [&q](const Ptr&) { q.add(std::string(keys::kState)); };
  auto gone = [state, deleted = std::move(deleted)](const Ptr& o) {
    deleted();
    state(o);
  };
  return {{}, [state](const Ptr&, const Ptr& n) { state(n); }, gone, std::move(err)};
}

k8s::ControllerOptions controllerOptions(const ManagerOptions& o, Metrics& metrics) {
  k8s::ControllerOptions out;
  out.queue = o.queue;
  out.cache_sync_timeout = o.cache_sync_timeout;
  out.drain_timeout = o.drain_timeout;
  out.on_queue_depth = [&metrics](size_t depth) { metrics.setQueueDepth(depth); };
  return out;
}

}  // namespace

Manager::Manager(k8s::ApiClient& api,
                 EventSink& events,
                 Metrics& metrics,
                 log::Logger& logger,
                 ManagerOptions options)
    : log_(logger),
      options_(std::move(options)),
      controller_("manager", logger, controllerOptions(options_, metrics)) {
  const std::string& ns = options_.reconciler.namespace_;
  const ErrorHandler err = [this](const Error& e) { log_.warn("informer", "error", e.message); };
  k8s::InformerOptions state_options = options_.informer;
  state_options.reflector.field_selector = std::string("metadata.name=") + kConfigurationStateName;
  k8s::InformerSet& set = controller_.informers();
  k8s::WorkQueue& q = controller_.queue();
  const auto& io = options_.informer;
  namespace r = k8s::resources;
  const bool announce = options_.reconciler.unannounced_grace > k8s::Duration::zero();
  const k8s::StoreView<api::Service> services(
      set.add<PackedService>("services", api, r::kServices, "", k8s::packedDecoder(packService),
                             serviceHandlers(q, announce, err), io),
      unpackService);
  if (announce) {
    announce_ = addAnnounceInformers(set, api, q, ns, options_.agent_labels, io, err);
  }
  const auto& pools =
      set.add<api::IPAddressPool>("ipaddresspools", api, r::kIpAddressPools, ns,
                                  api::jsonDecoder<api::IPAddressPool>(), poolHandlers(q, err), io);
  const auto& communities =
      set.add<api::Community>("communities", api, r::kCommunities, ns,
                              api::jsonDecoder<api::Community>(), communityHandlers(q, err), io);
  const auto& namespaces =
      set.add<api::Namespace>("namespaces", api, r::kNamespaces, "",
                              api::jsonDecoder<api::Namespace>(), namespaceHandlers(q, err), io);
  const auto& states = set.add<api::ConfigurationState>(
      "configurationstates", api, r::kConfigurationStates, ns,
      api::jsonDecoder<api::ConfigurationState>(),
      stateHandlers(q, err, [this] { reconciler_->stateDeleted(); }), state_options);
  reconciler_ = std::make_unique<Reconciler>(
      Caches{services, pools, communities, namespaces, states, announce_.get()},
      k8s::ReconcileIo{api, events, q, log_}, metrics, options_.reconciler);
}

Manager::~Manager() {
  stop();
}

Result<void> Manager::start(const std::stop_token& stop) {
  // The configuration is parsed first; Service keys from the initial lists queue up behind it.
  controller_.queue().add(std::string(keys::kConfig));
  k8s::Reconcile run;
  run.reconcile = [this](const std::string& key) { return reconcile(key); };
  run.batchable = [](std::string_view key) { return keys::isService(key); };
  run.reconcile_batch = [this](const std::vector<std::string>& batch) {
    return reconciler_->reconcileServices(batch);
  };
  run.max_batch = options_.max_batch;
  return controller_.start(std::move(run), stop);
}

void Manager::stop() {
  controller_.stop();
}

ReconcileResult Manager::reconcile(const std::string& key) {
  ReconcileResult result = reconciler_->reconcile(key);
  // A full pass copies every Service; hand that memory back to the system afterwards.
  if (key == keys::kConfig || key == keys::kReprocess) {
    malloc_trim(0);
  }
  return result;
}

}  // namespace ingot::controller
