// SPDX-License-Identifier: Apache-2.0
// ingot-controller's webhooks wired together: the certificate rotator (first pass before
// serving, then a background thread), the HTTPS server with MetalLB's validation paths and
// /convert, and their metrics. main.cpp starts one Webhooks unless --webhook-mode=disabled.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "config/config.h"
#include "controller/flags.h"
#include "controller/webhook/rotator.h"
#include "controller/webhook/server.h"
#include "controller/webhook/service.h"
#include "kube/events.h"

namespace ingot::controller {

/// WebhookSettings are the flags the webhooks use.
struct WebhookSettings {
  WebhookFlags flags;
  std::string namespace_;
  config::Backend backend = config::Backend::FrrK8s;
  bool pick_port = false;  ///< --ports-file given: loopback and any free port unless --webhook-port
};

/// Webhooks owns the running webhook server and rotator.
class Webhooks {
 public:
  /// start runs the first certificate pass (a failure is reported, and retried in the
  /// background) and starts serving. Errors: bad TLS settings, the port cannot be bound.
  static Result<std::unique_ptr<Webhooks>> start(const WebhookSettings& settings,
                                                 k8s::ApiClient& api,
                                                 k8s::EventSink& events,
                                                 log::Logger& logger);
  ~Webhooks();

  /// ready reports whether a serving certificate is loaded.
  bool ready() const { return certs_->loaded(); }
  /// port returns the bound port.
  int port() const { return server_->port(); }
  /// renderMetrics returns the webhook metric families.
  std::string renderMetrics() const { return metrics_.render(); }
  /// stop stops the rotator and the server; idempotent.
  void stop();

 private:
  Webhooks() = default;
  webhook::WebhookMetrics metrics_;
  std::shared_ptr<webhook::CertificateHolder> certs_;
  std::unique_ptr<webhook::Rotator> rotator_;
  std::unique_ptr<webhook::WebhookServer> server_;
  std::jthread rotation_;
};

/// startWebhooks starts Webhooks for flags, or returns nullptr with --webhook-mode=disabled.
Result<std::unique_ptr<Webhooks>> startWebhooks(const Flags& flags,
                                                k8s::ApiClient& api,
                                                k8s::EventSink& events,
                                                log::Logger& logger);

}  // namespace ingot::controller
