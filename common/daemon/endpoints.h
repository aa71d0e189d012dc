// SPDX-License-Identifier: Apache-2.0
// A daemon's HTTP endpoints: /metrics (--port) and /healthz, /livez, /readyz
// (--health-probe-port), on common/http's server, GET and HEAD only. Port 0 disables an endpoint,
// as in MetalLB. /metrics is either plain HTTP (ingot-frr) or, as MetalLB v0.16 serves it, HTTPS
// behind a MetricsGate (bearer token reviewed by the API server); health is always plain HTTP.
// For tests, a ports file makes the enabled endpoints listen on 127.0.0.1 on ports the system
// picks and reports them, so a test never has to guess a free port for a child process.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/daemon/metrics_auth.h"
#include "common/http/certs.h"
#include "common/http/server.h"
#include "common/util/result.h"

namespace ingot::daemon {

/// EndpointOptions say where the endpoints listen.
struct EndpointOptions {
  int metrics_port = 0;           ///< 0 = no /metrics endpoint
  std::string metrics_address;    ///< "" = every interface
  int health_port = 0;            ///< 0 = no health endpoint
  std::string health_address;     ///< "" = every interface
  std::string not_ready_message;  ///< /readyz body while not ready
  /// ports_file, when set, moves every enabled endpoint to 127.0.0.1 with a system-chosen port
  /// and writes "metrics <port>\nhealth <port>\nmetricshttps <port>\n" (0 = disabled) to this
  /// path once all listen (written whole through a rename, so a reader never sees half of it).
  /// With a gate, "metrics" is then a second, plain-HTTP /metrics on 127.0.0.1 for the tests
  /// that read counters, and "metricshttps" the gated one; without, "metricshttps" is 0.
  std::string ports_file;
  /// gate, when set, makes /metrics HTTPS with metrics_cert and metrics_tls, answering only the
  /// requests the gate lets through; null = plain HTTP. The gate must outlive the servers.
  MetricsGate* gate = nullptr;
  /// plain_metrics_port: /metrics (also) over plain HTTP, ungated, on plain_metrics_address
  /// (0 = not); ignored with a ports file, which has its plain copy, and when --port already
  /// serves plain HTTP.
  int plain_metrics_port = 0;
  std::string plain_metrics_address;
  http::KeyPair metrics_cert;
  http::TlsSettings metrics_tls;
};

/// Endpoints are the running servers (null when disabled). Each endpoint has its own server
/// (listener, loop): health answers on its loop thread and never waits behind a slow /metrics,
/// whose rendering runs on the metrics server's workers.
struct Endpoints {
  std::unique_ptr<http::Server> metrics;        ///< plain HTTP (no gate, or the tests' copy)
  std::unique_ptr<http::Server> metrics_https;  ///< with a gate
  std::unique_ptr<http::Server> health;
};

/// serveEndpoints starts the enabled endpoints: /metrics answers render(), /readyz 200 when
/// ready() and 503 with the not-ready message otherwise. render() may run on two threads at once
/// (two scrapes); ready() runs on the health server's loop thread and must not block. Errors name
/// the flag of the endpoint that could not listen, or the ports file that could not be written.
Result<Endpoints> serveEndpoints(const EndpointOptions& options,
                                 std::function<std::string()> render,
                                 std::function<bool()> ready);

/// readPortsFile parses a ports file: {metrics port, health port}. Errors say what is missing.
Result<std::pair<int, int>> readPortsFile(const std::string& path);

/// metricsCertificate returns the certificate /metrics serves: cert_file and key_file when both
/// are given (PEM), else a self-signed one for host. Errors name the file that cannot be read.
Result<http::KeyPair> metricsCertificate(const std::string& cert_file,
                                         const std::string& key_file,
                                         const std::string& host);

}  // namespace ingot::daemon
