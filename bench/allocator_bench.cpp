// SPDX-License-Identifier: Apache-2.0
// Allocator and full-reprocess benchmarks (issue #3): 100k services across 10 mixed pools,
// 1M allocations in one IPv6 /48, and a full reprocess of 100k services that already hold
// addresses (a controller restart). Each reports peak RSS (VmHWM, MiB) as a counter.
#include <algorithm>
#include <benchmark/benchmark.h>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "api/types.h"
#include "bench/rss.h"
#include "config/config.h"
#include "controller/core/allocator.h"
#include "controller/core/reprocess.h"

namespace {

using namespace ingot;
using namespace ingot::controller;

constexpr int kServices = 100000;

config::Pool pool(const std::string& name,
                  const std::vector<std::string>& entries,
                  bool auto_assign = true,
                  bool avoid_buggy = false) {
  config::Pool p;
  p.name = name;
  p.auto_assign = auto_assign;
  p.avoid_buggy_ips = avoid_buggy;
  for (const auto& e : entries) {
    auto cidrs = net::parseCidrOrRange(e);
    if (!cidrs) {
      std::fprintf(stderr, "bad pool entry %s\n", e.c_str());
      std::abort();
    }
    p.cidrs.insert(p.cidrs.end(), cidrs->begin(), cidrs->end());
    p.entries.push_back(*cidrs);
  }
  return p;
}

/// mixedConfig: ten pools covering every rule: IPv4, avoidBuggyIPs, a range, IPv6 /64s,
/// dual-stack, a namespace-pinned pool, a service-selector pool and a manual pool.
config::Config mixedConfig() {
  config::Config cfg;
  auto add = [&](config::Pool p) { cfg.pools.emplace(p.name, std::move(p)); };
  add(pool("p0-v4", {"10.0.0.0/16"}));
  add(pool("p1-buggy", {"10.1.0.0/16"}, true, true));
  add(pool("p2-range", {"10.2.0.0-10.2.127.255"}));
  add(pool("p3-v6", {"fc00:0:0:3::/64"}));
  add(pool("p4-v6", {"fc00:0:0:4::/64"}));
  add(pool("p5-dual", {"10.5.0.0/16", "fc00:0:0:5::/64"}));
  add(pool("p6-dual", {"10.6.0.0/17", "fc00:0:0:6::/112"}));
  config::Pool pinned = pool("p7-ns", {"10.7.0.0/16"});
  pinned.allocation = config::ServiceAllocation{10, {"ns-7"}, true, {}};
  add(std::move(pinned));
  config::Pool gold = pool("p8-gold", {"10.8.0.0/16", "fc00:0:0:8::/64"});
  api::LabelSelector tier;
  tier.match_labels = {{"tier", "gold"}};
  gold.allocation = config::ServiceAllocation{5, {}, false, {tier}};
  add(std::move(gold));
  add(pool("p9-manual", {"10.9.0.0/16"}, false));
  return cfg;
}

/// mixedService i: 50% IPv4, 25% IPv6, 15% PreferDualStack, 10% RequireDualStack; every 20th in
/// a sharing group of 4 (distinct ports); every 20th (offset) asks for the manual pool; 10%
/// labelled tier=gold; 10 namespaces.
api::Service mixedService(int i) {
  api::Service svc;
  svc.metadata.namespace_ = "ns-" + std::to_string(i % 10);
  svc.metadata.name = "svc-" + std::to_string(i);
  svc.spec.type = "LoadBalancer";
  const int kind = i % 20;
  if (kind < 10) {
    svc.spec.cluster_ips = {"10.96.0.10"};
  } else if (kind < 15) {
    svc.spec.cluster_ips = {"fd00::10"};
  } else {
    svc.spec.cluster_ips = {"10.96.0.10", "fd00::10"};
    svc.spec.ip_family_policy = kind < 18 ? "PreferDualStack" : "RequireDualStack";
  }
  svc.spec.cluster_ip = svc.spec.cluster_ips.front();
  api::ServicePort port;
  port.port = 80 + (i / 20) % 4;
  svc.spec.ports = {port};
  if (kind == 3) {
    svc.metadata.annotations["metallb.io/allow-shared-ip"] = "group-" + std::to_string(i / 80);
  }
  if (kind == 7) {
    svc.metadata.annotations["metallb.io/address-pool"] = "p9-manual";
  }
  if (i % 10 == 1) {
    svc.metadata.labels["tier"] = "gold";
  }
  svc.spec.selector = {{"app", "svc-" + std::to_string(i)}};
  return svc;
}

std::vector<api::Service> mixedServices() {
  std::vector<api::Service> services;
  services.reserve(kServices);
  for (int i = 0; i < kServices; ++i) {
    services.push_back(mixedService(i));
  }
  return services;
}

/// startRss resets the peak and returns the resident set of the prepared inputs.
double startRss() {
  bench::resetPeakRss();
  return bench::rssMiB();
}

/// reportRss: peak_rss_MiB is the process peak during the benchmark; work_MiB is that peak
/// minus the inputs the benchmark prepared (Service objects, requests) before timing.
void reportRss(benchmark::State& state, double input_mib) {
  const double peak = bench::peakRssMiB();
  state.counters["peak_rss_MiB"] = peak;
  state.counters["work_MiB"] = peak - input_mib;
}

/// Allocator calls only: 100k automatic allocations (IPv4, IPv6, dual) across the ten pools.
void BM_Allocate100kServicesAcross10Pools(benchmark::State& state) {
  const config::Config cfg = mixedConfig();
  std::vector<ServiceRequest> requests;
  std::vector<FamilyRequest> families;
  for (int i = 0; i < kServices; ++i) {
    const api::Service svc = mixedService(i);
    requests.push_back(ServiceRequest{svc.metadata.namespace_ + "/" + svc.metadata.name,
                                      svc.metadata.namespace_,
                                      svc.metadata.labels,
                                      {{"TCP", svc.spec.ports[0].port}},
                                      {}});
    const int kind = i % 20;
    families.push_back(kind < 10 ? FamilyRequest{ServiceFamily::V4}
                       : kind < 15
                           ? FamilyRequest{ServiceFamily::V6}
                           : FamilyRequest{ServiceFamily::Dual, FamilyPolicy::PreferDualStack});
  }
  const double input_mib = startRss();
  int failed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Allocator alloc;
    (void)alloc.setPools(cfg.pools);
    state.ResumeTiming();
    for (int i = 0; i < kServices; ++i) {
      failed += alloc.allocate(requests[i], families[i]).has_value() ? 0 : 1;
    }
    benchmark::DoNotOptimize(alloc);
  }
  state.SetItemsProcessed(state.iterations() * kServices);
  state.counters["failed"] = failed;
  reportRss(state, input_mib);
}

