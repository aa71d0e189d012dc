// SPDX-License-Identifier: Apache-2.0
// The webhook HTTPS server: common/http's server with a TLS context built from the --tls-*
// settings, serving the certificate a CertificateHolder holds at each handshake (so a rotated
// certificate is used by the next connection without a restart), with a cap on request bodies
// and deadlines on every phase of a request. Which paths exist and what they answer is the
// caller's (a WebhookHandler); this file only routes POSTs and sets up TLS.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/util/result.h"
#include "controller/webhook/certs.h"
#include "controller/webhook/tls.h"

namespace ingot::http {
class Server;
}

namespace ingot::controller::webhook {

/// kMaxBodyBytes caps request bodies (the API server's own request limit is 3 MiB; an
/// AdmissionReview carries at most two objects of that size). Larger bodies get 413.
inline constexpr size_t kMaxBodyBytes = 7 * 1024 * 1024;

/// CertificateHolder is the serving certificate the next handshake uses; thread-safe.
class CertificateHolder {
 public:
  CertificateHolder();
  ~CertificateHolder();
  CertificateHolder(const CertificateHolder&) = delete;
  CertificateHolder& operator=(const CertificateHolder&) = delete;

  /// set parses pair and makes it current; on error the previous pair stays in use.
  Result<void> set(const KeyPair& pair);
  /// loaded reports whether a certificate is held (before that, every handshake fails).
  bool loaded() const;
  /// pem returns the current certificate PEM ("" before the first set).
  std::string pem() const;

  struct Parsed;
  /// current returns the parsed pair for a handshake (nullptr before the first set).
  std::shared_ptr<const Parsed> current() const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const Parsed> current_;
  std::string pem_;
};

/// HttpAnswer is a handler's response.
struct HttpAnswer {
  int status = 200;
  std::string body;  ///< JSON
};

/// WebhookHandler answers a POST to path; it is called from several threads at once.
using WebhookHandler = std::function<HttpAnswer(const std::string& path, const std::string& body)>;

/// ServerOptions configure the listener.
struct ServerOptions {
  std::string address = "::";  ///< every interface, IPv6 and IPv4
  int port = 9443;             ///< 0 = any free port
  TlsSettings tls;
  size_t max_body_bytes = kMaxBodyBytes;
  int workers = 4;  ///< handler threads (a handler may wait on the API server)
};

/// WebhookServer serves handler for POSTs to paths on its own threads until stopped.
class WebhookServer {
 public:
  /// start binds (errors name the address and port) and starts serving.
  static Result<std::unique_ptr<WebhookServer>> start(const ServerOptions& options,
                                                      std::shared_ptr<CertificateHolder> certs,
                                                      const std::vector<std::string>& paths,
                                                      const WebhookHandler& handler);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  /// port returns the bound port.
  int port() const { return port_; }
  /// stop stops listening and joins the server's threads; idempotent.
  void stop();

 private:
  WebhookServer() = default;
  std::shared_ptr<CertificateHolder> certs_;
  std::unique_ptr<http::Server> server_;
  int port_ = 0;
};

}  // namespace ingot::controller::webhook
