// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook_server.h"

#include <httplib.h>

#include <openssl/pem.h>
#include <openssl/ssl.h>

#include "controller/webhook_convert.h"

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

constexpr int kReadTimeoutSeconds = 10;
constexpr size_t kKeepAliveMax = 100;
constexpr int kStartWaitSteps = 500;
constexpr int kStartWaitStepMs = 10;

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
  CertificateHolder* holder = s->certs_.get();
  const TlsSettings tls = options.tls;
  s->server_ = std::make_unique<httplib::SSLServer>([holder, tls](SSL_CTX& ctx) {
    SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    if (SSL_CTX_set_min_proto_version(&ctx, tls.min_version) != 1) return false;
    if (!tls.cipher_list.empty() && SSL_CTX_set_cipher_list(&ctx, tls.cipher_list.c_str()) != 1) {
      return false;
    }
    SSL_CTX_set_cert_cb(&ctx, useCurrentCertificate, holder);
    return true;
  });
  if (!s->server_->is_valid()) {
    ERR_clear_error();
    return Error{ErrorCode::InvalidArgument, where + ": OpenSSL refused the TLS settings"};
  }
  auto& srv = *s->server_;
  srv.set_payload_max_length(options.max_body_bytes);
  srv.set_read_timeout(kReadTimeoutSeconds, 0);
  srv.set_keep_alive_max_count(kKeepAliveMax);
  srv.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                               const std::exception_ptr&) {
    res.status = 500;
    res.set_content(failureStatus("internal error while handling the request"), "application/json");
  });
  for (const auto& path : paths) {
    srv.Post(path, [handler, path](const httplib::Request& req, httplib::Response& res) {
      HttpAnswer a = handler(path, req.body);
      res.status = a.status;
      res.set_content(a.body, "application/json");
    });
  }
  const int port = options.port == 0
                       ? srv.bind_to_any_port(options.address)
                       : (srv.bind_to_port(options.address, options.port) ? options.port : -1);
  if (port <= 0) {
    return Error{ErrorCode::Unavailable, where + ": cannot listen (address in use or invalid)"};
  }
  s->port_ = port;
  s->thread_ = std::thread([&srv] { srv.listen_after_bind(); });
  // stop() before the loop runs would not wake it: wait (bounded) until it does.
  for (int i = 0; i < kStartWaitSteps && !srv.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kStartWaitStepMs));
  }
  return s;
}

WebhookServer::~WebhookServer() {
  stop();
}

void WebhookServer::stop() {
  if (server_) {
    server_->stop();
  }
  if (thread_.joinable()) {
    thread_.join();
  }
}

}  // namespace ingot::controller::webhook
