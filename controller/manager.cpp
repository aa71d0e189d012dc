// SPDX-License-Identifier: Apache-2.0
#include "controller/manager.h"

#include <malloc.h>

#include "api/codec.h"
#include "controller/status_writes.h"
#include "kube/resources.h"

namespace ingot::controller {
namespace {

using ErrorHandler = std::function<void(const Error&)>;

template <typename T>
std::function<Result<T>(std::string_view)> decoder() {
  return [](std::string_view json) { return api::decodeJson<T>(json); };
}

template <typename T>
std::string keyOf(const T& obj) {
  return k8s::objectKey(obj.metadata.namespace_, obj.metadata.name);
}

/// Handlers only enqueue keys; level-based reconciles read the caches themselves.

k8s::Informer<api::Service>::Handlers serviceHandlers(k8s::WorkQueue& q, ErrorHandler err) {
  using Ptr = k8s::Informer<api::Service>::Ptr;
  auto add = [&q](const Ptr& s) { q.add(keys::service(keyOf(*s))); };
  return {add, [add](const Ptr&, const Ptr& s) { add(s); }, add, std::move(err)};
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
          config, std::move(err)};
}

/// The ConfigurationState is ours: re-check it when someone else changes or deletes it.
k8s::Informer<api::ConfigurationState>::Handlers stateHandlers(k8s::WorkQueue& q,
                                                               ErrorHandler err) {
  using Ptr = k8s::Informer<api::ConfigurationState>::Ptr;
  auto state = [&q](const Ptr&) { q.add(std::string(keys::kState)); };
  return {{}, [state](const Ptr&, const Ptr& n) { state(n); }, state, std::move(err)};
}

}  // namespace

Manager::Manager(k8s::ApiClient& api,
                 EventSink& events,
                 Metrics& metrics,
                 log::Logger& logger,
                 ManagerOptions options)
    : log_(logger), metrics_(metrics), options_(std::move(options)), queue_(options_.queue) {
  const std::string& ns = options_.reconciler.namespace_;
  const ErrorHandler err = [this](const Error& e) { log_.warn("informer", "error", e.message); };
  k8s::InformerOptions state_options = options_.informer;
  state_options.reflector.field_selector = std::string("metadata.name=") + kConfigurationStateName;
  services_ = std::make_unique<k8s::Informer<api::Service>>(
      api, k8s::resources::kServices, "", decoder<api::Service>(), serviceHandlers(queue_, err),
      options_.informer);
  pools_ = std::make_unique<k8s::Informer<api::IPAddressPool>>(
      api, k8s::resources::kIpAddressPools, ns, decoder<api::IPAddressPool>(),
      poolHandlers(queue_, err), options_.informer);
  communities_ = std::make_unique<k8s::Informer<api::Community>>(
      api, k8s::resources::kCommunities, ns, decoder<api::Community>(),
      communityHandlers(queue_, err), options_.informer);
  namespaces_ = std::make_unique<k8s::Informer<api::Namespace>>(
      api, k8s::resources::kNamespaces, "", decoder<api::Namespace>(),
      namespaceHandlers(queue_, err), options_.informer);
  states_ = std::make_unique<k8s::Informer<api::ConfigurationState>>(
      api, k8s::resources::kConfigurationStates, ns, decoder<api::ConfigurationState>(),
      stateHandlers(queue_, err), state_options);
  reconciler_ = std::make_unique<Reconciler>(
      Caches{services_->store(), pools_->store(), communities_->store(), namespaces_->store(),
             states_->store()},
      api, events, queue_, metrics_, log_, options_.reconciler);
}

Manager::~Manager() {
  stop();
}

Result<void> Manager::start(const std::stop_token& stop) {
  // The configuration is parsed first; Service keys from the initial lists queue up behind it.
  queue_.add(std::string(keys::kConfig));
  services_->start();
  pools_->start();
  communities_->start();
  namespaces_->start();
  states_->start();
  const auto deadline = std::chrono::steady_clock::now() + options_.cache_sync_timeout;
  auto unsynced = [this] {
    std::string out;
    if (!services_->hasSynced()) out += " services";
    if (!pools_->hasSynced()) out += " ipaddresspools";
    if (!communities_->hasSynced()) out += " communities";
    if (!namespaces_->hasSynced()) out += " namespaces";
    if (!states_->hasSynced()) out += " configurationstates";
    return out;
  };
  // Wait in short slices so that a shutdown request is honoured during a slow start.
  while (!unsynced().empty()) {
    if (stop.stop_requested()) return Error{ErrorCode::Unavailable, "stopped before caches synced"};
    if (std::chrono::steady_clock::now() > deadline) {
      return Error{ErrorCode::Unavailable, "caches did not sync within the timeout:" + unsynced()};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  log_.info("manager", "caches_synced", "every cache holds a complete list; starting the worker",
            {log::num("services", static_cast<long long>(services_->store().size())),
             log::num("pools", static_cast<long long>(pools_->store().size()))});
  synced_.store(true);
  worker_ = std::jthread([this](std::stop_token s) { work(s); });
  return {};
}

void Manager::stop() {
  services_->stop();
  pools_->stop();
  communities_->stop();
  namespaces_->stop();
  states_->stop();
  if (!draining_.exchange(true)) {
    const auto deadline = std::chrono::steady_clock::now() + options_.drain_timeout;
    drain_deadline_ns_.store(deadline.time_since_epoch().count());
    queue_.shutDown();
  }
  if (worker_.joinable()) worker_.join();
}

bool Manager::pastDrainDeadline() const {
  if (!draining_.load()) return false;
  return std::chrono::steady_clock::now().time_since_epoch().count() > drain_deadline_ns_.load();
}

void Manager::finish(const std::string& key, const ReconcileResult& result) {
  if (result.ok()) {
    queue_.forget(key);
  } else {
    const k8s::Duration delay = queue_.addRateLimited(key);
    log_.debug(
        "manager", "requeue", result.error.message,
        {{"key", key},
         log::num("delay_ms", std::chrono::duration_cast<std::chrono::milliseconds>(delay).count()),
         log::num("requeues", queue_.numRequeues(key))});
  }
  queue_.done(key);
}

void Manager::work(const std::stop_token&) {
  while (auto key = queue_.get()) {
    metrics_.setQueueDepth(queue_.len() + queue_.delayedLen());
    if (pastDrainDeadline()) {
      queue_.done(*key);
      continue;
    }
    if (!keys::isService(*key)) {
      finish(*key, reconciler_->reconcile(*key));
      // A full pass copies every Service; hand that memory back to the system afterwards.
      if (*key == keys::kConfig || *key == keys::kReprocess) malloc_trim(0);
      continue;
    }
    std::vector<std::string> batch{*key};
    std::optional<std::string> other;
    while (batch.size() < options_.max_batch) {
      auto next = queue_.tryGet();
      if (!next) break;
      if (!keys::isService(*next)) {
        other = std::move(next);
        break;
      }
      batch.push_back(std::move(*next));
    }
    const auto results = reconciler_->reconcileServices(batch);
    for (size_t i = 0; i < batch.size(); ++i) finish(batch[i], results[i]);
    if (other) finish(*other, reconciler_->reconcile(*other));
  }
}

}  // namespace ingot::controller
