// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/endpoints.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

namespace ingot::daemon {
namespace {

constexpr const char* kLoopback = "127.0.0.1";
constexpr int kMetricsWorkers = 2;

using http::Request;
using http::Response;

int portOf(const std::unique_ptr<http::Server>& s) {
  return s ? s->port() : 0;
}

Result<void> writePorts(const std::string& path, const Endpoints& s) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << "metrics " << portOf(s.metrics) << "\nhealth " << portOf(s.health) << "\nmetricshttps "
        << portOf(s.metrics_https) << "\n";
    if (!out.flush()) {
      return Error{ErrorCode::Unavailable, "ports file " + path + ": cannot write " + tmp};
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return Error{ErrorCode::Unavailable, "ports file " + path + ": cannot rename " + tmp};
  }
  return {};
}

/// readOnly answers methods other than GET and HEAD with 405 before the handler.
http::Handler readOnly(http::Handler handler) {
  return [handler = std::move(handler)](const Request& r) {
    if (r.method != "GET" && r.method != "HEAD") {
      return Response{405, "text/plain; charset=utf-8", "only GET and HEAD are supported\n"};
    }
    return handler(r);
  };
}

http::Handler metricsHandler(std::function<std::string()> render, MetricsGate* gate) {
  return readOnly([render = std::move(render), gate](const Request& r) {
    if (gate != nullptr) {
      if (auto refused = gate->check(r)) {
        return *refused;
      }
    }
    if (r.path != "/metrics") {
      return Response{404, "text/plain; charset=utf-8", "not found\n"};
    }
    return Response{200, "text/plain; version=0.0.4; charset=utf-8", render()};
  });
}

http::Handler healthHandler(std::function<bool()> ready, std::string not_ready) {
  return readOnly([ready = std::move(ready), not_ready = std::move(not_ready)](const Request& r) {
    if (r.path == "/healthz" || r.path == "/livez") {
      return Response{200, "text/plain", "ok\n"};
    }
    if (r.path != "/readyz") {
      return Response{404, "text/plain", "not found\n"};
    }
    if (ready()) {
      return Response{200, "text/plain", "ok\n"};
    }
    return Response{503, "text/plain", not_ready};
  });
}

Result<std::unique_ptr<http::Server>> listen(const std::string& address,
                                             int port,
                                             int workers,
                                             http::Handler handler,
                                             std::shared_ptr<ssl_ctx_st> tls = nullptr) {
  http::ServerOptions o;
  o.address = address;
  o.port = port;
  o.workers = workers;
  o.tls = std::move(tls);
  // One request per connection, as these endpoints always answered: scrapers and probes open a
  // connection per request anyway, and clients that read a response to the end of the stream
  // keep working.
  o.max_requests_per_connection = 1;
  return http::Server::start(std::move(o), std::move(handler));
}

}  // namespace

Result<Endpoints> serveEndpoints(const EndpointOptions& options,
                                 std::function<std::string()> render,
                                 std::function<bool()> ready) {
  const bool pick = !options.ports_file.empty();
  Endpoints s;
  if (options.metrics_port != 0 && options.gate != nullptr) {
    auto tls = http::serverContext(options.metrics_tls, options.metrics_cert);
    if (!tls) {
      return Error{tls.error().code, "metrics endpoint (--port): " + tls.error().message};
    }
    auto m = listen(pick ? kLoopback : options.metrics_address, pick ? 0 : options.metrics_port,
                    kMetricsWorkers, metricsHandler(render, options.gate), *tls);
    if (!m) {
      return Error{m.error().code, "metrics endpoint (--port): " + m.error().message};
    }
    s.metrics_https = std::move(*m);
  }
  if (options.metrics_port != 0 && (options.gate == nullptr || pick)) {
    auto m = listen(pick ? kLoopback : options.metrics_address, pick ? 0 : options.metrics_port,
                    kMetricsWorkers, metricsHandler(std::move(render), nullptr));
    if (!m) {
      return Error{m.error().code, "metrics endpoint (--port): " + m.error().message};
    }
    s.metrics = std::move(*m);
  } else if (options.plain_metrics_port != 0 && !pick) {
    auto m = listen(options.plain_metrics_address, options.plain_metrics_port, kMetricsWorkers,
                    metricsHandler(std::move(render), nullptr));
    if (!m) {
      return Error{m.error().code,
                   "plain metrics endpoint (--plain-metrics-bind-address): " + m.error().message};
    }
    s.metrics = std::move(*m);
  }
  if (options.health_port != 0) {
    // Health answers on the loop thread: ready() only reads a flag, and no worker queue can
    // hold a liveness probe behind anything else.
    auto h = listen(pick ? kLoopback : options.health_address, pick ? 0 : options.health_port, 0,
                    healthHandler(std::move(ready), options.not_ready_message));
    if (!h) {
      return Error{h.error().code, "health endpoint (--health-probe-port): " + h.error().message};
    }
    s.health = std::move(*h);
  }
  if (pick) {
    auto ok = writePorts(options.ports_file, s);
    if (!ok) {
      return ok.error();
    }
  }
  return s;
}

Result<std::pair<int, int>> readPortsFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Error{ErrorCode::NotFound, "ports file " + path + ": cannot open"};
  }
  std::string key;
  int port = 0;
  std::optional<int> metrics;
  std::optional<int> health;
  while (in >> key >> port) {
    if (key == "metrics") {
      metrics = port;
    } else if (key == "health") {
      health = port;
    }
  }
  if (!metrics || !health) {
    return Error{
        ErrorCode::InvalidArgument,
        "ports file " + path + ": needs a \"metrics <port>\" and a \"health <port>\" line"};
  }
  return std::make_pair(*metrics, *health);
}

namespace {

Result<std::string> readWhole(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) {
    return Error{ErrorCode::InvalidArgument, flag + " " + path + ": cannot read the file"};
  }
  return text.str();
}

}  // namespace

Result<http::KeyPair> metricsCertificate(const std::string& cert_file,
                                         const std::string& key_file,
                                         const std::string& host) {
  if (cert_file.empty() != key_file.empty()) {
    return Error{ErrorCode::InvalidArgument,
                 "the metrics certificate needs both a certificate and a key file (--tls-cert-file "
                 "and --tls-private-key-file, or --metrics-cert-dir with tls.crt and tls.key)"};
  }
  if (cert_file.empty()) {
    return http::selfSigned(host, {host, "localhost"}, std::chrono::system_clock::now());
  }
  auto cert = readWhole(cert_file, "--tls-cert-file");
  if (!cert) return cert.error();
  auto key = readWhole(key_file, "--tls-private-key-file");
  if (!key) return key.error();
  return http::KeyPair{*cert, *key};
}

}  // namespace ingot::daemon
