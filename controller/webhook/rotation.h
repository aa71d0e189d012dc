// SPDX-License-Identifier: Apache-2.0
// The certificate rotator's decisions, as MetalLB's cert-rotator makes them: when the webhook
// Secret's CA and serving certificate must be (re)generated, and which patches put the CA bundle
// into the ValidatingWebhookConfiguration and the BGPPeer CRD's conversion webhook. Pure: facts
// and objects in, decisions and patch bodies out.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types.h"
#include "common/json/value.h"
#include "controller/webhook/certs.h"

namespace ingot::controller::webhook {

/// The webhook Secret's keys (controller-runtime's file names, cert-controller's Secret keys).
inline constexpr const char* kCaCertKey = "ca.crt";
inline constexpr const char* kCaKeyKey = "ca.key";
inline constexpr const char* kCertKey = "tls.crt";
inline constexpr const char* kKeyKey = "tls.key";

/// CertState is what the webhook Secret holds, as read by the rotator.
struct CertState {
  bool usable = false;  ///< all four keys present and parsed
  std::string problem;  ///< why not usable, or why the serving pair fails verification
  CertFacts ca;
  CertFacts serving;
  bool verified = false;  ///< the CA signed the serving certificate and the key matches it
};

/// RotationAction is what the rotator does with the Secret.
enum class RotationAction {
  Keep,        ///< serve what the Secret holds
  NewServing,  ///< keep the CA, issue a new serving certificate
  NewAll,      ///< new CA and serving certificate
};

/// RotationDecision is the action and the reason (logged and put in the Event).
struct RotationDecision {
  RotationAction action = RotationAction::Keep;
  std::string reason;
};

/// decideRotation returns what to do at now: everything is new when the Secret is unusable or
/// the CA expires within lookahead; the serving certificate alone when it expires within
/// lookahead, lacks one of dns_names, or is not the CA's.
RotationDecision decideRotation(const CertState& state,
                                SystemTime now,
                                const std::vector<std::string>& dns_names,
                                std::chrono::seconds lookahead);

/// webhookDnsNames returns the Service's DNS names the serving certificate must carry.
std::vector<std::string> webhookDnsNames(const std::string& service, const std::string& ns);

/// webhookConfigurationPatch returns the JSON patch setting caBundle (base64 of the CA PEM) in
/// every webhook of a ValidatingWebhookConfiguration that lacks it, guarded by the object's
/// resourceVersion; nullopt when all already have it.
std::optional<std::string> webhookConfigurationPatch(const json::Value& configuration,
                                                     std::string_view ca_bundle);

/// ServiceRef names the webhook Service: the conversion webhook must point at the one in the
/// controller's own namespace, wherever the CRD file said (it ships with metallb-system).
struct ServiceRef {
  std::string name;
  std::string namespace_;
};

/// crdConversionPatch returns the merge patch setting the conversion webhook's caBundle and
/// Service (name and namespace; the path is kept) of a CustomResourceDefinition with strategy
/// Webhook; nullopt when it already has both or the CRD converts without a webhook.
std::optional<std::string> crdConversionPatch(const json::Value& crd,
                                              std::string_view ca_bundle,
                                              const ServiceRef& service);

/// certSecretData returns the Secret data (base64 values) for the CA and serving pairs.
api::StringMap certSecretData(const KeyPair& ca, const KeyPair& serving);

}  // namespace ingot::controller::webhook
