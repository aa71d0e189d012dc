// SPDX-License-Identifier: Apache-2.0
// frrgen at scale: one node with 50 BGP sessions announcing 10,000 /32 prefixes to every session
// (a tenth of them with a community, a tenth with a local preference). Measures each stage the
// agent runs on a change — build the FRRConfiguration, merge it, render frr.conf — and all three
// together, plus the optional libyang validation of the rendered policy; then the same for the
// compact shape of Ingot's own FRR mode (compact model, its frr.conf, and the whole chain).
//
// Last, a changed announcement in frr-k8s mode at 1,000 and 10,000 Services (two ToR sessions,
// one prefix per Service, as the agent's hand-off gives them): the whole rebuild the agent ran
// before (build, compare with the last object, encode) beside the incremental builder (patch the
// changed Service, encode from the cached list texts).
//
// Run: build/bench/ingot_bench_frrgen (add --benchmark_filter=Build to pick one stage;
// --benchmark_filter=Changed for the changed-announcement pair)
#include <benchmark/benchmark.h>
#include <string>
#include <vector>

#include "api/codec.h"
#include "frrgen/build.h"
#include "frrgen/compact.h"
#include "frrgen/incremental.h"
#include "frrgen/merge.h"
#include "frrgen/render.h"
#include "frrgen/yang_validate.h"

