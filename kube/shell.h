// SPDX-License-Identifier: Apache-2.0
// The process shell both daemons share (ingot-controller, ingot-agent). In order: block the
// termination signals, parse the command line, connect to the API server and check the
// connection (preflight), read the daemon's own pod, start the Event recorder, build the daemon's
// Workload, serve /metrics and the health endpoints, start the Workload and run it until
// SIGTERM/SIGINT; then stop it and flush the queued Events. Each daemon's main.cpp says only what
// differs: names, its flag table and how to build its Workload.
#pragma once

#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "common/daemon/flags.h"
#include "common/daemon/memory.h"
#include "common/daemon/signals.h"
#include "common/http/tls_settings.h"
#include "common/util/log.h"
#include "common/util/result.h"
#include "common/version/version.h"
#include "kube/api_client.h"
#include "kube/daemon_metrics.h"
#include "kube/events.h"

namespace ingot::k8s {

inline constexpr int kExitStartupFailure = 1;  ///< a start-up step failed
inline constexpr int kExitUsage = 2;           ///< the command line is invalid

/// Workload is what a daemon runs between start-up and shutdown: its informers, work queue and
/// worker, and whatever must start before them and stop around them.
class Workload {
 public:
  virtual ~Workload() = default;
  /// start starts the informers and, once every cache synced, the worker. It fails when the
  /// caches do not sync in time or when stop is requested first.
  virtual Result<void> start(const std::stop_token& stop) = 0;
  /// stop stops everything start started; called once after a signal or a failed start.
  virtual void stop() = 0;
  /// ready answers /readyz. Thread-safe.
  virtual bool ready() const = 0;
  /// extraMetrics returns metric families in the Prometheus text format that /metrics appends
  /// to the daemon's own (none by default). Thread-safe.
  virtual std::string extraMetrics() const { return {}; }
};

/// ShellContext is what the shell hands the daemon to build its Workload once connected.
struct ShellContext {
  ApiClient& api;             ///< the main client: informers and writes
  EventSink& events;          ///< Events, written in the background by the shell's recorder
  api::OwnerReference owner;  ///< the daemon's pod; empty when --pod-name is unset or unreadable
};

/// WorkloadFactory builds the daemon's Workload; an error ends the start-up (exit status 1).
using WorkloadFactory = std::function<Result<std::unique_ptr<Workload>>(const ShellContext&)>;

/// ShellOptions are what the daemons' start-ups differ in.
struct ShellOptions {
  std::string name;                        ///< "ingot-agent": user agent, log lines, stderr prefix
  std::string component;                   ///< "agent": named in the preflight's advice
  std::string namespace_;                  ///< the MetalLB namespace (preflight, the pod)
  std::string pod_name;                    ///< the daemon's pod, owner of the objects it creates
  EventSource event_source;                ///< reportingComponent/host of the daemon's Events
  size_t event_queue_capacity = 0;         ///< 0 = EventRecorderOptions' default
  std::string health_address;              ///< where the health endpoint listens ("" = everywhere)
  std::string not_ready_message;           ///< /readyz body while not ready
  std::vector<std::string> ignored_flags;  ///< MetalLB flags given without effect; each warned
  /// secure_metrics serves /metrics over HTTPS (the flags' certificate, else a self-signed one
  /// for metrics_host) to the bearer tokens the API server authenticates and authorizes for
  /// "get" on the non-resource URL /metrics, as MetalLB v0.16; false = plain HTTP.
  bool secure_metrics = false;
  http::TlsSettings metrics_tls;
  std::string metrics_host;
};

/// runShell runs a daemon from connecting to shutdown and returns the process's exit status:
/// 0 after SIGTERM/SIGINT, kExitStartupFailure when a start-up step failed (logged, and written
/// to stderr as "<name>: <reason>"). The API clients count their requests in metrics, which
/// /metrics renders.
int runShell(const daemon::CommonFlags& flags,
             const ShellOptions& options,
             DaemonMetrics& metrics,
             log::Logger& logger,
             const WorkloadFactory& make);

/// podNamespace returns the namespace in the service-account directory ("" outside a pod).
std::string podNamespace();

/// FlagParser parses a daemon's command line: arguments, environment, the pod's namespace.
template <typename Flags>
using FlagParser = Result<Flags> (*)(const std::vector<std::string>&,
                                     const daemon::Environment&,
                                     const std::string&);

/// daemonMain is a daemon's main(): it limits malloc's arenas and blocks the termination signals
/// before any thread starts, parses the command line (from argv, the environment and
/// podNamespace()), prints usage() for --help and the version for --version, and otherwise calls
/// run with the flags and a logger at --log-level. An invalid command line exits with kExitUsage
/// and "<name>: <reason>" on stderr. An exception that escapes run (out of memory, a thread that
/// cannot start) exits with kExitStartupFailure and "<name>: <what>" on stderr instead of
/// std::terminate's abort.
template <typename Flags>
int daemonMain(int argc,
               char** argv,
               const char* name,
               FlagParser<Flags> parse,
               std::string (*usage)(),
               int (*run)(const Flags&, log::Logger&)) {
  try {
    daemon::tuneMalloc();               // before any thread allocates
    daemon::blockTerminationSignals();  // before any thread exists: all inherit it
    const std::vector<std::string> args(argv + 1, argv + argc);
    auto flags = parse(args, daemon::processEnvironment(), podNamespace());
    if (!flags) {
      std::fprintf(stderr, "%s: %s\n", name, flags.error().message.c_str());
      return kExitUsage;
    }
    if (flags->help) {
      std::fputs(usage().c_str(), stdout);
      return 0;
    }
    if (flags->version) {
      std::fputs(version::versionText(name).c_str(), stdout);
      return 0;
    }
    log::Logger logger(flags->log_level);
    return run(*flags, logger);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: unknown exception\n", name);
  }
  return kExitStartupFailure;
}

}  // namespace ingot::k8s
