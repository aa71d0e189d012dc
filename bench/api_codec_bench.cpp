// SPDX-License-Identifier: Apache-2.0
// How fast the typed codec turns JSON text into api:: objects and back: decodeJson<T> and
// encodeJson<T> on the fully populated fixtures of api/tests/fixtures.h (every field set), and
// decodeAny on all of them. Run: build/bench/ingot_bench_api_codec
#include <benchmark/benchmark.h>
#include <string>
#include <vector>

#include "api/codec.h"
#include "api/tests/fixtures.h"

namespace {

namespace api = ingot::api;
namespace fx = ingot::api::testing;

template <typename T>
void decodeKind(benchmark::State& state, const T& object) {
  const std::string text = api::encodeJson(object);
  for (auto _ : state) {
    auto decoded = api::decodeJson<T>(text);
    benchmark::DoNotOptimize(decoded);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}

template <typename T>
void encodeKind(benchmark::State& state, const T& object) {
  for (auto _ : state) {
    auto text = api::encodeJson(object);
    benchmark::DoNotOptimize(text);
  }
  state.SetItemsProcessed(state.iterations());
}

void decodeAll(benchmark::State& state) {
  std::vector<std::string> texts;
  for (const auto& object : fx::allObjects()) {
    texts.push_back(api::encodeAny(object));
  }
  for (auto _ : state) {
    for (const auto& text : texts) {
      auto decoded = api::decodeAny(text);
      benchmark::DoNotOptimize(decoded);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(texts.size()));
}

BENCHMARK_CAPTURE(decodeKind, IPAddressPool, fx::pool());
BENCHMARK_CAPTURE(decodeKind, BGPPeer, fx::bgpPeer());
BENCHMARK_CAPTURE(decodeKind, BGPAdvertisement, fx::bgpAdvertisement());
BENCHMARK_CAPTURE(decodeKind, FRRConfiguration, fx::frrConfiguration());
BENCHMARK_CAPTURE(decodeKind, Service, fx::service());
BENCHMARK_CAPTURE(encodeKind, BGPPeer, fx::bgpPeer());
BENCHMARK_CAPTURE(encodeKind, FRRConfiguration, fx::frrConfiguration());
BENCHMARK(decodeAll);

}  // namespace

BENCHMARK_MAIN();
