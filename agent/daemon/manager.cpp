// SPDX-License-Identifier: Apache-2.0
#include "agent/daemon/manager.h"

#include <thread>

#include "agent/reconcile/writes.h"
#include "api/codec.h"
#include "frrgen/build.h"
#include "kube/resources.h"

namespace ingot::agent {
namespace {

using ErrorHandler = std::function<void(const Error&)>;

/// enqueueOn returns handlers that add key on every add, update and delete.
template <typename T>
typename k8s::Informer<T>::Handlers enqueueOn(k8s::WorkQueue& q,
                                              std::string_view key,
                                              ErrorHandler err) {
  using Ptr = typename k8s::Informer<T>::Ptr;
  auto add = [&q, k = std::string(key)](const Ptr&) { q.add(k); };
  return {add, [add](const Ptr&, const Ptr& n) { add(n); }, add, std::move(err)};
}

/// perService returns handlers that add the work-queue key of the Service an object belongs to
/// (owner: "" = none, then `fallback` unless empty; both the old and the new owner on an update),
/// with the store indexed by that owner when `indexed`.
template <typename T>
typename k8s::Informer<T>::Handlers perService(k8s::WorkQueue& q,
                                               std::string (*owner)(const T&),
                                               const std::string& fallback,
                                               ErrorHandler err,
                                               bool indexed = true) {
  using Ptr = typename k8s::Informer<T>::Ptr;
  auto add = [&q, owner, fallback](const Ptr& o) {
    if (std::string key = owner(*o); !key.empty()) {
      q.add(keys::service(key));
    } else if (!fallback.empty()) {
      q.add(fallback);
    }
  };
  auto update = [add, owner](const Ptr& o, const Ptr& n) {
    if (owner(*o) != owner(*n)) add(o);
    add(n);
  };
  typename k8s::Store<T>::IndexFn index;
  if (indexed) index = owner;
  return {add, update, add, std::move(err), {}, std::move(index)};
}

/// projected returns handlers with their cached objects projected by project.
template <typename T>
typename k8s::Informer<T>::Handlers projected(typename k8s::Informer<T>::Handlers handlers,
                                              void (*project)(T&)) {
  handlers.transform = project;
  return handlers;
}

std::string serviceOwner(const api::Service& svc) {
  return k8s::objectKey(svc.metadata.namespace_, svc.metadata.name);
}

bool networkUnavailable(const api::Node& n) {
  for (const auto& c : n.conditions) {
    if (c.type == "NetworkUnavailable") return c.status == "True";
  }
  return false;
}

/// Nodes: labels feed the configuration (peer and advertisement node selectors); this node's
/// NetworkUnavailable condition feeds the BGP decision and every node's the Layer 2 election.
/// Heartbeats change neither. With memberlist, a change of this node's Node object makes it join
/// the missing agents (as MetalLB does).
k8s::Informer<api::Node>::Handlers nodeHandlers(k8s::WorkQueue& q,
                                                const std::string& own,
                                                MembershipSource* membership,
                                                ErrorHandler err) {
  using Ptr = k8s::Informer<api::Node>::Ptr;
  // Labels feed both the configuration (selectors) and the decisions directly (the exclude
  // label), and an unchanged configuration starts no pass: a label change queues both.
  auto config = [&q](const Ptr&) {
    q.add(std::string(keys::kConfig));
    q.add(std::string(keys::kSync));
  };
  return {config,
          [&q, own, membership](const Ptr& o, const Ptr& n) {
            if (membership != nullptr && n->metadata.name == own &&
                (o->metadata.labels != n->metadata.labels || o->conditions != n->conditions)) {
              membership->rejoin();
            }
            if (o->metadata.labels != n->metadata.labels) {
              q.add(std::string(keys::kConfig));
              q.add(std::string(keys::kSync));
            } else if (networkUnavailable(*o) != networkUnavailable(*n) ||
                       o->unschedulable != n->unschedulable || o->taints != n->taints ||
                       o->conditions != n->conditions) {
              q.add(std::string(keys::kSync));  // the election or a drain may change
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

k8s::ControllerOptions controllerOptions(const ManagerOptions& o, Metrics& metrics) {
  k8s::ControllerOptions out;
  out.queue = o.queue;
  out.cache_sync_timeout = o.cache_sync_timeout;
  out.on_queue_depth = [&metrics](size_t depth) { metrics.setQueueDepth(depth); };
  return out;  // drain_timeout 0: keys still queued at shutdown are dropped
}

}  // namespace

Manager::Manager(k8s::ApiClient& api,
                 EventSink& events,
                 Metrics& metrics,
                 log::Logger& logger,
                 ManagerOptions options,
                 BackendFactory backends)
    : log_(logger),
      options_(std::move(options)),
      controller_("manager", logger, controllerOptions(options_, metrics)) {
  namespace r = k8s::resources;
  const auto& ro = options_.reconciler;
  const std::string& ns = ro.namespace_;
  const ErrorHandler err = [this](const Error& e) { log_.warn("informer", "error", e.message); };
  const auto& io = options_.informer;
  const std::string config(keys::kConfig);
  const std::string sync(keys::kSync);
  k8s::WorkQueue& q = controller_.queue();
  k8s::InformerSet& set = controller_.informers();
  // add declares one informer whose every change enqueues key.
  auto add = [&]<typename T>(std::type_identity<T>, const char* name, const k8s::ResourceRef& ref,
                             const std::string& in, const std::string& key) -> const auto& {
    return set.add<T>(name, api, ref, in, api::jsonDecoder<T>(), enqueueOn<T>(q, key, err), io);
  };
  // A Service, its EndpointSlices and its ServiceBGPStatus: that one Service is decided again.
  const auto& services = set.add<api::Service>(
      "services", api, r::kServices, "", api::jsonDecoder<api::Service>(),
      projected(perService<api::Service>(q, serviceOwner, "", err, false), projectService), io);
  const auto& slices =
      set.add<PackedSlice>("endpointslices", api, r::kEndpointSlices, "", packedDecoder(packSlice),
                           perService<PackedSlice>(q, packedSliceService, "", err), io);
  const auto& nodes = set.add<api::Node>(
      "nodes", api, r::kNodes, "", api::jsonDecoder<api::Node>(),
      projected(nodeHandlers(q, ro.node, options_.membership, err), projectNode), io);
  const auto& namespaces =
      add(std::type_identity<api::Namespace>{}, "namespaces", r::kNamespaces, "", config);
  const auto& pools = add(std::type_identity<api::IPAddressPool>{}, "ipaddresspools",
                          r::kIpAddressPools, ns, config);
  const auto& peers = add(std::type_identity<api::BGPPeer>{}, "bgppeers", r::kBgpPeers, ns, config);
  const auto& bgp_ads = add(std::type_identity<api::BGPAdvertisement>{}, "bgpadvertisements",
                            r::kBgpAdvertisements, ns, config);
  const auto& l2_ads = add(std::type_identity<api::L2Advertisement>{}, "l2advertisements",
                           r::kL2Advertisements, ns, config);
  const auto& bfd =
      add(std::type_identity<api::BFDProfile>{}, "bfdprofiles", r::kBfdProfiles, ns, config);
  const auto& communities =
      add(std::type_identity<api::Community>{}, "communities", r::kCommunities, ns, config);
  const auto& secrets = add(std::type_identity<api::Secret>{}, "secrets", r::kSecrets, ns, config);
  k8s::InformerOptions own_frr = io;
  own_frr.reflector.field_selector = "metadata.name=" + frrgen::configName(ro.node);
  // Outside the sync gate: frr-k8s may not be installed (Layer 2 only) or go away while the agent
  // runs. FrrK8sBackend learns whether FRRConfiguration is served and reads the live object
  // before every write, so its cache may lag; a 404 while the reflector retries is expected and
  // makes the backend ask again (the CRD may have just been deleted).
  const ErrorHandler frr_err = [this, &q](const Error& e) {
    if (e.code == ErrorCode::NotFound) {
      log_.debug("informer", "not_served", e.message, {{"informer", "frrconfigurations"}});
      q.add(std::string(keys::kRecheck));
    } else {
      log_.warn("informer", "error", e.message);
    }
  };
  const auto& frr_configs = set.add<api::FRRConfiguration>(
      "frrconfigurations", api, r::kFrrConfigurations, ro.build.frrk8s_namespace,
      api::jsonDecoder<api::FRRConfiguration>(), frrHandlers(q, ro.debounce, frr_err), own_frr,
      options_.watch_frr_configurations, false);
  k8s::InformerOptions own_statuses = io;
  own_statuses.reflector.label_selector = std::string(kNodeLabel) + "=" + ro.node;
  const auto& statuses = set.add<PackedBgpStatus>(
      "servicebgpstatuses", api, r::kServiceBgpStatuses, ns, packedDecoder(packBgpStatus),
      perService<PackedBgpStatus>(q, packedStatusService, sync, err), own_statuses);
  k8s::InformerOptions own_state = io;
  own_state.reflector.field_selector = "metadata.name=" + stateName(ro.node);
  const auto& states = set.add<api::ConfigurationState>(
      "configurationstates", api, r::kConfigurationStates, ns,
      api::jsonDecoder<api::ConfigurationState>(),
      enqueueOn<api::ConfigurationState>(q, keys::kState, err), own_state);
  // Every node's ServiceL2Status: a change only needs the Layer 2 backend to compare its objects.
  const auto& l2_statuses = add(std::type_identity<api::ServiceL2Status>{}, "servicel2statuses",
                                r::kServiceL2Statuses, ns, std::string(keys::kLayer2));
  if (options_.membership != nullptr) watchMembership(api);
  const Caches caches{services,
                      CacheView<api::EndpointSlice>(slices, unpackSlice),
                      nodes,
                      namespaces,
                      pools,
                      peers,
                      bgp_ads,
                      l2_ads,
                      bfd,
                      communities,
                      secrets,
                      frr_configs,
                      CacheView<api::ServiceBGPStatus>(statuses, unpackBgpStatus),
                      states,
                      l2_statuses};
  ReconcilerOptions with_live = ro;
  if (options_.membership != nullptr) with_live.live_nodes = &options_.membership->liveNodes();
  const BackendContext context{
      caches, api, events, q, metrics, log_, backendOptions(with_live), k8s::steadyClock()};
  reconciler_ =
      std::make_unique<Reconciler>(caches, k8s::ReconcileIo{api, events, q, log_}, metrics,
                                   with_live, backends ? backends(context) : Backends{});
}

void Manager::watchMembership(k8s::ApiClient& api) {
  using Ptr = k8s::Informer<api::Pod>::Ptr;
  MembershipSource& ml = *options_.membership;
  k8s::InformerOptions selected = options_.informer;
  selected.reflector.label_selector = ml.labels();
  // A new agent pod, or one whose IP changed, is joined at once; MetalLB re-lists every 5
  // minutes and joins every minute, which the join thread still does.
  auto added = [&ml](const Ptr& p) {
    if (!p->pod_ip.empty()) ml.rejoin();
  };
  k8s::Informer<api::Pod>::Handlers handlers{
      added,
      [&ml](const Ptr& o, const Ptr& n) {
        if (o->pod_ip != n->pod_ip && !n->pod_ip.empty()) ml.rejoin();
      },
      nullptr, [this](const Error& e) { log_.warn("informer", "error", e.message); }, projectPod};
  pods_ = &controller_.informers().add<api::Pod>(
      "pods", api, k8s::resources::kPods, options_.reconciler.namespace_,
      api::jsonDecoder<api::Pod>(), std::move(handlers), selected);
}

Manager::~Manager() {
  stop();
}

Result<void> Manager::start(const std::stop_token& stop) {
  reconciler_->startBackends();  // e.g. whether frr-k8s is installed, before the first decision
  controller_.queue().add(std::string(keys::kConfig));  // parse first; the rest queues behind it
  k8s::Reconcile run;
  run.reconcile = [this](const std::string& key) { return reconciler_->reconcile(key); };
  auto started = controller_.start(std::move(run), stop);
  if (!started || options_.membership == nullptr) return started;
  // memberlist binds only now: the other agents see this node alive (and stop answering for
  // what it wins) once its caches are synced and its first sync is queued.
  MemberMeta meta = options_.member_meta ? options_.member_meta() : MemberMeta{};
  meta.joined_ms = systemWallClockMs();  // the hold-down of a returning node counts from here
  if (auto set = options_.membership->setMetadata(encodeMemberMeta(meta)); !set) {
    return set;
  }
  k8s::WorkQueue& q = controller_.queue();
  return options_.membership->attach([&q] { q.add(std::string(keys::kMembers)); },
                                     [pods = pods_] {
                                       std::vector<std::string> ips;
                                       for (const auto& p : pods->list()) ips.push_back(p->pod_ip);
                                       return ips;
                                     });
}

void Manager::drainBeforeStop() {
  const DrainOptions& drain = options_.reconciler.announce.drain;
  if (!drain.triggers.contains(DrainTrigger::Sigterm) || !reconciler_->ready()) return;
  reconciler_->noteSigterm();
  controller_.queue().add(std::string(keys::kSync));
  using Clock = std::chrono::steady_clock;
  const auto poll = [this](Clock::time_point until, auto done) {
    while (!done(reconciler_->drainPhase()) && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done(reconciler_->drainPhase());
  };
  // The pass that sees SIGTERM runs within a second; no drain then means the node is not cordoned.
  if (!poll(Clock::now() + std::chrono::seconds(1),
            [](DrainPhase p) { return p != DrainPhase::Serving; })) {
    return;
  }
  log_.info("drain", "stopping_after_drain",
            "SIGTERM while cordoned: withdrawing the announcements before stopping");
  poll(Clock::now() + std::chrono::milliseconds(drain.delay_ms) + std::chrono::seconds(2),
       [](DrainPhase p) { return p == DrainPhase::Withdrawn; });
  std::this_thread::sleep_for(std::chrono::seconds(1));  // the withdrawal's apply (debounce)
}

void Manager::stop() {
  if (options_.membership != nullptr) options_.membership->detach();  // before the caches go
  controller_.stop();           // what is still queued is dropped: FRR keeps what was last applied
  reconciler_->stopBackends();  // the Layer 2 responder stops answering
}

}  // namespace ingot::agent
