// SPDX-License-Identifier: Apache-2.0
// ingot-frr: flags, wiring and signals only. The work is done by Daemon and Worker.
#include <chrono>
#include <climits>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/daemon/endpoints.h"
#include "common/daemon/signals.h"
#include "frr/port.h"
#include "frr/session_metrics.h"
#include "ingotfrr/daemon.h"
#include "ingotfrr/flags.h"
#include "kube/events.h"
#include "kube/kubeconfig.h"
#include "kube/shell.h"
#include "kube/startup.h"

namespace {

using namespace ingot;
using namespace ingot::ingotfrr;

using k8s::kExitStartupFailure;

std::string hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) {
    return "";
  }
  return buf;
}

Result<daemon::Endpoints> serve(const Flags& flags, Metrics& metrics, const Daemon& d) {
  daemon::EndpointOptions o;
  o.metrics_port = flags.port;
  o.metrics_address = flags.metrics_address;
  o.health_port = flags.health_probe_port;
  o.health_address = flags.health_address;
  o.not_ready_message = "caches not synced yet\n";
  o.ports_file = flags.ports_file;
  return daemon::serveEndpoints(
      o, [&metrics] { return metrics.render(); }, [&d] { return d.ready(); });
}

frr::FrrDriverOptions frrOptions(const Flags& flags, log::Logger& logger) {
  frr::FrrDriverOptions o;
  o.reload_script = flags.frr_reload_script;
  o.vtysh = flags.vtysh;
  o.pathspace = flags.frr_pathspace;
  o.workdir = flags.frr_workdir;
  o.logger = &logger;
  return o;
}

DaemonOptions daemonOptions(const Flags& flags) {
  DaemonOptions o;
  o.worker.node = flags.node_name;
  o.worker.namespace_ = flags.namespace_;
  o.worker.verify_interval = flags.verify_interval;
  o.worker.debounce = flags.debounce;
  o.worker.hostname = hostname();
  return o;
}

int fail(log::Logger& logger, std::string_view event, const Error& e) {
  logger.error("startup", event, e.message);
  std::fprintf(stderr, "ingot-frr: %s\n", e.message.c_str());
  return kExitStartupFailure;
}

void logStart(const Flags& flags, log::Logger& logger) {
  logger.info("main", "start", "ingot-frr starting",
              {{"node", flags.node_name},
               {"namespace", flags.namespace_},
               log::num("debounce_ms", flags.debounce.count()),
               log::num("port", flags.port),
               log::num("health_probe_port", flags.health_probe_port)});
  for (const auto& f : flags.ignored) {
    logger.warn("main", "flag_ignored", "frr-k8s flag accepted without effect", {{"flag", f}});
  }
}

int run(const Flags& flags, log::Logger& logger) {
  daemon::SignalWatcher signals(logger);
  logStart(flags, logger);
  Metrics metrics;
  k8s::RestOptions rest;
  rest.qps = flags.kube_api_qps;
  rest.burst = flags.kube_api_burst;
  rest.user_agent = "ingot-frr";
  auto clients = k8s::connect(flags.kubeconfig, flags.context, rest, metrics, logger);
  if (!clients) {
    return fail(logger, "client_config", clients.error());
  }
  k8s::EventRecorderOptions ev;
  ev.on_error = [&logger](const Error& e) { logger.warn("events", "write_failed", e.message); };
  k8s::EventRecorder recorder(*clients->events, k8s::EventSource{"frr-k8s", flags.node_name}, ev);
  k8s::RecorderSink sink(recorder);
  auto frr = frr::makeFrrPort(frrOptions(flags, logger));
  // The session metrics' own vtysh (a /metrics read waits at most 5 s per show command).
  metrics.setCollector(frr->sessionCollector(frr::kFrrK8sSessions));
  Daemon d(*clients->main, sink, metrics, logger, *frr, daemonOptions(flags));
  auto servers = serve(flags, metrics, d);
  if (!servers) {
    return fail(logger, "listen", servers.error());
  }
  if (auto started = d.start(signals.token()); !started) {
    d.stop();
    return signals.token().stop_requested() ? 0 : fail(logger, "cache_sync", started.error());
  }
  signals.wait();
  d.stop();  // FRR keeps what was applied last, as frr-k8s leaves it
  metrics.setCollector({});
  if (!recorder.flush(std::chrono::seconds(5))) {
    logger.warn("main", "events_dropped", "some queued Events were not written before exit");
  }
  logger.info("main", "stopped", "ingot-frr stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return k8s::daemonMain<Flags>(argc, argv, "ingot-frr", parseFlags, usage, run);
}