/// The whole controller path: a full pass converging 100k new (pending) services.
void BM_Converge100kNewServices(benchmark::State& state) {
  const config::Config cfg = mixedConfig();
  const std::vector<api::Service> services = mixedServices();
  const double input_mib = startRss();
  std::size_t allocated = 0;
  for (auto _ : state) {
    Allocator alloc;
    auto plan = reprocessAll(alloc, cfg, services, {});
    allocated = alloc.serviceKeys().size();
    benchmark::DoNotOptimize(plan);
  }
  state.SetItemsProcessed(state.iterations() * kServices);
  state.counters["allocated"] = static_cast<double>(allocated);
  reportRss(state, input_mib);
}

/// holders returns the mixed services as the API holds them after the controller converged
/// them once: status and ip-allocated-from-pool annotation written.
std::vector<api::Service> holders(const config::Config& cfg) {
  std::vector<api::Service> services = mixedServices();
  std::sort(services.begin(), services.end(), [](const api::Service& a, const api::Service& b) {
    return std::tie(a.metadata.namespace_, a.metadata.name) <
           std::tie(b.metadata.namespace_, b.metadata.name);
  });
  Allocator first;
  auto plan = reprocessAll(first, cfg, services, {});
  for (std::size_t i = 0; i < services.size(); ++i) {
    const ServiceOutcome& out = plan->services[i];  // same namespace/name order
    services[i].status = out.status;
    for (const auto& [k, v] : out.set_annotations) {
      services[i].metadata.annotations[k] = v;
    }
  }
  return services;
}

/// A controller restart: a full pass over 100k services that already hold addresses. Nothing
/// moves, so nothing is written (counter `writes`).
void BM_FullReprocess100kHolders(benchmark::State& state) {
  const config::Config cfg = mixedConfig();
  const std::vector<api::Service> services = holders(cfg);
  const double input_mib = startRss();
  std::size_t writes = 0;
  for (auto _ : state) {
    Allocator alloc;
    auto plan = reprocessAll(alloc, cfg, services, {});
    writes = 0;
    for (const auto& out : plan->services) {
      writes += out.write ? 1 : 0;
    }
    benchmark::DoNotOptimize(plan);
  }
  state.SetItemsProcessed(state.iterations() * kServices);
  state.counters["writes"] = static_cast<double>(writes);
  reportRss(state, input_mib);
}

/// One million IPv6 allocations in a single /48.
void BM_OneMillionAllocationsInIpv6Slash48(benchmark::State& state) {
  constexpr int kCount = 1000000;
  std::map<std::string, config::Pool> pools;
  pools.emplace("v6", pool("v6", {"2001:db8:1::/48"}));
  ServiceRequest req;
  req.namespace_ = "ns";
  req.ports = {{"TCP", 80}};
  const FamilyRequest v6{ServiceFamily::V6};
  const double input_mib = startRss();
  std::string last;
  for (auto _ : state) {
    Allocator alloc;
    (void)alloc.setPools(pools);
    for (int i = 0; i < kCount; ++i) {
      req.key = "ns/svc-" + std::to_string(i);
      auto ips = alloc.allocate(req, v6);
      benchmark::DoNotOptimize(ips);
    }
    last = alloc.find(req.key)->ips.front().toString();
  }
  state.SetItemsProcessed(state.iterations() * kCount);
  state.SetLabel("last=" + last);
  reportRss(state, input_mib);
}

BENCHMARK(BM_Allocate100kServicesAcross10Pools)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Converge100kNewServices)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_FullReprocess100kHolders)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_OneMillionAllocationsInIpv6Slash48)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
