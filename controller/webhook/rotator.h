// SPDX-License-Identifier: Apache-2.0
// The webhook certificate rotator: keeps the webhook Secret's CA and serving certificate valid
// (generating them when missing, renewing them before they expire), serves the current serving
// certificate, and keeps the CA bundle in the ValidatingWebhookConfiguration and the BGPPeer
// CRD's conversion webhook. With rotation disabled it serves tls.crt/tls.key from the cert
// directory instead (reloaded when they change) and patches nothing. A failed pass keeps the
// certificate in use and is reported through the report callback (log, Event, metric).
#pragma once

#include <chrono>
#include <functional>
#include <stop_token>
#include <string>

#include "common/util/log.h"
#include "controller/webhook/rotation.h"
#include "controller/webhook/server.h"
#include "controller/webhook/service.h"
#include "kube/api_client.h"

namespace ingot::controller::webhook {

/// RotatorOptions are the rotator's names and periods (MetalLB's defaults).
struct RotatorOptions {
  std::string namespace_ = "metallb-system";
  std::string secret = "metallb-webhook-cert";      ///< --webhook-secret
  std::string service = "metallb-webhook-service";  ///< --cert-service-name
  std::string configuration = "metallb-webhook-configuration";
  std::string crd = "bgppeers.metallb.io";
  bool rotate = true;  ///< false: --disable-cert-rotation
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";  ///< --cert-dir
  std::chrono::seconds interval{10};                               ///< between passes
  std::chrono::hours ca_validity{24 * 365 * 10};
  std::chrono::hours serving_validity{24 * 365};
  std::chrono::hours lookahead{24 * 90};  ///< renew this long before notAfter
};

/// ReportFailure receives each failed pass's message (main logs it and records an Event).
using ReportFailure = std::function<void(const std::string& message)>;

/// Rotator runs passes against the API; one thread calls pass() or run().
class Rotator {
 public:
  Rotator(k8s::ApiClient& api,
          CertificateHolder& certs,
          WebhookMetrics& metrics,
          log::Logger& logger,
          RotatorOptions options,
          ReportFailure report);

  /// pass brings Secret, served certificate and CA bundles in line once, at now.
  Result<void> pass(SystemTime now);
  /// check runs pass and reports a failure (metric, report callback).
  void check(SystemTime now);
  /// run calls check every interval until stop (the caller runs the first check).
  void run(const std::stop_token& stop);

 private:
  Result<KeyPair> ensureSecret(SystemTime now, std::string& ca_pem);
  Result<void> patchBundles(const std::string& ca_pem);
  Result<void> loadFromDirectory();
  Result<void> serve(const KeyPair& serving);

  k8s::ApiClient& api_;
  CertificateHolder& certs_;
  WebhookMetrics& metrics_;
  log::Logger& logger_;
  RotatorOptions options_;
  ReportFailure report_;
};

}  // namespace ingot::controller::webhook
