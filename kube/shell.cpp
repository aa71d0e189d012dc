// SPDX-License-Identifier: Apache-2.0
#include "kube/shell.h"

#include <fstream>
#include <optional>

#include "common/daemon/endpoints.h"
#include "kube/access_reviews.h"
#include "kube/kubeconfig.h"
#include "kube/startup.h"

namespace ingot::k8s {
namespace {

constexpr auto kEventFlushTimeout = std::chrono::seconds(5);

int fail(const ShellOptions& options, log::Logger& logger, std::string_view event, const Error& e) {
  logger.error("startup", event, e.message);
  std::fprintf(stderr, "%s: %s\n", options.name.c_str(), e.message.c_str());
  return kExitStartupFailure;
}

Result<Clients> connectTo(const daemon::CommonFlags& flags,
                          const ShellOptions& options,
                          DaemonMetrics& metrics,
                          log::Logger& logger) {
  RestOptions rest;
  rest.qps = flags.kube_api_qps;
  rest.burst = flags.kube_api_burst;
  rest.user_agent = options.name;
  return connect(flags.kubeconfig, flags.context, rest, metrics, logger);
}

/// MetricsAccess is the gate of HTTPS /metrics and what it asks; it outlives the servers.
struct MetricsAccess {
  explicit MetricsAccess(ApiClient& client) : reviews(client), gate(reviews) {}
  ApiAccessReviews reviews;
  daemon::MetricsGate gate;
};

Result<daemon::Endpoints> serve(const daemon::CommonFlags& flags,
                                const ShellOptions& options,
                                const DaemonMetrics& metrics,
                                const Workload& workload,
                                MetricsAccess* access) {
  daemon::EndpointOptions o;
  if (access != nullptr && flags.port != 0) {
    auto cert = daemon::metricsCertificate(
        flags.tls_cert_file, flags.tls_private_key_file,
        options.metrics_host.empty() ? options.name : options.metrics_host);
    if (!cert) {
      return cert.error();
    }
    o.gate = &access->gate;
    o.metrics_cert = std::move(*cert);
    o.metrics_tls = options.metrics_tls;
  }
  o.metrics_port = flags.port;
  o.plain_metrics_port = flags.plain_metrics_port;
  o.plain_metrics_address = flags.plain_metrics_address;
  o.health_port = flags.health_probe_port;
  o.health_address = options.health_address;
  o.not_ready_message = options.not_ready_message;
  o.ports_file = flags.ports_file;
  return daemon::serveEndpoints(
      o, [&metrics, &workload] { return metrics.render() + workload.extraMetrics(); },
      [&workload] { return workload.ready(); });
}

EventRecorderOptions recorderOptions(const ShellOptions& options, log::Logger& logger) {
  EventRecorderOptions o;
  if (options.event_queue_capacity != 0) {
    o.queue_capacity = options.event_queue_capacity;
  }
  o.on_error = [&logger](const Error& e) { logger.warn("events", "write_failed", e.message); };
  return o;
}

/// Running is what runShell holds once connected.
struct Running {
  const daemon::CommonFlags& flags;
  const ShellOptions& options;
  DaemonMetrics& metrics;
  log::Logger& logger;
  daemon::SignalWatcher& signals;
  ApiClient& reviews;  ///< the client the metrics gate's reviews go through
};

/// serveUntilSignal serves the endpoints and runs the workload until a signal. It returns
/// nothing when the workload ran until the signal, and the exit status when it ended before.
std::optional<int> serveUntilSignal(const Running& r, Workload& workload) {
  std::unique_ptr<MetricsAccess> access;
  if (r.options.secure_metrics) {
    access = std::make_unique<MetricsAccess>(r.reviews);
  }
  auto servers = serve(r.flags, r.options, r.metrics, workload, access.get());
  if (!servers) {
    return fail(r.options, r.logger, "listen", servers.error());
  }
  if (auto started = workload.start(r.signals.token()); !started) {
    workload.stop();
    if (r.signals.token().stop_requested()) {
      return 0;
    }
    return fail(r.options, r.logger, "cache_sync", started.error());
  }
  r.signals.wait();
  workload.stop();
  return std::nullopt;
}

/// runConnected runs the daemon once its clients passed the preflight.
int runConnected(const Running& r, Clients& clients, const WorkloadFactory& make) {
  auto owner = podOwner(*clients.main, r.options.namespace_, r.options.pod_name);
  if (!owner) {
    r.logger.warn("startup", "pod_owner", owner.error().message);
  }
  EventRecorder recorder(*clients.events, r.options.event_source,
                         recorderOptions(r.options, r.logger));
  RecorderSink sink(recorder);
  auto workload = make(ShellContext{*clients.main, sink, owner ? *owner : api::OwnerReference{}});
  if (!workload) {
    return fail(r.options, r.logger, "start", workload.error());
  }
  if (auto status = serveUntilSignal(r, **workload)) {
    return *status;
  }
  if (!recorder.flush(kEventFlushTimeout)) {
    r.logger.warn("main", "events_dropped", "some queued Events were not written before exit");
  }
  r.logger.info("main", "stopped", r.options.name + " stopped");
  return 0;
}

}  // namespace

int runShell(const daemon::CommonFlags& flags,
             const ShellOptions& options,
             DaemonMetrics& metrics,
             log::Logger& logger,
             const WorkloadFactory& make) {
  daemon::SignalWatcher signals(logger);
  for (const auto& f : options.ignored_flags) {
    logger.warn("main", "flag_ignored", "MetalLB flag accepted without effect", {{"flag", f}});
  }
  auto clients = connectTo(flags, options, metrics, logger);
  if (!clients) {
    return fail(options, logger, "client_config", clients.error());
  }
  PreflightOptions preflight_options;
  preflight_options.component = options.component;
  if (auto ok =
          preflight(*clients->main, clients->server, options.namespace_, logger, preflight_options);
      !ok) {
    return fail(options, logger, "preflight", ok.error());
  }
  // The reviews go through the events client: a scrape never waits behind the informers' and
  // writes' rate limit, and they are a couple of requests a minute at most.
  return runConnected(Running{flags, options, metrics, logger, signals, *clients->events}, *clients,
                      make);
}

std::string podNamespace() {
  std::ifstream in(std::string(kServiceAccountDir) + "/namespace");
  std::string ns;
  std::getline(in, ns);
  return ns;
}

}  // namespace ingot::k8s
