// SPDX-License-Identifier: Apache-2.0
// Heap bytes per cached object in the daemons' informer caches, one kind at a time: the objects
// of bench/scale.py as the test API server returns them (decoded from JSON, projected or packed
// as each informer does, stored in a k8s::Store under its key and index), counted by glibc's
// mallinfo2 (bytes in use, on this one thread, so no arena and no RSS noise). Says which cache
// holds most per Service, and what packing saves.
//
//   build/bench/ingot_bench_cache_bytes [N]   (default 10000)
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <malloc.h>
#include <string>
#include <type_traits>

#include "agent/daemon/compact_cache.h"
#include "agent/daemon/manager.h"
#include "agent/reconcile/reconciler.h"
#include "api/codec.h"
#include "controller/compact_cache.h"
#include "controller/core/projections.h"
#include "controller/core/unannounced.h"
#include "kube/api_client.h"
#include "kube/compact_cache.h"
#include "kube/store.h"

using namespace ingot;

namespace {

std::string name(size_t i) {
  std::string n = std::to_string(i);
  return "s" + std::string(5 - std::min<size_t>(5, n.size()), '0') + n;
}

std::string uid(size_t i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0b5c3a1e-7d2f-4c9a-8e61-%012zx", i);
  return buf;
}

std::string meta(size_t i, const std::string& n, const std::string& extra) {
  return R"({"name":")" + n + R"(","namespace":"scale","uid":")" + uid(i) +
         R"(","resourceVersion":")" + std::to_string(100000 + i) +
         R"(","creationTimestamp":"2026-12-05T08:00:00Z")" + extra + "}";
}

/// A Service of bench/scale.py once the controller assigned it and wrote its status.
std::string serviceJson(size_t i) {
  const std::string n = name(i);
  const std::string ip = "10.96." + std::to_string(i / 250) + "." + std::to_string(1 + i % 250);
  return R"({"apiVersion":"v1","kind":"Service","metadata":)" +
         meta(i, n, R"(,"annotations":{"metallb.io/ip-allocated-from-pool":"scale-pool"})") +
         R"(,"spec":{"type":"LoadBalancer","externalTrafficPolicy":")" +
         (i % 2 == 0 ? "Local" : "Cluster") +
         R"(","allocateLoadBalancerNodePorts":false,"selector":{"app":")" + n +
         R"("},"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080}]},)" +
         R"("status":{"loadBalancer":{"ingress":[{"ip":")" + ip + R"(","ipMode":"VIP"}]}}})";
}

/// Its EndpointSlice: two endpoints on two nodes.
std::string sliceJson(size_t i) {
  std::string endpoints;
  for (size_t k = 0; k < 2; ++k) {
    if (k > 0) endpoints += ",";
    endpoints += R"({"addresses":["10.244.)" + std::to_string((i + k) % 250) + "." +
                 std::to_string(1 + i % 250) + R"("],"nodeName":"node)" +
                 std::to_string(1 + (i + k * 37) % 100) +
                 R"(","conditions":{"ready":true,"serving":true,"terminating":false}})";
  }
  return R"({"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":)" +
         meta(i, name(i) + "-a",
              R"(,"labels":{"kubernetes.io/service-name":")" + name(i) + R"("})") +
         R"(,"addressType":"IPv4","endpoints":[)" + endpoints +
         R"(],"ports":[{"name":"http","protocol":"TCP","port":8080}]})";
}

/// The ServiceBGPStatus the agent of node001 writes for it.
std::string statusJson(size_t i) {
  const std::string n = name(i);
  return R"({"apiVersion":"metallb.io/v1beta1","kind":"ServiceBGPStatus","metadata":)" +
         meta(
             i, "node001-" + n,
             R"(,"labels":{"metallb.io/node":"node001","metallb.io/service-name":")" + n +
                 R"(","metallb.io/service-namespace":"scale"},"ownerReferences":[{"apiVersion":"v1","kind":"Service","name":")" +
                 n + R"(","uid":")" + uid(i) + R"(","controller":true}])") +
         R"(,"status":{"node":"node001","serviceName":")" + n +
         R"(","serviceNamespace":"scale","peers":["tor1","tor2"]}})";
}

size_t inUse() {
  malloc_trim(0);
  return mallinfo2().uordblks;
}

