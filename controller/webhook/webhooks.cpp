// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook/webhooks.h"

namespace ingot::controller {
namespace {

constexpr int kDefaultPort = 9443;

webhook::RotatorOptions rotatorOptions(const WebhookSettings& s) {
  webhook::RotatorOptions o;
  o.namespace_ = s.namespace_;
  o.secret = s.flags.secret;
  o.service = s.flags.cert_service_name;
  o.rotate = !s.flags.disable_cert_rotation;
  o.cert_dir = s.flags.cert_dir;
  return o;
}

webhook::ServerOptions serverOptions(const WebhookSettings& s, const webhook::TlsSettings& tls) {
  webhook::ServerOptions o;
  o.tls = tls;
  o.port = s.flags.port.value_or(kDefaultPort);
  if (s.pick_port && !s.flags.port) {
    o.address = "127.0.0.1";
    o.port = 0;
  }
  return o;
}

}  // namespace

Result<std::unique_ptr<Webhooks>> Webhooks::start(const WebhookSettings& settings,
                                                  k8s::ApiClient& api,
                                                  k8s::EventSink& events,
                                                  log::Logger& logger) {
  auto tls =
      webhook::parseTlsSettings(settings.flags.tls_min_version, settings.flags.tls_cipher_suites);
  if (!tls) return tls.error();
  std::unique_ptr<Webhooks> w(new Webhooks());
  w->certs_ = std::make_shared<webhook::CertificateHolder>();
  const k8s::ObjectReference secret{"v1", "Secret", settings.namespace_, settings.flags.secret,
                                    "",   ""};
  auto report = [&events, &logger, secret](const std::string& message) {
    logger.error("webhook", "cert_rotation_failed",
                 "webhook certificates not updated; the current ones stay in use: " + message);
    events.record(secret, k8s::EventType::Warning, "CertRotationFailed", message);
  };
  w->rotator_ = std::make_unique<webhook::Rotator>(api, *w->certs_, w->metrics_, logger,
                                                   rotatorOptions(settings), report);
  webhook::AdmitOptions admit{settings.namespace_, settings.backend};
  auto server = webhook::WebhookServer::start(
      serverOptions(settings, *tls), w->certs_, webhook::servedPaths(),
      webhook::makeHandler(webhook::apiLister(api, settings.namespace_), admit, w->metrics_,
                           logger));
  if (!server) return server.error();
  w->server_ = std::move(*server);
  // Listening before the first pass publishes the CA bundle: the API server's first call after
  // the bundle appears finds the server up.
  w->rotator_->check(std::chrono::system_clock::now());
  w->rotation_ = std::jthread([r = w->rotator_.get()](const std::stop_token& st) { r->run(st); });
  logger.info("webhook", "listening", "webhook server started",
              {log::num("port", w->server_->port()),
               {"rotation", settings.flags.disable_cert_rotation ? "disabled" : "enabled"}});
  return w;
}

Webhooks::~Webhooks() {
  stop();
}

void Webhooks::stop() {
  if (rotation_.joinable()) {
    rotation_.request_stop();
    rotation_.join();
  }
  if (server_) server_->stop();
}

Result<std::unique_ptr<Webhooks>> startWebhooks(const Flags& flags,
                                                k8s::ApiClient& api,
                                                k8s::EventSink& events,
                                                log::Logger& logger) {
  if (flags.webhook.mode == WebhookMode::Disabled) return std::unique_ptr<Webhooks>();
  return Webhooks::start(
      {flags.webhook, flags.namespace_, flags.backend, !flags.ports_file.empty()}, api, events,
      logger);
}

}  // namespace ingot::controller