namespace {

using namespace ingot;

constexpr int kPeers = 50;
constexpr int kPrefixes = 10000;

struct Fixture {
  config::Config cfg;
  std::vector<config::Announcement> announcements;
};

const Fixture& fixture() {
  static const Fixture kFixture = [] {
    Fixture x;
    std::vector<std::string> names;
    for (int i = 0; i < kPeers; ++i) {
      config::Peer p;
      p.name = "tor-" + std::to_string(i);
      p.my_asn = 64512;
      p.peer_asn = 64513 + static_cast<uint32_t>(i);
      p.address = net::IpAddress::v4((10u << 24) | (static_cast<uint32_t>(i) << 8) | 1u);
      p.router_id = net::IpAddress::v4((10u << 24) | 11u);
      p.nodes = {"node1"};
      x.cfg.peers.emplace(p.name, p);
      names.push_back(p.name);
    }
    for (int i = 0; i < kPrefixes; ++i) {
      config::Announcement a;
      a.prefix =
          net::Cidr(net::IpAddress::v4((10u << 24) | (128u << 16) | static_cast<uint32_t>(i)), 32);
      a.peers = names;
      if (i % 10 == 0) a.communities = {{false, 64512, static_cast<uint32_t>(i % 7), 0}};
      if (i % 10 == 5) a.local_pref = 100 + static_cast<uint32_t>(i % 3);
      x.announcements.push_back(std::move(a));
    }
    return x;
  }();
  return kFixture;
}

api::FRRConfiguration built() {
  return *frrgen::build(fixture().cfg, "node1", fixture().announcements, {});
}

frrgen::Model merged() {
  return *frrgen::merge({built()}, {});
}

void BM_Build(benchmark::State& state) {
  const Fixture& f = fixture();
  for (auto _ : state) {
    auto c = frrgen::build(f.cfg, "node1", f.announcements, {});
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_Build)->Unit(benchmark::kMillisecond);

void BM_Merge(benchmark::State& state) {
  const std::vector<api::FRRConfiguration> configs = {built()};
  for (auto _ : state) {
    auto m = frrgen::merge(configs, {});
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_Merge)->Unit(benchmark::kMillisecond);

void BM_Render(benchmark::State& state) {
  const frrgen::Model m = merged();
  size_t bytes = 0;
  for (auto _ : state) {
    auto text = frrgen::render(m, {});
    bytes = text->size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["frr.conf_MiB"] = static_cast<double>(bytes) / (1024.0 * 1024.0);
}
BENCHMARK(BM_Render)->Unit(benchmark::kMillisecond);

void BM_BuildMergeRender(benchmark::State& state) {
  const Fixture& f = fixture();
  for (auto _ : state) {
    auto c = frrgen::build(f.cfg, "node1", f.announcements, {});
    auto m = frrgen::merge({*c}, {});
    auto text = frrgen::render(*m, {});
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_BuildMergeRender)->Unit(benchmark::kMillisecond);

// The compact shape of Ingot's own FRR mode (frrgen/compact.h): merged model → compact model,
// compact model → frr.conf, and the whole chain the agent runs per change.
void BM_Compact(benchmark::State& state) {
  const frrgen::Model m = merged();
  for (auto _ : state) {
    auto c = frrgen::compact(m);
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_Compact)->Unit(benchmark::kMillisecond);

void BM_RenderCompact(benchmark::State& state) {
  const frrgen::CompactModel c = *frrgen::compact(merged());
  size_t bytes = 0;
  for (auto _ : state) {
    auto text = frrgen::renderCompact(c, {});
    bytes = text->size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["frr.conf_MiB"] = static_cast<double>(bytes) / (1024.0 * 1024.0);
}
BENCHMARK(BM_RenderCompact)->Unit(benchmark::kMillisecond);

void BM_BuildMergeCompactRender(benchmark::State& state) {
  const Fixture& f = fixture();
  for (auto _ : state) {
    auto c = frrgen::build(f.cfg, "node1", f.announcements, {});
    auto m = frrgen::merge({*c}, {});
    auto k = frrgen::compact(*m);
    auto text = frrgen::renderCompact(*k, {});
    benchmark::DoNotOptimize(text);
  }
}
BENCHMARK(BM_BuildMergeCompactRender)->Unit(benchmark::kMillisecond);

void BM_YangValidate(benchmark::State& state) {
  auto v = frrgen::YangValidator::load(frrgen::kFrrYangDir);
  if (!v) {
    state.SkipWithError(v.error().message.c_str());
    return;
  }
  const frrgen::Model m = merged();
  for (auto _ : state) {
    auto r = (*v)->validate(m);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_YangValidate)->Unit(benchmark::kMillisecond);

// ChangeFixture: two ToR sessions on node1, N Services with one /32 each (a tenth with a
// community, a tenth with a local preference), grouped by Service as the hand-off gives them.
struct ChangeFixture {
  config::ConfigSharedPtr cfg;
  std::vector<config::Announcement> announcements;
};

ChangeFixture changeFixture(int n) {
  ChangeFixture x;
  auto cfg = std::make_shared<config::Config>();
  for (int i = 0; i < 2; ++i) {
    config::Peer p;
    p.name = "tor-" + std::to_string(i);
    p.my_asn = 64512;
    p.peer_asn = 64513;
    p.address = net::IpAddress::v4((10u << 24) | (static_cast<uint32_t>(i) << 8) | 1u);
    p.nodes = {"node1"};
    cfg->peers.emplace(p.name, p);
  }
  x.cfg = cfg;
  for (int i = 0; i < n; ++i) {
    config::Announcement a;
    a.prefix =
        net::Cidr(net::IpAddress::v4((10u << 24) | (200u << 16) | static_cast<uint32_t>(i)), 32);
    a.peers = {"tor-0", "tor-1"};
    a.advertisement = "bench";
    a.service = "bench/svc-" + std::to_string(100000 + i);
    if (i % 10 == 0) a.communities = {{false, 64512, 7, 0}};
    if (i % 10 == 5) a.local_pref = 150;
    x.announcements.push_back(std::move(a));
  }
  return x;
}

// move changes the address of the c-th changed Service (to one outside the pool and back).
void move(ChangeFixture& x, int c) {
  const size_t i = (static_cast<size_t>(c) * 7919) % x.announcements.size();
  auto& a = x.announcements[i];
  const uint32_t base = (c / static_cast<int>(x.announcements.size())) % 2 == 0 ? 201u : 200u;
  a.prefix =
      net::Cidr(net::IpAddress::v4((10u << 24) | (base << 16) | static_cast<uint32_t>(i)), 32);
}

// Before: what BgpBackend::update and FrrK8sBackend::write ran per change.
void BM_ChangedFullRebuild(benchmark::State& state) {
  ChangeFixture x = changeFixture(static_cast<int>(state.range(0)));
  std::optional<api::FRRConfiguration> desired =
      *frrgen::build(*x.cfg, "node1", x.announcements, {});
  size_t bytes = 0;
  int c = 0;
  for (auto _ : state) {
    move(x, c++);
    auto own = frrgen::build(*x.cfg, "node1", x.announcements, {});
    if (!(*own == *desired)) {
      desired = std::move(*own);
    }
    const std::string body = api::encodeJson(*desired);
    bytes = body.size();
    benchmark::DoNotOptimize(body);
  }
  state.counters["body_KiB"] = static_cast<double>(bytes) / 1024.0;
}
BENCHMARK(BM_ChangedFullRebuild)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// After: IncrementalBuild patches the changed Service and encodes from its cached list texts.
void BM_ChangedIncremental(benchmark::State& state) {
  ChangeFixture x = changeFixture(static_cast<int>(state.range(0)));
  frrgen::IncrementalBuild inc;
  (void)inc.update(x.cfg, "node1", x.announcements, {});
  size_t bytes = 0;
  int c = 0;
  for (auto _ : state) {
    move(x, c++);
    auto changed = inc.update(x.cfg, "node1", x.announcements, {});
    api::FRRConfiguration object;
    object.metadata = inc.result()->metadata;
    const std::string body = inc.encode(std::move(object), api::encodeJson<api::FRRConfiguration>);
    bytes = body.size();
    benchmark::DoNotOptimize(changed);
    benchmark::DoNotOptimize(body);
  }
  state.counters["body_KiB"] = static_cast<double>(bytes) / 1024.0;
  state.counters["rebuilds"] = static_cast<double>(inc.rebuilds());
}
BENCHMARK(BM_ChangedIncremental)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
