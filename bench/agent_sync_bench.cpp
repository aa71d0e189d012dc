// SPDX-License-Identifier: Apache-2.0
// The agent's CPU per Service change (decide + write), in frr-k8s mode: a Reconciler over
// hand-filled caches holding N Services (the examples' BGP configuration, a /16 pool, ETP Cluster
// Services with one EndpointSlice each), then K changes, each run the way the agent's informers
// queue it: "full" re-decides every Service (the `sync` key, what every Service change did
// before), "service" decides only the changed one (its own key). Two kinds of change:
//   moved:   the Service's address changes (a new prefix: FRRConfiguration rebuilt and written,
//            the ServiceBGPStatus checked);
//   touched: its EndpointSlice changes without changing the decision (as a pod restart does; and
//            as the agent's own ServiceBGPStatus write echoing back did).
// Writes go to an API client that answers at once (no server), so the figures are the agent's
// own CPU: thread CPU time around the reconciles of each change, mean per change.
//
// --status-writes-per-pass W bounds the ServiceBGPStatus writes of one status pass as the agent
// does (32 by default in the agent; unbounded here unless given), so the first-pass figure shows
// what writing every status in passes of W costs.
//
//   build/bench/ingot_bench_agent_sync [--services N ...] [--changes K]
//                                      [--status-writes-per-pass W]
#include <cstdio>
#include <cstdlib>
#include <string>
#include <time.h>
#include <vector>

#include "agent/reconcile/reconciler.h"
#include "agent/tests/daemon/harness.h"
#include "bench/main_guard.h"
#include "cli/workspace.h"

using namespace ingot;
using namespace ingot::agent;

namespace {

double cpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

/// Answering is an API server that keeps nothing: writes succeed at once (created objects get a
/// name and resourceVersion), gets find nothing.
class Answering final : public k8s::ApiClient {
 public:
  Result<std::string> get(const k8s::ResourceRef&, std::string_view, std::string_view) override {
    return Error{ErrorCode::NotFound, "bench: not found"};
  }
  Result<k8s::ListPage> list(const k8s::ResourceRef&,
                             std::string_view,
                             const k8s::ListOptions&) override {
    return k8s::ListPage{};
  }
  k8s::WatchOutcome watch(const k8s::ResourceRef&,
                          std::string_view,
                          const k8s::WatchOptions&,
                          const k8s::WatchHandler&,
                          std::stop_token) override {
    return {k8s::WatchEnd::Cancelled, {}};
  }
  Result<std::string> create(const k8s::ResourceRef&,
                             std::string_view,
                             std::string_view body) override {
    std::string out(body);
    // Like the API server, a created ServiceBGPStatus (named by the agent) gets a version.
    const std::string meta = R"("metadata":{)";
    if (out.find(R"("kind":"ServiceBGPStatus")") != std::string::npos) {
      if (auto at = out.find(meta); at != std::string::npos) {
        out.insert(at + meta.size(), R"("resourceVersion":"c)" + std::to_string(++named_) + "\",");
      }
    }
    return out;
  }
  Result<std::string> update(const k8s::ResourceRef&,
                             std::string_view,
                             std::string_view,
                             std::string_view b) override {
    return std::string(b);
  }
  Result<std::string> patch(const k8s::ResourceRef&,
                            std::string_view,
                            std::string_view,
                            k8s::PatchType,
                            std::string_view b) override {
    return std::string(b);
  }
  Result<std::string> updateStatus(const k8s::ResourceRef&,
                                   std::string_view,
                                   std::string_view,
                                   std::string_view b) override {
    return std::string(b);
  }
  Result<std::string> patchStatus(const k8s::ResourceRef&,
                                  std::string_view,
                                  std::string_view,
                                  k8s::PatchType,
                                  std::string_view b) override {
    return std::string(b);
  }
  Result<void> remove(const k8s::ResourceRef&, std::string_view, std::string_view) override {
    return {};
  }

 private:
  int named_ = 0;
};

class NoEvents final : public EventSink {
 public:
  void record(const k8s::ObjectReference&,
              k8s::EventType,
              std::string_view,
              std::string_view) override {}
};

std::string vip(int i) {
  return "10.200." + std::to_string((i >> 8) & 0xff) + "." + std::to_string(i & 0xff);
}

/// Agent is one reconciler with its caches, queue and a fake clock.
struct Agent {
  testing::World world;
  Answering api;
  NoEvents events;
  k8s::testing::FakeClock clock;
  k8s::WorkQueue queue{k8s::WorkQueueOptions{}, clock};
  Metrics metrics{"node1"};
  log::Logger logger{log::Level::Warn, [](std::string_view) {}};
  std::unique_ptr<Reconciler> reconciler;

  explicit Agent(const ReconcilerOptions& o) {
    const BackendContext context{world.caches(),    api,  events, queue, metrics, logger,
                                 backendOptions(o), clock};
    Backends backends;
    backends.push_back(std::make_unique<FrrK8sBackend>(context));
    reconciler = std::make_unique<Reconciler>(world.caches(),
                                              k8s::ReconcileIo{api, events, queue, logger, clock},
                                              metrics, o, std::move(backends));
  }

  /// settle runs every key, past the debounce, until nothing is left.
  void settle() {
    for (int round = 0; round < 3 || queue.len() > 0; ++round) {
      while (auto key = queue.tryGet()) {
        reconciler->reconcile(*key);
        queue.done(*key);
      }
      clock.advance(std::chrono::seconds(1));
    }
  }
};

