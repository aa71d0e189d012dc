// SPDX-License-Identifier: Apache-2.0
// ingot-agent: flags, wiring and signals only (docs/architecture.md). The work is done by the
// Manager (informers, queue, worker) and the Reconciler (agent/reconciler.h).
#include <climits>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "agent/backend.h"
#include "agent/backend_l2.h"
#include "agent/flags.h"
#include "agent/manager.h"
#include "agent/metrics.h"
#include "common/daemon/endpoints.h"
#include "common/daemon/signals.h"
#include "common/version/version.h"
#include "kube/events.h"
#include "kube/kubeconfig.h"
#include "kube/startup.h"

namespace {

using namespace ingot;
using namespace ingot::agent;

constexpr int kExitStartupFailure = 1;
constexpr int kExitUsage = 2;

std::string podNamespace() {
  std::ifstream in(std::string(k8s::kServiceAccountDir) + "/namespace");
  std::string ns;
  std::getline(in, ns);
  return ns;
}

std::string hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

Result<k8s::Clients> connect(const Flags& flags, Metrics& metrics, log::Logger& logger) {
  k8s::RestOptions options;
  options.qps = flags.kube_api_qps;
  options.burst = flags.kube_api_burst;
  options.user_agent = "ingot-agent";
  return k8s::connect(flags.kubeconfig, flags.context, options, metrics, logger);
}

Result<daemon::Endpoints> serve(const Flags& flags, Metrics& metrics, const Manager& manager) {
  daemon::EndpointOptions o;
  o.metrics_port = flags.port;
  o.health_port = flags.health_probe_port;
  o.health_address = "127.0.0.1";
  o.not_ready_message = "no configuration loaded and synced yet\n";
  o.ports_file = flags.ports_file;
  return daemon::serveEndpoints(
      o, [&metrics] { return metrics.render(); }, [&manager] { return manager.ready(); });
}

ManagerOptions managerOptions(const Flags& flags,
                              api::OwnerReference owner,
                              MembershipSource* membership) {
  ManagerOptions o;
  o.membership = membership;
  auto& r = o.reconciler;
  r.node = flags.node_name;
  r.namespace_ = flags.namespace_;
  r.dialect = flags.bgp_mode == BgpMode::Frr ? config::Backend::Frr : config::Backend::FrrK8s;
  r.announce.lb_class = flags.lb_class;
  r.announce.ignore_exclude_lb = flags.ignore_exclude_lb;
  r.build.metallb_namespace = flags.namespace_;
  // frr mode resolves passwordSecret itself from the MetalLB namespace's Secrets.
  r.build.frrk8s_namespace =
      flags.bgp_mode == BgpMode::Frr ? flags.namespace_ : flags.frrk8s_namespace;
  r.build.secret_passthrough = flags.frrk8s_secret_passthrough;
  r.debounce = flags.bgp_debounce;
  r.frr_verify_interval = flags.frr_verify_interval;
  r.frr_full_reload = flags.frr_full_reload;
  r.hostname = hostname();
  r.owner = std::move(owner);
  o.watch_frr_configurations = flags.bgp_mode == BgpMode::FrrK8s;
  return o;
}

bgp::FrrDriverOptions frrDriver(const Flags& flags, log::Logger& logger) {
  bgp::FrrDriverOptions o;
  o.reload_script = flags.frr_reload_script;
  o.pathspace = flags.frr_pathspace;
  o.workdir = flags.frr_workdir;
  o.logger = &logger;
  return o;
}

/// backends registers the announcing backends of this node, one line per protocol.
BackendFactory backends(const Flags& flags, log::Logger& logger) {
  return [&flags, &logger](const BackendContext& context) {
    Backends out;
    if (flags.bgp_mode == BgpMode::FrrK8s) {
      out.push_back(std::make_unique<FrrK8sBackend>(context));
    } else {
      out.push_back(std::make_unique<LocalFrrBackend>(context, frrDriver(flags, logger)));
    }
    out.push_back(std::make_unique<Layer2Backend>(
        context, startL2Responder(l2::ResponderOptions{}, flags.excludel2_path)));
    return out;
  };
}

void logStart(const Flags& flags, log::Logger& logger) {
  logger.info("main", "start", "ingot-agent starting",
              {{"node", flags.node_name},
               {"namespace", flags.namespace_},
               {"bgp_mode", std::string(bgpModeName(flags.bgp_mode))},
               {"frrk8s_namespace", flags.frrk8s_namespace},
               log::num("bgp_debounce_ms", flags.bgp_debounce.count()),
               log::num("port", flags.port),
               log::num("health_probe_port", flags.health_probe_port)});
  for (const auto& f : flags.ignored) {
    logger.warn("main", "flag_ignored", "MetalLB flag accepted without effect", {{"flag", f}});
  }
}

int fail(log::Logger& logger, std::string_view event, const Error& e) {
  logger.error("startup", event, e.message);
  std::fprintf(stderr, "ingot-agent: %s\n", e.message.c_str());
  return kExitStartupFailure;
}

int run(const Flags& flags, log::Logger& logger) {
  daemon::SignalWatcher signals(logger);
  logStart(flags, logger);
  Metrics metrics(flags.node_name);
  auto clients = connect(flags, metrics, logger);
  if (!clients) return fail(logger, "client_config", clients.error());
  k8s::PreflightOptions preflight_options;
  preflight_options.component = "agent";
  if (auto ok = k8s::preflight(*clients->main, clients->server, flags.namespace_, logger,
                               preflight_options);
      !ok) {
    return fail(logger, "preflight", ok.error());
  }
  auto owner = k8s::podOwner(*clients->main, flags.namespace_, flags.pod_name);
  if (!owner) logger.warn("startup", "pod_owner", owner.error().message);
  k8s::EventRecorderOptions ev;
  ev.on_error = [&logger](const Error& e) { logger.warn("events", "write_failed", e.message); };
  k8s::EventRecorder recorder(*clients->events,
                              k8s::EventSource{"metallb-speaker", flags.node_name}, ev);
  RecorderSink sink(recorder);
  auto membership = startMembership(flags.node_name, flags.memberlist, logger);
  if (!membership) return fail(logger, "memberlist", membership.error());
  Manager manager(*clients->main, sink, metrics, logger,
                  managerOptions(flags, owner ? *owner : api::OwnerReference{}, membership->get()),
                  backends(flags, logger));
  auto servers = serve(flags, metrics, manager);
  if (!servers) return fail(logger, "listen", servers.error());
  if (auto started = manager.start(signals.token()); !started) {
    manager.stop();
    if (signals.token().stop_requested()) return 0;
    return fail(logger, "cache_sync", started.error());
  }
  signals.wait();
  if (*membership) (*membership)->stop();  // graceful leave first (bounded: 1 s), as MetalLB
  manager.stop();  // the FRRConfiguration stays as last written, as MetalLB leaves it
  if (!recorder.flush(std::chrono::seconds(5))) {
    logger.warn("main", "events_dropped", "some queued Events were not written before exit");
  }
  logger.info("main", "stopped", "ingot-agent stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  daemon::blockTerminationSignals();  // before any thread exists: all inherit it
  const std::vector<std::string> args(argv + 1, argv + argc);
  auto flags = parseFlags(args, processEnvironment(), podNamespace());
  if (!flags) {
    std::fprintf(stderr, "ingot-agent: %s\n", flags.error().message.c_str());
    return kExitUsage;
  }
  if (flags->help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  if (flags->version) {
    std::fputs(version::versionText("ingot-agent").c_str(), stdout);
    return 0;
  }
  log::Logger logger(flags->log_level);
  return run(*flags, logger);
}
