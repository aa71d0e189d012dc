// SPDX-License-Identifier: Apache-2.0
// Layer 2 election benchmarks: the cost of one election digest, a cold election of 10,000
// Services over 1,000 live nodes (the agent's L2Elector, and electL2 with the full candidate
// order as `ingotctl plan` prints it), one membership change re-evaluated incrementally, and,
// side by side, MetalLB's way of sorting (hashing inside the sort comparator).
#include <algorithm>
#include <benchmark/benchmark.h>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "agent/core/election.h"
#include "agent/core/election_engine.h"

namespace {

using namespace ingot;

constexpr int kServices = 10000;
constexpr int kNodes = 1000;

std::vector<std::string> nodeNames(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "worker-%04d.cluster.local", i);
    out.emplace_back(buf);
  }
  return out;
}

// Cluster is the benchmarks' world: every node live and selected by one advertisement, every
// Service active with externalTrafficPolicy Cluster and its own address.
struct Cluster {
  std::vector<std::string> nodes = nodeNames(kNodes);
  config::L2Advertisement ad;
  std::vector<std::string> keys;
  std::vector<agent::L2Subject> subjects;

  Cluster() {
    ad.name = "l2";
    ad.nodes = {nodes.begin(), nodes.end()};
    for (int s = 0; s < kServices; ++s) {
      agent::L2Subject sub;
      sub.ip = "10." + std::to_string(s >> 16) + "." + std::to_string((s >> 8) & 0xff) + "." +
               std::to_string(s & 0xff);
      sub.ads = {&ad};
      sub.active_endpoint = true;
      subjects.push_back(std::move(sub));
      keys.push_back("ns/svc-" + std::to_string(s));
    }
  }
  agent::L2Membership all() const { return {nodes}; }
};

const Cluster& cluster() {
  static const Cluster kCluster;
  return kCluster;
}

void BM_Digest(benchmark::State& state) {
  const auto& c = cluster();
  agent::L2Hasher hasher;
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(hasher.digest(c.nodes[i % kNodes], c.subjects[i % kServices].ip));
    ++i;
  }
  state.counters["ns_per_hash"] =
      benchmark::Counter(static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Digest);

// The agent's path: every Service elected from scratch (each (node, ip) hashed once).
void BM_ElectorCold(benchmark::State& state) {
  const auto& c = cluster();
  for (auto _ : state) {
    agent::L2Elector engine;
    engine.setMembership(c.all());
    for (int s = 0; s < kServices; ++s) {
      engine.setService(c.keys[s], c.subjects[s]);
    }
    state.counters["hashes"] = static_cast<double>(engine.hashes());
    benchmark::DoNotOptimize(engine.winner(c.keys[0]));
  }
}
BENCHMARK(BM_ElectorCold)->Unit(benchmark::kMillisecond)->Iterations(1);

// The plan's path: electL2 with the full candidate order of every Service.
void BM_ElectFullOrderCold(benchmark::State& state) {
  const auto& c = cluster();
  const auto membership = c.all();
  for (auto _ : state) {
    agent::L2Hasher hasher;
    for (int s = 0; s < kServices; ++s) {
      benchmark::DoNotOptimize(agent::electL2(c.subjects[s], membership, hasher));
    }
  }
}
BENCHMARK(BM_ElectFullOrderCold)->Unit(benchmark::kMillisecond)->Iterations(1);

// warmElector is a fully elected L2Elector for the membership-change benchmarks.
agent::L2Elector& warmElector() {
  static std::unique_ptr<agent::L2Elector> engine = [] {
    const auto& c = cluster();
    auto e = std::make_unique<agent::L2Elector>();
    e->setMembership(c.all());
    for (int s = 0; s < kServices; ++s) {
      e->setService(c.keys[s], c.subjects[s]);
    }
    return e;
  }();
  return *engine;
}

// One membership change each way: the node that wins Service 0 leaves (its Services move to
// their runner-up), then joins again (one digest per Service). Each is timed separately.
void BM_MembershipChange(benchmark::State& state, bool join) {
  const auto& c = cluster();
  agent::L2Elector& engine = warmElector();
  const std::string node = *engine.winner(c.keys[0]);
  agent::L2Membership without = c.all();
  std::erase(without.eligible, node);
  size_t moved = 0;
  for (auto _ : state) {
    state.PauseTiming();
    engine.setMembership(join ? without : c.all());
    state.ResumeTiming();
    moved = engine.setMembership(join ? c.all() : without).size();
  }
  engine.setMembership(c.all());
  state.counters["services_moved"] = static_cast<double>(moved);
}
BENCHMARK_CAPTURE(BM_MembershipChange, node_leaves, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MembershipChange, node_joins, true)->Unit(benchmark::kMillisecond);

// MetalLB's sort: sha256 of both sides inside the comparator (about 2 n log n digests per
// Service), against rankL2 (n digests), on the same 100 Services for a side-by-side ratio.
void BM_SortHashInComparator(benchmark::State& state) {
  const auto& c = cluster();
  agent::L2Hasher hasher;
  for (auto _ : state) {
    for (int s = 0; s < 100; ++s) {
      std::vector<std::string> order = c.nodes;
      const std::string& ip = c.subjects[s].ip;
      std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
        return hasher.digest(a, ip) < hasher.digest(b, ip);
      });
      benchmark::DoNotOptimize(order.data());
    }
  }
  state.counters["hashes_per_service"] =
      static_cast<double>(hasher.count()) / (100.0 * static_cast<double>(state.iterations()));
}
BENCHMARK(BM_SortHashInComparator)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_SortHashOnce(benchmark::State& state) {
  const auto& c = cluster();
  agent::L2Hasher hasher;
  for (auto _ : state) {
    for (int s = 0; s < 100; ++s) {
      benchmark::DoNotOptimize(agent::rankL2(c.nodes, c.subjects[s].ip, hasher));
    }
  }
  state.counters["hashes_per_service"] =
      static_cast<double>(hasher.count()) / (100.0 * static_cast<double>(state.iterations()));
}
BENCHMARK(BM_SortHashOnce)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