api::Service service(int i, int ip) {
  api::Service s;
  s.metadata.namespace_ = "bench";
  s.metadata.name = "svc-" + std::to_string(i);
  s.metadata.uid = "uid-" + std::to_string(i);
  s.metadata.resource_version = std::to_string(ip + 1);
  s.spec.type = "LoadBalancer";
  s.spec.external_traffic_policy = "Cluster";
  s.spec.ip_families = {"IPv4"};
  s.status.ingress.push_back({vip(ip), "", std::nullopt});
  return s;
}

api::EndpointSlice slice(int i, int generation) {
  api::EndpointSlice s;
  s.metadata.namespace_ = "bench";
  s.metadata.name = "svc-" + std::to_string(i) + "-x";
  s.metadata.labels["kubernetes.io/service-name"] = "svc-" + std::to_string(i);
  s.address_type = "IPv4";
  api::Endpoint e;
  e.addresses = {"10.244.0." + std::to_string(1 + generation % 250)};
  e.conditions.ready = true;
  e.node_name = "node1";
  s.endpoints.push_back(e);
  return s;
}

void loadConfig(Agent& a) {
  std::vector<std::string> files;
  for (const char* f : {"bgp/advertisement.yaml", "bgp/peering.yaml", "cluster/nodes.yaml"}) {
    files.push_back(std::string(INGOT_SOURCE_DIR) + "/examples/" + f);
  }
  const std::string pool = "/tmp/ingot-bench-agent-sync-pool.yaml";
  std::FILE* out = std::fopen(pool.c_str(), "w");
  std::fputs(
      "apiVersion: metallb.io/v1beta1\nkind: IPAddressPool\nmetadata:\n  name: bench-pool\n"
      "  namespace: metallb-system\n  labels: {ingot.example/announce: bgp}\n"
      "spec:\n  addresses: [10.200.0.0/16]\n",
      out);
  std::fclose(out);
  files.push_back(pool);
  cli::Workspace ws = cli::loadWorkspace(files, {});
  std::remove(pool.c_str());
  if (!ws.problems.empty() || !ws.parsed.config) {
    std::fprintf(stderr, "agent_sync: the bench configuration is invalid\n");
    std::exit(1);
  }
  for (const auto& o : ws.objects) a.world.put(o.object);
}

struct Figures {
  double first_ms = 0;
  double moved_ms = 0;
  double touched_ms = 0;
};

Figures run(int n, int changes, bool full, size_t status_per_pass) {
  ReconcilerOptions o;
  o.node = "node1";
  o.status_writes_per_pass = status_per_pass;
  Agent a(o);
  loadConfig(a);
  for (int i = 0; i < n; ++i) {
    testing::World::upsert(a.world.services, service(i, i));
    testing::World::upsert(a.world.endpoint_slices, slice(i, 0));
  }
  Figures f;
  double t = cpuMs();
  a.queue.add(std::string(keys::kConfig));
  a.settle();
  f.first_ms = cpuMs() - t;
  for (int kind = 0; kind < 2; ++kind) {
    double spent = 0;
    for (int c = 0; c < changes; ++c) {
      const int i = static_cast<int>((static_cast<long long>(c) * 7919) % n);
      const std::string key = "bench/svc-" + std::to_string(i);
      if (kind == 0) {
        testing::World::upsert(a.world.services, service(i, n + c));
      } else {
        testing::World::upsert(a.world.endpoint_slices, slice(i, c + 1));
      }
      a.queue.add(full ? std::string(keys::kSync) : keys::service(key));
      t = cpuMs();
      a.settle();
      spent += cpuMs() - t;
    }
    (kind == 0 ? f.moved_ms : f.touched_ms) = spent / changes;
  }
  return f;
}

/// benchMain runs the benchmark (main's arguments and exit status).
int benchMain(int argc, char** argv) {
  std::vector<int> sizes;
  int changes = 50;
  size_t status_per_pass = 1u << 20;  // default: the first pass writes everything in one go
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--changes" && i + 1 < argc) {
      changes = std::atoi(argv[++i]);
    } else if (arg == "--status-writes-per-pass" && i + 1 < argc) {
      status_per_pass = static_cast<size_t>(std::atol(argv[++i]));
    } else if (arg == "--services") {
      while (i + 1 < argc && argv[i + 1][0] != '-') sizes.push_back(std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--services N ...] [--changes K] [--status-writes-per-pass W]\n",
                   argv[0]);
      return 2;
    }
  }
  if (sizes.empty()) sizes = {1000, 10000};
  std::printf("%8s %-8s %12s %18s %18s\n", "services", "route", "first pass", "moved (ms/chg)",
              "touched (ms/chg)");
  for (int n : sizes) {
    const Figures full = run(n, changes, true, status_per_pass);
    const Figures inc = run(n, changes, false, status_per_pass);
    std::printf("%8d %-8s %10.1f ms %18.3f %18.3f\n", n, "full", full.first_ms, full.moved_ms,
                full.touched_ms);
    std::printf("%8d %-8s %10.1f ms %18.3f %18.3f\n", n, "service", inc.first_ms, inc.moved_ms,
                inc.touched_ms);
    std::printf("%8d %-8s %13s %17.1fx %17.1fx\n", n, "ratio", "", full.moved_ms / inc.moved_ms,
                full.touched_ms / inc.touched_ms);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ingot::bench::guardedMain(benchMain, argc, argv);
}
