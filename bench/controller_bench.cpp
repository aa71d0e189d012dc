// SPDX-License-Identifier: Apache-2.0
// End-to-end controller benchmark: N LoadBalancer Services created in a burst against the test
// API server (e2e/kubeapi/server.py) while ingot-controller runs. Reports the time until every
// Service has an address (and p50/p99 of the per-Service latency from "create returned" to
// "status seen with an address" on an independent watch), the API requests the controller made
// per Service (its own request counters, from /metrics), and its RSS afterwards.
//
//   build/bench/ingot_bench_controller [--services N] [--creators C] [--qps Q] [--burst B]
//                                      [--mode burst|startup]
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/json/scan.h"
#include "controller/tests/support/cluster.h"
#include "kube/resources.h"

using namespace ingot;
using namespace ingot::controller::testing;

namespace {

struct Options {
  int services = 10000;
  int creators = 16;
  std::string qps = "0";  ///< the controller's --kube-api-qps (0 = no client-side limit)
  std::string burst = "30";
  /// mode "burst": Services are created while the controller runs; "startup": they exist (no
  /// addresses) before it starts, so the first full pass assigns them all.
  std::string mode = "burst";
};

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--services") {
      o.services = std::atoi(argv[i + 1]);
    } else if (flag == "--creators") {
      o.creators = std::atoi(argv[i + 1]);
    } else if (flag == "--qps") {
      o.qps = argv[i + 1];
    } else if (flag == "--burst") {
      o.burst = argv[i + 1];
    } else if (flag == "--mode") {
      o.mode = argv[i + 1];
    } else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "controller bench: %s\n", what.c_str());
  std::exit(1);
}

using Stamp = Clock::time_point;

/// AddressWatch records when each Service is first seen with an ingress address.
class AddressWatch {
 public:
  explicit AddressWatch(k8s::ApiClient& api) : api_(api) {}

  void start() {
    auto page = api_.list(k8s::resources::kServices, "default", {});
    if (!page) die("list services: " + page.error().message);
    rv_ = page->resource_version;
    thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
  }

  size_t seen() {
    std::lock_guard lock(mu_);
    return seen_.size();
  }
  std::unordered_map<std::string, Stamp> stamps() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  void run(const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      k8s::WatchOptions o;
      o.resource_version = rv_;
      o.timeout_seconds = 600;
      const auto out = api_.watch(
          k8s::resources::kServices, "default", o,
          [this](const k8s::WatchEvent& e) { return onEvent(e); }, stop);
      if (out.end == k8s::WatchEnd::Gone) die("the address watch fell out of the history");
    }
  }

  bool onEvent(const k8s::WatchEvent& e) {
    const Stamp now = Clock::now();
    auto rv = json::stringAt(e.object, {"metadata", "resourceVersion"});
    if (rv && !rv->empty()) rv_ = *rv;
    if (e.type != k8s::WatchEventType::Added && e.type != k8s::WatchEventType::Modified) {
      return true;
    }
    auto ingress = json::rawAt(e.object, {"status", "loadBalancer", "ingress"});
    if (!ingress || !*ingress || **ingress == "[]") return true;
    auto name = json::stringAt(e.object, {"metadata", "name"});
    if (!name) return true;
    std::lock_guard lock(mu_);
    seen_.emplace(*name, now);
    return true;
  }

  k8s::ApiClient& api_;
  std::string rv_;
  std::mutex mu_;
  std::unordered_map<std::string, Stamp> seen_;
  std::jthread thread_;
};

/// burst creates svc-0..svc-(n-1) from `creators` threads; returns name -> create-returned time.
std::unordered_map<std::string, Stamp> burst(KubeApi& server, int n, int creators) {
  std::atomic<int> next{0};
  std::mutex mu;
  std::unordered_map<std::string, Stamp> created;
  std::vector<std::jthread> threads;
  threads.reserve(static_cast<size_t>(creators));
  for (int t = 0; t < creators; ++t) {
    threads.emplace_back([&] {
      auto api = server.client();
      if (!api) die("client: " + api.error().message);
      for (int i = next++; i < n; i = next++) {
        const std::string name = "svc-" + std::to_string(i);
        // No node ports: 10,000 Services would exhaust the 30000-32767 range. An explicit
        // clusterIP: the test server's automatic allocation scans linearly (O(n) per create),
        // unlike the real API server's bitmap, and would dominate the measurement.
        const std::string cluster_ip =
            "10.97." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
        auto r =
            createRetrying(**api, k8s::resources::kServices, "default",
                           serviceJson("default", name, {}, "LoadBalancer",
                                       R"("allocateLoadBalancerNodePorts":false,"clusterIP":")" +
                                           cluster_ip + "\""));
        if (!r) die("create " + name + ": " + r.error().message);
        std::lock_guard lock(mu);
        created.emplace(name, Clock::now());
      }
    });
  }
  threads.clear();
  return created;
}

double ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

/// requestsByVerb returns the controller's API requests per verb between two /metrics texts.
std::map<std::string, double> requestsByVerb(const std::string& before, const std::string& after) {
  std::map<std::string, double> out;
  for (const char* verb : {"get", "list", "watch", "create", "update", "patch", "update_status",
                           "patch_status", "delete"}) {
    const std::string series =
        "ingot_controller_api_requests_total{verb=\"" + std::string(verb) + "\"}";
    out[verb] = metricValue(after, series).value_or(0) - metricValue(before, series).value_or(0);
  }
  return out;
}

std::unique_ptr<ControllerProcess> startController(KubeApi& server, const Options& opt, bool wait) {
  auto controller = ControllerProcess::start(
      server.kubeconfig(), server.dir(),
      {"--kube-api-qps=" + opt.qps, "--kube-api-burst=" + opt.burst, "--log-level=warn"});
  if (!controller) die(controller.error().message);
  if (wait && !(*controller)->waitReady(Millis(30000))) die("controller not ready");
  return std::move(*controller);
}

struct Run {
  std::unordered_map<std::string, Stamp> created;  ///< latency origin per Service
  Stamp t0;
  Stamp t_created;
  Stamp t_all;
  std::string metrics_before;
  std::unique_ptr<ControllerProcess> controller;
};

Run measure(KubeApi& server, k8s::ApiClient& api, const Options& opt) {
  Run run;
  AddressWatch watch(api);
  if (opt.mode == "startup") {
    run.created = burst(server, opt.services, opt.creators);
    watch.start();
    run.t0 = run.t_created = Clock::now();
    for (auto& [name, at] : run.created) at = run.t0;  // latency counts from controller start
    run.controller = startController(server, opt, false);
  } else {
    run.controller = startController(server, opt, true);
    watch.start();
    run.metrics_before = run.controller->metrics();
    run.t0 = Clock::now();
    run.created = burst(server, opt.services, opt.creators);
    run.t_created = Clock::now();
  }
  if (!waitFor(Millis(1800000),
               [&] { return watch.seen() >= static_cast<size_t>(opt.services); })) {
    die("not every service got an address");
  }
  run.t_all = Clock::now();
  std::vector<double> latency;
  const auto stamps = watch.stamps();
  for (const auto& [name, at] : run.created) latency.push_back(ms(stamps.at(name) - at));
  std::printf("mode                         %s\n", opt.mode.c_str());
  std::printf("services                     %d (created by %d threads in %.0f ms)\n", opt.services,
              opt.creators, ms(run.t_created - run.t0));
  std::printf("all addressed after          %.0f ms from the %s\n", ms(run.t_all - run.t0),
              opt.mode == "startup" ? "controller start" : "first create");
  std::printf("per-service latency          p50 %.1f ms  p99 %.1f ms  max %.1f ms\n",
              percentile(latency, 0.5), percentile(latency, 0.99), percentile(latency, 1.0));
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parseArgs(argc, argv);
  auto server = KubeApi::start({"--history", std::to_string(opt.services * 6 + 1000)});
  if (!server) die(server.error().message);
  auto api = (*server)->client();
  if (!api) die(api.error().message);
  if (auto r = createRetrying(**api, k8s::resources::kIpAddressPools, "metallb-system",
                              poolJson("bench", {"10.128.0.0/16"}));
      !r) {
    die(r.error().message);
  }
  Run run = measure(**server, **api, opt);
  std::this_thread::sleep_for(Millis(3000));  // let pool status and events settle
  const auto per_verb = requestsByVerb(run.metrics_before, run.controller->metrics());
  double total = 0;
  for (const auto& [verb, n] : per_verb) total += n;
  const pid_t pid = run.controller->process().pid();
  std::printf("controller API requests      %.0f total, %.2f per service\n", total,
              total / opt.services);
  for (const auto& [verb, n] : per_verb) {
    if (n > 0) std::printf("  %-14s %.0f\n", verb.c_str(), n);
  }
  std::printf("controller CPU               %.1f s (test API server: %.1f s)\n", cpuSeconds(pid),
              cpuSeconds((*server)->pid()));
  std::printf("controller RSS after         %ld KiB (peak %ld KiB)\n", rssKiB(pid),
              rssKiB(pid, true));
  std::printf("controller flags             --kube-api-qps=%s --kube-api-burst=%s\n",
              opt.qps.c_str(), opt.burst.c_str());
  const auto code = run.controller->process().terminate(Millis(20000));
  std::printf("controller exit on SIGTERM   %d\n", code.value_or(-1));
  return 0;
}
