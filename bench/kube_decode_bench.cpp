// SPDX-License-Identifier: Apache-2.0
// Decoding cost of what the kube library reads itself from the API server, the way a reflector
// does it: a watch stream framed by WatchDecoder (fed in 64 KiB chunks, as RestClient reads it)
// followed by rawObjectMeta on each event, and a 10,000-object list page decoded by parseListPage
// followed by rawObjectMeta on each item. Reports objects per second and heap allocations per
// object (alloc_counter.cpp counts every malloc/calloc/realloc of the process).
//
// Run: build/bench/ingot_bench_kube_decode --benchmark_repetitions=5
// --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>
#include <string>

#include "bench/alloc_counter.h"
#include "kube/reflector.h"
#include "kube/watch_decoder.h"

namespace {

using namespace ingot;

constexpr int kObjects = 10000;
constexpr size_t kChunk = 64 * 1024;

/// serviceJson is a LoadBalancer Service as the API server sends it (about 1.3 KB), with escapes
/// in an annotation so string decoding is exercised.
std::string serviceJson(int i) {
  const std::string n = std::to_string(i);
  return R"({"kind":"Service","apiVersion":"v1","metadata":{"name":"svc-)" + n +
         R"(","namespace":"team-)" + std::to_string(i % 50) +
         R"(","uid":"6f1c2a3e-0000-4000-8000-)" + std::to_string(100000000000 + i) +
         R"(","resourceVersion":")" + std::to_string(500000 + i) +
         R"(","creationTimestamp":"2026-01-01T00:00:00Z","labels":{"app":"web-)" + n +
         R"(","tier":"frontend"},"annotations":{"metallb.io/address-pool":"production",)"
         R"("kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":)"
         R"(\"Service\",\"metadata\":{\"name\":\"svc\"}}\n"}},"spec":{"type":"LoadBalancer",)"
         R"("selector":{"app":"web"},"ports":[{"name":"http","protocol":"TCP","port":80,)"
         R"("targetPort":8080,"nodePort":31080},{"name":"https","protocol":"TCP","port":443,)"
         R"("targetPort":8443,"nodePort":31443}],"clusterIP":"10.96.)" +
         std::to_string(i / 250 % 250) + "." + std::to_string(i % 250) +
         R"(","clusterIPs":["10.96.0.1"],"sessionAffinity":"None","externalTrafficPolicy":)"
         R"("Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",)"
         R"("allocateLoadBalancerNodePorts":true,"internalTrafficPolicy":"Cluster"},)"
         R"("status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.)" +
         std::to_string(i % 250) + R"(","ipMode":"VIP"}]}}})";
}

const std::string& watchStream() {
  static const std::string kStream = [] {
    std::string out;
    for (int i = 0; i < kObjects; ++i) {
      out += R"({"type":"MODIFIED","object":)" + serviceJson(i) + "}\n";
    }
    return out;
  }();
  return kStream;
}

const std::string& listBody() {
  static const std::string kBody = [] {
    std::string out = R"({"kind":"ServiceList","apiVersion":"v1","metadata":)"
                      R"({"resourceVersion":"612345"},"items":[)";
    for (int i = 0; i < kObjects; ++i) {
      out += (i == 0 ? "" : ",") + serviceJson(i);
    }
    return out + "]}";
  }();
  return kBody;
}

void report(benchmark::State& state, long long allocations, size_t bytes) {
  const auto objects = static_cast<double>(state.iterations()) * kObjects;
  state.SetItemsProcessed(static_cast<int64_t>(objects));
  state.SetBytesProcessed(static_cast<int64_t>(static_cast<double>(state.iterations()) * bytes));
  state.counters["allocs_per_object"] = static_cast<double>(allocations) / objects;
}

/// BM_WatchEvents: frame and decode kObjects MODIFIED events, then read each object's metadata.
void BM_WatchEvents(benchmark::State& state) {
  const std::string& stream = watchStream();
  long long allocations = 0;
  for (auto _ : state) {
    const long long before = bench::allocationCount();
    k8s::WatchDecoder decoder;
    size_t events = 0;
    for (size_t at = 0; at < stream.size(); at += kChunk) {
      auto batch = decoder.feed(std::string_view(stream).substr(at, kChunk));
      if (!batch) {
        state.SkipWithError(batch.error().message.c_str());
        return;
      }
      for (const k8s::WatchEvent& e : *batch) {
        auto meta = k8s::rawObjectMeta(e.object);
        benchmark::DoNotOptimize(meta);
        ++events;
      }
    }
    if (events != kObjects) {
      state.SkipWithError("wrong event count");
      return;
    }
    allocations += bench::allocationCount() - before;
  }
  report(state, allocations, stream.size());
}
BENCHMARK(BM_WatchEvents)->Unit(benchmark::kMillisecond);

/// BM_List10k: decode one page of kObjects items, then read each item's metadata.
void BM_List10k(benchmark::State& state) {
  const std::string& body = listBody();
  long long allocations = 0;
  for (auto _ : state) {
    const long long before = bench::allocationCount();
    auto page = k8s::parseListPage(body);
    if (!page || page->items.size() != kObjects) {
      state.SkipWithError("list did not decode");
      return;
    }
    for (const std::string& item : page->items) {
      auto meta = k8s::rawObjectMeta(item);
      benchmark::DoNotOptimize(meta);
    }
    allocations += bench::allocationCount() - before;
  }
  report(state, allocations, body.size());
}
BENCHMARK(BM_List10k)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
