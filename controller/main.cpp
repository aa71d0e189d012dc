// SPDX-License-Identifier: Apache-2.0
// ingot-controller: flags, wiring and signals only (docs/architecture.md). The work is done by the
// Manager (informers, queue, worker) and the Reconciler (controller/reconciler.h).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/daemon/endpoints.h"
#include "common/daemon/signals.h"
#include "common/version/version.h"
#include "controller/flags.h"
#include "controller/manager.h"
#include "controller/metrics.h"
#include "controller/ml_secret.h"
#include "kube/events.h"
#include "kube/kubeconfig.h"
#include "kube/startup.h"

namespace {

using namespace ingot;
using namespace ingot::controller;

constexpr int kExitStartupFailure = 1;
constexpr int kExitUsage = 2;
constexpr size_t kEventQueueCapacity = 16384;

std::string podNamespace() {
  std::ifstream in(std::string(k8s::kServiceAccountDir) + "/namespace");
  std::string ns;
  std::getline(in, ns);
  return ns;
}

Result<k8s::Clients> connect(const Flags& flags, Metrics& metrics, log::Logger& logger) {
  k8s::RestOptions options;
  options.qps = flags.kube_api_qps;
  options.burst = flags.kube_api_burst;
  options.user_agent = "ingot-controller";
  return k8s::connect(flags.kubeconfig, flags.context, options, metrics, logger);
}

Result<daemon::Endpoints> serve(const Flags& flags, Metrics& metrics, const Manager& manager) {
  daemon::EndpointOptions o;
  o.metrics_port = flags.port;
  o.health_port = flags.health_probe_port;
  o.health_address = "";
  o.not_ready_message = "the first full pass has not succeeded yet\n";
  o.ports_file = flags.ports_file;
  return daemon::serveEndpoints(
      o, [&metrics] { return metrics.render(); }, [&manager] { return manager.ready(); });
}

ManagerOptions managerOptions(const Flags& flags, api::OwnerReference owner) {
  ManagerOptions o;
  o.reconciler.namespace_ = flags.namespace_;
  o.reconciler.service.lb_class = flags.lb_class;
  o.reconciler.backend = flags.backend;
  o.reconciler.owner = std::move(owner);
  return o;
}

void logStart(const Flags& flags, log::Logger& logger) {
  logger.info("main", "start", "ingot-controller starting",
              {{"namespace", flags.namespace_},
               {"lb_class", flags.lb_class},
               log::num("port", flags.port),
               log::num("health_probe_port", flags.health_probe_port)});
  for (const auto& f : flags.ignored) {
    logger.warn("main", "flag_ignored", "MetalLB flag accepted without effect", {{"flag", f}});
  }
}

int fail(log::Logger& logger, std::string_view event, const Error& e) {
  logger.error("startup", event, e.message);
  std::fprintf(stderr, "ingot-controller: %s\n", e.message.c_str());
  return kExitStartupFailure;
}

int run(const Flags& flags, log::Logger& logger) {
  daemon::SignalWatcher signals(logger);
  logStart(flags, logger);
  Metrics metrics;
  auto clients = connect(flags, metrics, logger);
  if (!clients) return fail(logger, "client_config", clients.error());
  k8s::PreflightOptions preflight_options;
  preflight_options.component = "controller";
  if (auto ok = k8s::preflight(*clients->main, clients->server, flags.namespace_, logger,
                               preflight_options);
      !ok) {
    return fail(logger, "preflight", ok.error());
  }
  if (!flags.ml_secret_name.empty()) {  // as MetalLB: a failure here stops the controller
    auto ml = ensureMemberlistSecret(*clients->main, flags.namespace_, flags.ml_secret_name,
                                     flags.deployment, logger);
    if (!ml) return fail(logger, "memberlist_secret", ml.error());
  }
  auto owner = k8s::podOwner(*clients->main, flags.namespace_, flags.pod_name);
  if (!owner) logger.warn("startup", "pod_owner", owner.error().message);
  k8s::EventRecorderOptions ev;
  // A burst of thousands of new Services yields one Event each; keep them rather than drop.
  ev.queue_capacity = kEventQueueCapacity;
  ev.on_error = [&logger](const Error& e) { logger.warn("events", "write_failed", e.message); };
  k8s::EventRecorder recorder(*clients->events, k8s::EventSource{"metallb-controller", ""}, ev);
  RecorderSink sink(recorder);
  Manager manager(*clients->main, sink, metrics, logger,
                  managerOptions(flags, owner ? *owner : api::OwnerReference{}));
  auto servers = serve(flags, metrics, manager);
  if (!servers) return fail(logger, "listen", servers.error());
  if (auto started = manager.start(signals.token()); !started) {
    manager.stop();
    if (signals.token().stop_requested()) return 0;
    return fail(logger, "cache_sync", started.error());
  }
  signals.wait();
  manager.stop();
  if (!recorder.flush(std::chrono::seconds(5))) {
    logger.warn("main", "events_dropped", "some queued Events were not written before exit");
  }
  logger.info("main", "stopped", "ingot-controller stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  daemon::blockTerminationSignals();  // before any thread exists: all inherit it
  const std::vector<std::string> args(argv + 1, argv + argc);
  auto flags = parseFlags(args, processEnvironment(), podNamespace());
  if (!flags) {
    std::fprintf(stderr, "ingot-controller: %s\n", flags.error().message.c_str());
    return kExitUsage;
  }
  if (flags->help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (flags->version) {
    std::fputs(version::versionText("ingot-controller").c_str(), stdout);
    return 0;
  }
  log::Logger logger(flags->log_level);
  return run(*flags, logger);
}
