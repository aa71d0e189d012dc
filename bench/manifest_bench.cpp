// SPDX-License-Identifier: Apache-2.0
// How long loading large manifests takes: 10 MB of YAML Secrets (yaml-cpp) and a 3 MB JSON List
// of Namespaces (RapidJSON). Run: build/bench/ingot_bench_manifest
#include <benchmark/benchmark.h>
#include <sstream>
#include <string>

#include "api/manifest.h"

namespace {

std::string bigYaml() {
  std::ostringstream out;
  const std::string blob(4000, 'Q');
  for (int count = 0; out.tellp() < 10 * 1024 * 1024; ++count) {
    out << "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s-" << count
        << "\n  namespace: metallb-system\n  labels: {app: ingot}\ntype: Opaque\ndata:\n  blob: "
        << blob << "\n";
  }
  return out.str();
}

std::string bigJson() {
  std::string json = R"({"apiVersion":"v1","kind":"List","items":[)";
  for (int i = 0; json.size() < 3 * 1024 * 1024; ++i) {
    json += (i > 0 ? "," : "");
    json += R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"n)" + std::to_string(i) +
            R"(","labels":{"a":"b","c":"d"}}})";
  }
  return json + "]}";
}

void load(benchmark::State& state, const std::string& text, const char* name) {
  size_t objects = 0;
  for (auto _ : state) {
    const auto set = ingot::api::loadManifestText(text, name);
    objects = set.objects.size();
    benchmark::DoNotOptimize(objects);
  }
  state.counters["objects"] = static_cast<double>(objects);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

void BM_Yaml10MB(benchmark::State& state) {
  static const std::string kText = bigYaml();
  load(state, kText, "big.yaml");
}
BENCHMARK(BM_Yaml10MB)->Unit(benchmark::kMillisecond);

void BM_JsonList3MB(benchmark::State& state) {
  static const std::string kText = bigJson();
  load(state, kText, "big.json");
}
BENCHMARK(BM_JsonList3MB)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