/// measure fills a store of `Stored` with n objects as `decode` makes them from json(i) and
/// prints the heap bytes per object (store entries, keys and index included).
template <typename Stored>
void measure(const char* what,
             size_t n,
             std::string (*json)(size_t),
             const std::function<Stored(const std::string&)>& decode,
             typename k8s::Store<Stored>::IndexFn index) {
  std::vector<std::string> texts;
  texts.reserve(n);
  for (size_t i = 0; i < n; ++i) texts.push_back(json(i));
  const size_t before = inUse();
  {
    k8s::Store<Stored> store(std::move(index));
    for (size_t i = 0; i < n; ++i) {
      auto obj = std::make_shared<const Stored>(decode(texts[i]));
      store.upsert("scale/" + std::to_string(i), {std::move(obj), std::to_string(100000 + i)});
    }
    const size_t after = inUse();
    std::printf("%-58s %8.0f B per object, %6.2f MiB for %zu\n", what,
                static_cast<double>(after - before) / static_cast<double>(n),
                static_cast<double>(after - before) / (1024.0 * 1024.0), n);
  }
}

template <typename T>
std::function<T(const std::string&)> projected(void (*project)(T&)) {
  return [project](const std::string& text) {
    T obj = api::decodeJson<T>(text).value();
    if (project != nullptr) project(obj);
    return obj;
  };
}

template <typename T, typename Packed>
std::function<Packed(const std::string&)> packed(Packed (*pack)(const T&)) {
  return [pack](const std::string& text) { return pack(api::decodeJson<T>(text).value()); };
}

/// oldControllerProjection is the controller's projection before the caches were packed: the
/// current one plus the uid and resourceVersion, without the address type of a slice.
template <typename T>
std::function<T(const std::string&)> oldControllerProjection(void (*project)(T&)) {
  return [project](const std::string& text) {
    T obj = api::decodeJson<T>(text).value();
    std::string uid = obj.metadata.uid;
    std::string rv = obj.metadata.resource_version;
    project(obj);
    obj.metadata.uid = std::move(uid);
    obj.metadata.resource_version = std::move(rv);
    if constexpr (std::is_same_v<T, api::EndpointSlice>) obj.address_type.clear();
    return obj;
  };
}

/// Nothing stands for an object of no size: what the store costs per entry (key, resourceVersion,
/// shared_ptr, index).
struct Nothing {};

std::string indexOfNothing(const Nothing& /*unused*/) {
  static size_t next = 0;
  return "scale/" + name(next++);
}

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
  std::printf("heap bytes in use per cached object (mallinfo2), %zu objects of each kind\n", n);
  measure<Nothing>(
      "store entry alone, indexed (key, resourceVersion, index)", n, serviceJson,
      [](const std::string&) { return Nothing{}; }, indexOfNothing);
  measure<api::Service>("Service, decoded whole", n, serviceJson, projected<api::Service>(nullptr),
                        {});
  measure<api::Service>("Service, controller projection (its cache)", n, serviceJson,
                        projected(controller::projectService), {});
  measure<controller::PackedService>("Service, controller PackedService (its cache now)", n,
                                     serviceJson, packed(controller::packService), {});
  measure<api::Service>("Service, agent projection (its cache)", n, serviceJson,
                        projected(agent::projectService), {});
  measure<api::EndpointSlice>("EndpointSlice, decoded whole", n, sliceJson,
                              projected<api::EndpointSlice>(nullptr), controller::sliceServiceKey);
  measure<api::EndpointSlice>("EndpointSlice, controller projection before", n, sliceJson,
                              oldControllerProjection(controller::projectEndpointSlice),
                              controller::sliceServiceKey);
  measure<api::EndpointSlice>("EndpointSlice, agent projection before", n, sliceJson,
                              projected(agent::projectEndpointSlice), agent::sliceService);
  measure<k8s::PackedSlice>("EndpointSlice, k8s::PackedSlice (both daemons now)", n, sliceJson,
                            packed(k8s::packSlice), k8s::packedSliceService);
  measure<api::ServiceBGPStatus>("ServiceBGPStatus, controller projection before", n, statusJson,
                                 oldControllerProjection(controller::projectServiceBGPStatus),
                                 controller::bgpStatusServiceKey);
  measure<controller::PackedReport>("ServiceBGPStatus, controller PackedReport (now)", n,
                                    statusJson, packed(controller::packBgpReport),
                                    controller::reportServiceKey);
  measure<api::ServiceBGPStatus>("ServiceBGPStatus, agent projection before", n, statusJson,
                                 projected(agent::projectBgpStatus), agent::statusService);
  measure<agent::PackedBgpStatus>("ServiceBGPStatus, agent PackedBgpStatus (now)", n, statusJson,
                                  packed(agent::packBgpStatus), agent::packedStatusService);
  return 0;
}
