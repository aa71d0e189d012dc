// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook/server.h"

#include <algorithm>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "common/http/server.h"
#include "controller/webhook/convert.h"

namespace ingot::controller::webhook {

/// Parsed holds the OpenSSL objects of one certificate pair.
struct CertificateHolder::Parsed {
  X509* cert = nullptr;
  EVP_PKEY* key = nullptr;
  Parsed() = default;
  Parsed(const Parsed&) = delete;
  Parsed& operator=(const Parsed&) = delete;
  ~Parsed() {
    X509_free(cert);
    EVP_PKEY_free(key);
  }
};

namespace {

// An AdmissionReview of the largest allowed body arrives well within these on any link the API
// server uses; a client slower than that only ever holds its own connection.
constexpr std::chrono::milliseconds kHandshakeTimeout{10000};
constexpr std::chrono::milliseconds kHeadTimeout{10000};
constexpr std::chrono::milliseconds kRequestTimeout{30000};
constexpr std::chrono::milliseconds kWriteTimeout{30000};
constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr size_t kKeepAliveMax = 100;

/// useCurrentCertificate is OpenSSL's certificate callback: each handshake takes the holder's
/// current pair, so a rotation applies to the next connection. No pair: the handshake fails.
int useCurrentCertificate(SSL* ssl, void* arg) {
  const auto* holder = static_cast<const CertificateHolder*>(arg);
  const auto pair = holder->current();
  if (!pair) {
    return 0;
  }
  return SSL_use_certificate(ssl, pair->cert) == 1 && SSL_use_PrivateKey(ssl, pair->key) == 1 ? 1
                                                                                              : 0;
}

/// tlsContext builds the server's SSL_CTX from the settings, with the holder's certificate.
std::shared_ptr<SSL_CTX> tlsContext(const TlsSettings& tls, CertificateHolder* holder) {
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return nullptr;
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_set_min_proto_version(ctx.get(), tls.min_version) != 1) return nullptr;
  if (!tls.cipher_list.empty() &&
      SSL_CTX_set_cipher_list(ctx.get(), tls.cipher_list.c_str()) != 1) {
    return nullptr;
  }
  SSL_CTX_set_cert_cb(ctx.get(), useCurrentCertificate, holder);
  return ctx;
}

/// route answers POSTs to the served paths through handler: 404 for other paths, 405 for other
/// methods, and a failure Status (500) when the handler throws.
http::Handler route(std::vector<std::string> paths, WebhookHandler handler) {
  return [paths = std::move(paths), handler = std::move(handler)](const http::Request& r) {
    if (std::find(paths.begin(), paths.end(), r.path) == paths.end()) {
      return http::Response{404, "text/plain; charset=utf-8", "not found\n"};
    }
    if (r.method != "POST") {
      return http::Response{405, "text/plain; charset=utf-8", "only POST is supported\n"};
    }
    try {
      HttpAnswer a = handler(r.path, r.body);
      return http::Response{a.status, "application/json", std::move(a.body)};
    } catch (const std::exception&) {
      return http::Response{500, "application/json",
                            failureStatus("internal error while handling the request")};
    }
  };
}

}  // namespace

CertificateHolder::CertificateHolder() = default;
CertificateHolder::~CertificateHolder() = default;

Result<void> CertificateHolder::set(const KeyPair& pair) {
  auto parsed = std::make_shared<Parsed>();
  BIO* c = BIO_new_mem_buf(pair.cert.data(), static_cast<int>(pair.cert.size()));
  BIO* k = BIO_new_mem_buf(pair.key.data(), static_cast<int>(pair.key.size()));
  parsed->cert = PEM_read_bio_X509(c, nullptr, nullptr, nullptr);
  parsed->key = PEM_read_bio_PrivateKey(k, nullptr, nullptr, nullptr);
  BIO_free(c);
  BIO_free(k);
  if (parsed->cert == nullptr || parsed->key == nullptr ||
      X509_check_private_key(parsed->cert, parsed->key) != 1) {
    ERR_clear_error();
    return invalidArgument(
        "the serving certificate and key cannot be used (not PEM, or the key "
        "does not match the certificate)");
  }
  std::lock_guard lock(mu_);
  current_ = std::move(parsed);
  pem_ = pair.cert;
  return {};
}

bool CertificateHolder::loaded() const {
  std::lock_guard lock(mu_);
  return current_ != nullptr;
}

std::string CertificateHolder::pem() const {
  std::lock_guard lock(mu_);
  return pem_;
}

std::shared_ptr<const CertificateHolder::Parsed> CertificateHolder::current() const {
  std::lock_guard lock(mu_);
  return current_;
}

Result<std::unique_ptr<WebhookServer>> WebhookServer::start(
    const ServerOptions& options,
    std::shared_ptr<CertificateHolder> certs,
    const std::vector<std::string>& paths,
    const WebhookHandler& handler) {
  const std::string where =
      "webhook server " + options.address + ":" + std::to_string(options.port);
  std::unique_ptr<WebhookServer> s(new WebhookServer());
  s->certs_ = std::move(certs);
  http::ServerOptions o;
  o.address = options.address;
  o.port = options.port;
  o.tls = tlsContext(options.tls, s->certs_.get());
  if (!o.tls) {
    ERR_clear_error();
    return Error{ErrorCode::InvalidArgument, where + ": OpenSSL refused the TLS settings"};
  }
  o.max_head_bytes = kMaxHeadBytes;
  o.max_body_bytes = options.max_body_bytes;
  o.handshake_timeout = kHandshakeTimeout;
  o.head_timeout = kHeadTimeout;
  o.request_timeout = kRequestTimeout;
  o.write_timeout = kWriteTimeout;
  o.max_requests_per_connection = kKeepAliveMax;
  o.workers = options.workers;
  auto server = http::Server::start(std::move(o), route(paths, handler));
  if (!server) {
    return Error{server.error().code, where + ": " + server.error().message};
  }
  s->server_ = std::move(*server);
  s->port_ = s->server_->port();
  return s;
}

WebhookServer::~WebhookServer() {
  stop();
}

void WebhookServer::stop() {
  if (server_) {
    server_->stop();
  }
}

}  // namespace ingot::controller::webhook
