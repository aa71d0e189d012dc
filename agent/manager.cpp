// SPDX-License-Identifier: Apache-2.0
#include "agent/manager.h"

#include "agent/writes.h"
#include "api/codec.h"
#include "frrgen/build.h"
#include "kube/resources.h"

namespace ingot::agent {
namespace {

using ErrorHandler = std::function<void(const Error&)>;

template <typename T>
std::function<Result<T>(std::string_view)> decoder() {
  return [](std::string_view json) { return api::decodeJson<T>(json); };
}

/// enqueueOn returns handlers that add key on every add, update and delete.
template <typename T>
typename k8s::Informer<T>::Handlers enqueueOn(k8s::WorkQueue& q,
                                              std::string_view key,
                                              ErrorHandler err) {
  using Ptr = typename k8s::Informer<T>::Ptr;
  auto add = [&q, k = std::string(key)](const Ptr&) { q.add(k); };
  return {add, [add](const Ptr&, const Ptr& n) { add(n); }, add, std::move(err)};
}

bool networkUnavailable(const api::Node& n) {
  for (const auto& c : n.conditions) {
    if (c.type == "NetworkUnavailable") return c.status == "True";
  }
  return false;
}

/// Nodes: labels feed the configuration (peer and advertisement node selectors); this node's
/// NetworkUnavailable condition feeds the decision. Heartbeats change neither.
k8s::Informer<api::Node>::Handlers nodeHandlers(k8s::WorkQueue& q,
                                                const std::string& own,
                                                ErrorHandler err) {
  using Ptr = k8s::Informer<api::Node>::Ptr;
  auto config = [&q](const Ptr&) { q.add(std::string(keys::kConfig)); };
  return {
      config,
      [&q, own](const Ptr& o, const Ptr& n) {
        if (o->metadata.labels != n->metadata.labels) {
          q.add(std::string(keys::kConfig));
        } else if (n->metadata.name == own && networkUnavailable(*o) != networkUnavailable(*n)) {
          q.add(std::string(keys::kSync));
        }
      },
      config, std::move(err)};
}

/// The own FRRConfiguration: any change (ours echoing back, or someone's edit or delete) is
/// compared with the desired spec after the debounce.
k8s::Informer<api::FRRConfiguration>::Handlers frrHandlers(k8s::WorkQueue& q,
                                                           k8s::Duration debounce,
                                                           ErrorHandler err) {
  using Ptr = k8s::Informer<api::FRRConfiguration>::Ptr;
  auto bgp = [&q, debounce](const Ptr&) { q.addAfter(std::string(keys::kBgp), debounce); };
  return {bgp, [bgp](const Ptr&, const Ptr& n) { bgp(n); }, bgp, std::move(err)};
}

template <typename T>
std::unique_ptr<k8s::Informer<T>> informer(k8s::ApiClient& api,
                                           const k8s::ResourceRef& ref,
                                           const std::string& ns,
                                           typename k8s::Informer<T>::Handlers handlers,
                                           const k8s::InformerOptions& options) {
  return std::make_unique<k8s::Informer<T>>(api, ref, ns, decoder<T>(), std::move(handlers),
                                            options);
}

}  // namespace

Manager::Manager(k8s::ApiClient& api,
                 EventSink& events,
                 Metrics& metrics,
                 log::Logger& logger,
                 ManagerOptions options,
                 FrrApply* frr)
    : log_(logger), metrics_(metrics), options_(std::move(options)), queue_(options_.queue) {
  namespace r = k8s::resources;
  const auto& ro = options_.reconciler;
  const std::string& ns = ro.namespace_;
  const ErrorHandler err = [this](const Error& e) { log_.warn("informer", "error", e.message); };
  const auto& io = options_.informer;
  const std::string config(keys::kConfig);
  const std::string sync(keys::kSync);
  services_ =
      informer<api::Service>(api, r::kServices, "", enqueueOn<api::Service>(queue_, sync, err), io);
  slices_ = informer<api::EndpointSlice>(api, r::kEndpointSlices, "",
                                         enqueueOn<api::EndpointSlice>(queue_, sync, err), io);
  nodes_ = informer<api::Node>(api, r::kNodes, "", nodeHandlers(queue_, ro.node, err), io);
  namespaces_ = informer<api::Namespace>(api, r::kNamespaces, "",
                                         enqueueOn<api::Namespace>(queue_, config, err), io);
  pools_ = informer<api::IPAddressPool>(api, r::kIpAddressPools, ns,
                                        enqueueOn<api::IPAddressPool>(queue_, config, err), io);
  peers_ = informer<api::BGPPeer>(api, r::kBgpPeers, ns,
                                  enqueueOn<api::BGPPeer>(queue_, config, err), io);
  bgp_ads_ = informer<api::BGPAdvertisement>(
      api, r::kBgpAdvertisements, ns, enqueueOn<api::BGPAdvertisement>(queue_, config, err), io);
  l2_ads_ = informer<api::L2Advertisement>(
      api, r::kL2Advertisements, ns, enqueueOn<api::L2Advertisement>(queue_, config, err), io);
  bfd_profiles_ = informer<api::BFDProfile>(api, r::kBfdProfiles, ns,
                                            enqueueOn<api::BFDProfile>(queue_, config, err), io);
  communities_ = informer<api::Community>(api, r::kCommunities, ns,
                                          enqueueOn<api::Community>(queue_, config, err), io);
  secrets_ =
      informer<api::Secret>(api, r::kSecrets, ns, enqueueOn<api::Secret>(queue_, config, err), io);
  k8s::InformerOptions own_frr = io;
  own_frr.reflector.field_selector = "metadata.name=" + frrgen::configName(ro.node);
  frr_configs_ =
      informer<api::FRRConfiguration>(api, r::kFrrConfigurations, ro.build.frrk8s_namespace,
                                      frrHandlers(queue_, ro.debounce, err), own_frr);
  k8s::InformerOptions own_statuses = io;
  own_statuses.reflector.label_selector = std::string(kNodeLabel) + "=" + ro.node;
  bgp_statuses_ = informer<api::ServiceBGPStatus>(
      api, r::kServiceBgpStatuses, ns, enqueueOn<api::ServiceBGPStatus>(queue_, sync, err),
      own_statuses);
  k8s::InformerOptions own_state = io;
  own_state.reflector.field_selector = "metadata.name=" + stateName(ro.node);
  states_ = informer<api::ConfigurationState>(
      api, r::kConfigurationStates, ns,
      enqueueOn<api::ConfigurationState>(queue_, keys::kState, err), own_state);
  reconciler_ = std::make_unique<Reconciler>(
      Caches{services_->store(), slices_->store(), nodes_->store(), namespaces_->store(),
             pools_->store(), peers_->store(), bgp_ads_->store(), l2_ads_->store(),
             bfd_profiles_->store(), communities_->store(), secrets_->store(),
             frr_configs_->store(), bgp_statuses_->store(), states_->store()},
      api, events, queue_, metrics_, log_, options_.reconciler, frr);
}

Manager::~Manager() {
  stop();
}

std::string Manager::unsynced() const {
  std::string out;
  auto check = [&out](bool synced, const char* name) {
    if (!synced) out += std::string(" ") + name;
  };
  check(services_->hasSynced(), "services");
  check(slices_->hasSynced(), "endpointslices");
  check(nodes_->hasSynced(), "nodes");
  check(namespaces_->hasSynced(), "namespaces");
  check(pools_->hasSynced(), "ipaddresspools");
  check(peers_->hasSynced(), "bgppeers");
  check(bgp_ads_->hasSynced(), "bgpadvertisements");
  check(l2_ads_->hasSynced(), "l2advertisements");
  check(bfd_profiles_->hasSynced(), "bfdprofiles");
  check(communities_->hasSynced(), "communities");
  check(secrets_->hasSynced(), "secrets");
  check(options_.reconciler.mode == BgpMode::Frr || frr_configs_->hasSynced(), "frrconfigurations");
  check(bgp_statuses_->hasSynced(), "servicebgpstatuses");
  check(states_->hasSynced(), "configurationstates");
  return out;
}

Result<void> Manager::start(const std::stop_token& stop) {
  queue_.add(std::string(keys::kConfig));  // parse first; every other key queues behind it
  services_->start();
  slices_->start();
  nodes_->start();
  namespaces_->start();
  pools_->start();
  peers_->start();
  bgp_ads_->start();
  l2_ads_->start();
  bfd_profiles_->start();
  communities_->start();
  secrets_->start();
  if (options_.reconciler.mode == BgpMode::FrrK8s) frr_configs_->start();
  bgp_statuses_->start();
  states_->start();
  const auto deadline = std::chrono::steady_clock::now() + options_.cache_sync_timeout;
  while (!unsynced().empty()) {
    if (stop.stop_requested()) return Error{ErrorCode::Unavailable, "stopped before caches synced"};
    if (std::chrono::steady_clock::now() > deadline) {
      return Error{ErrorCode::Unavailable, "caches did not sync within the timeout:" + unsynced()};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  log_.info("manager", "caches_synced", "every cache holds a complete list; starting the worker",
            {log::num("services", static_cast<long long>(services_->store().size())),
             log::num("peers", static_cast<long long>(peers_->store().size()))});
  worker_ = std::jthread([this] { work(); });
  return {};
}

void Manager::stop() {
  services_->stop();
  slices_->stop();
  nodes_->stop();
  namespaces_->stop();
  pools_->stop();
  peers_->stop();
  bgp_ads_->stop();
  l2_ads_->stop();
  bfd_profiles_->stop();
  communities_->stop();
  secrets_->stop();
  frr_configs_->stop();
  bgp_statuses_->stop();
  states_->stop();
  queue_.shutDown();
  if (worker_.joinable()) worker_.join();
}

void Manager::work() {
  while (auto key = queue_.get()) {
    metrics_.setQueueDepth(queue_.len() + queue_.delayedLen());
    if (queue_.shuttingDown()) {
      queue_.done(*key);
      continue;
    }
    const ReconcileResult r = reconciler_->reconcile(*key);
    if (r.kind == ReconcileResult::Kind::Done) {
      queue_.forget(*key);
    } else if (r.kind == ReconcileResult::Kind::RetryAfter) {
      queue_.addAfter(*key, r.delay);
    } else {
      const k8s::Duration delay = queue_.addRateLimited(*key);
      log_.debug("manager", "requeue", r.error.message,
                 {{"key", *key},
                  log::num("delay_ms",
                           std::chrono::duration_cast<std::chrono::milliseconds>(delay).count())});
    }
    queue_.done(*key);
  }
}

}  // namespace ingot::agent
