// SPDX-License-Identifier: Apache-2.0
#include "controller/announce_watch.h"

#include "api/codec.h"
#include "controller/compact_cache.h"
#include "controller/core/projections.h"
#include "kube/compact_cache.h"
#include "kube/resources.h"

namespace ingot::controller {
namespace {

using ErrorHandler = std::function<void(const Error&)>;

/// onChange calls enqueue with the object of every add and delete, and with both objects of an
/// update for which changed(old, new) holds; objects are cached as project leaves them (null:
/// whole).
template <typename T, typename Enqueue, typename Changed>
typename k8s::Informer<T>::Handlers onChange(Enqueue enqueue,
                                             Changed changed,
                                             ErrorHandler err,
                                             void (*project)(T&) = nullptr) {
  using Ptr = typename k8s::Informer<T>::Ptr;
  typename k8s::Informer<T>::Handlers h{[enqueue](const Ptr& o) { enqueue(*o); },
                                        [enqueue, changed](const Ptr& o, const Ptr& n) {
                                          if (changed(*o, *n)) {
                                            enqueue(*o);
                                            enqueue(*n);
                                          }
                                        },
                                        [enqueue](const Ptr& o) { enqueue(*o); }, std::move(err)};
  if (project != nullptr) {
    h.transform = project;
  }
  return h;
}

/// anyChange treats every update as a change (the cache drops updates that change nothing).
inline constexpr auto kAnyChange = [](const auto&, const auto&) { return true; };

template <typename T>
typename k8s::Informer<T>::Handlers allOn(k8s::WorkQueue& q, ErrorHandler err) {
  return onChange<T>([&q](const T&) { q.add(std::string(keys::kAnnounceAll)); }, kAnyChange,
                     std::move(err));
}

/// indexedBy returns handlers whose store is indexed by the Service key service(obj) gives,
/// and which enqueue that Service's check on every change (both Services' on an update that
/// moves the object).
template <typename T>
typename k8s::Informer<T>::Handlers indexedBy(k8s::WorkQueue& q,
                                              std::string (*service)(const T&),
                                              ErrorHandler err,
                                              void (*project)(T&)) {
  auto enqueue = [&q, service](const T& obj) {
    if (std::string key = service(obj); !key.empty()) {
      q.add(keys::announce(key));
    }
  };
  auto handlers = onChange<T>(enqueue, kAnyChange, std::move(err), project);
  handlers.index = service;
  return handlers;
}

/// An EndpointSlice names its Service in the kubernetes.io/service-name label; the cache keeps
/// it packed (k8s::PackedSlice).
k8s::Informer<k8s::PackedSlice>::Handlers sliceHandlers(k8s::WorkQueue& q, ErrorHandler err) {
  return indexedBy<k8s::PackedSlice>(q, k8s::packedSliceService, std::move(err), nullptr);
}

/// A ServiceL2Status or ServiceBGPStatus names its Service in its status; the caches keep them
/// packed (PackedReport).
k8s::Informer<PackedReport>::Handlers reportHandlers(k8s::WorkQueue& q, ErrorHandler err) {
  return indexedBy<PackedReport>(q, reportServiceKey, std::move(err), nullptr);
}

/// Nodes matter through their labels and conditions; their heartbeats do not.
k8s::Informer<api::Node>::Handlers nodeHandlers(k8s::WorkQueue& q, ErrorHandler err) {
  return onChange<api::Node>([&q](const api::Node&) { q.add(std::string(keys::kAnnounceAll)); },
                             [](const api::Node& o, const api::Node& n) {
                               return o.metadata.labels != n.metadata.labels ||
                                      o.conditions != n.conditions;
                             },
                             std::move(err), projectNode);
}

/// Agent Pods matter through where they run and whether they are ready.
k8s::Informer<api::Pod>::Handlers podHandlers(k8s::WorkQueue& q, ErrorHandler err) {
  return onChange<api::Pod>([&q](const api::Pod&) { q.add(std::string(keys::kAnnounceAll)); },
                            [](const api::Pod& o, const api::Pod& n) {
                              return o.ready != n.ready || o.node_name != n.node_name ||
                                     o.metadata.deletion_timestamp != n.metadata.deletion_timestamp;
                            },
                            std::move(err), projectPod);
}

}  // namespace

std::unique_ptr<AnnounceCaches> addAnnounceInformers(k8s::InformerSet& set,
                                                     k8s::ApiClient& api,
                                                     k8s::WorkQueue& q,
                                                     const std::string& ns,
                                                     const std::string& agent_labels,
                                                     const k8s::InformerOptions& io,
                                                     const ErrorHandler& err) {
  namespace r = k8s::resources;
  k8s::InformerOptions pods_io = io;
  pods_io.reflector.label_selector = agent_labels;
  return std::unique_ptr<AnnounceCaches>(new AnnounceCaches{
      set.add<api::Node>("nodes", api, r::kNodes, "", api::jsonDecoder<api::Node>(),
                         nodeHandlers(q, err), io),
      k8s::StoreView<api::EndpointSlice>(
          set.add<k8s::PackedSlice>("endpointslices", api, r::kEndpointSlices, "",
                                    k8s::packedDecoder(k8s::packSlice), sliceHandlers(q, err), io),
          k8s::unpackSlice),
      set.add<api::BGPPeer>("bgppeers", api, r::kBgpPeers, ns, api::jsonDecoder<api::BGPPeer>(),
                            allOn<api::BGPPeer>(q, err), io),
      set.add<api::BGPAdvertisement>("bgpadvertisements", api, r::kBgpAdvertisements, ns,
                                     api::jsonDecoder<api::BGPAdvertisement>(),
                                     allOn<api::BGPAdvertisement>(q, err), io),
      set.add<api::L2Advertisement>("l2advertisements", api, r::kL2Advertisements, ns,
                                    api::jsonDecoder<api::L2Advertisement>(),
                                    allOn<api::L2Advertisement>(q, err), io),
      k8s::StoreView<api::ServiceL2Status>(
          set.add<PackedReport>("servicel2statuses", api, r::kServiceL2Statuses, ns,
                                k8s::packedDecoder(packL2Report), reportHandlers(q, err), io),
          unpackL2Report),
      k8s::StoreView<api::ServiceBGPStatus>(
          set.add<PackedReport>("servicebgpstatuses", api, r::kServiceBgpStatuses, ns,
                                k8s::packedDecoder(packBgpReport), reportHandlers(q, err), io),
          unpackBgpReport),
      set.add<api::Pod>("agentpods", api, r::kPods, ns, api::jsonDecoder<api::Pod>(),
                        podHandlers(q, err), pods_io),
  });
}

}  // namespace ingot::controller
