// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/daemon.h"

#include "api/codec.h"
#include "kube/resources.h"

namespace ingot::ingotfrr {
namespace {

template <typename T>
std::function<Result<T>(std::string_view)> decoder() {
  return [](std::string_view json) { return api::decodeJson<T>(json); };
}

/// entryDecoder never fails: an object that does not decode is kept with its reason.
std::function<Result<Entry>(std::string_view)> entryDecoder() {
  return [](std::string_view json) -> Result<Entry> { return decodeEntry(json); };
}

template <typename T>
typename k8s::Informer<T>::Handlers onEveryChange(const std::function<void()>& fire,
                                                  std::function<void(const Error&)> err) {
  using Ptr = typename k8s::Informer<T>::Ptr;
  return {[fire](const Ptr&) { fire(); }, [fire](const Ptr&, const Ptr&) { fire(); },
          [fire](const Ptr&) { fire(); }, std::move(err)};
}

/// The Node matters only through its labels (heartbeats change nothing).
k8s::Informer<api::Node>::Handlers onLabels(const std::function<void()>& fire,
                                            std::function<void(const Error&)> err) {
  using Ptr = k8s::Informer<api::Node>::Ptr;
  return {[fire](const Ptr&) { fire(); },
          [fire](const Ptr& o, const Ptr& n) {
            if (o->metadata.labels != n->metadata.labels) {
              fire();
            }
          },
          [fire](const Ptr&) { fire(); }, std::move(err)};
}

k8s::ControllerOptions controllerOptions(const DaemonOptions& o) {
  k8s::ControllerOptions out;
  out.queue = o.queue;
  out.cache_sync_timeout = o.cache_sync_timeout;
  return out;
}

}  // namespace

Daemon::Daemon(k8s::ApiClient& api,
               k8s::EventSink& events,
               Metrics& metrics,
               log::Logger& logger,
               frr::FrrPort& frr,
               DaemonOptions options)
    : options_(std::move(options)),
      log_(logger),
      controller_("ingot-frr", logger, controllerOptions(options_)),
      state_(api, options_.worker.node) {
  namespace r = k8s::resources;
  const std::string& ns = options_.worker.namespace_;
  const std::function<void()> fire = [this] { trigger(); };
  const auto err = [this](const Error& e) { log_.warn("informer", "error", e.message); };
  auto& set = controller_.informers();
  const auto& configs =
      set.add<Entry>("frrconfigurations", api, r::kFrrConfigurations, ns, entryDecoder(),
                     onEveryChange<Entry>(fire, err), options_.informer);
  const auto& secrets =
      set.add<api::Secret>("secrets", api, r::kSecrets, ns, decoder<api::Secret>(),
                           onEveryChange<api::Secret>(fire, err), options_.informer);
  k8s::InformerOptions own = options_.informer;
  own.reflector.field_selector = "metadata.name=" + options_.worker.node;
  const auto& nodes = set.add<api::Node>("nodes", api, r::kNodes, "", decoder<api::Node>(),
                                         onLabels(fire, err), own);
  worker_ = std::make_unique<Worker>(Inputs{configs, secrets, nodes}, frr, state_,
                                     controller_.queue(), events, metrics, logger, options_.worker);
}

Daemon::~Daemon() {
  stop();
}

void Daemon::trigger() {
  // At once after the cool-down; within it, the apply at its end takes every change (the queue
  // keeps the earliest of several delays, and the worker defers an apply handed out early).
  controller_.queue().addAfter(kApplyKey, worker_->changeDelay());
}

Result<void> Daemon::start(const std::stop_token& stop) {
  controller_.queue().add(kApplyKey);
  k8s::Reconcile run;
  run.reconcile = [this](const std::string& key) { return worker_->reconcile(key); };
  return controller_.start(std::move(run), stop);
}

void Daemon::stop() {
  controller_.stop();
}

}  // namespace ingot::ingotfrr
