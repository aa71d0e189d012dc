// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook/rotation.h"

#include <algorithm>

#include "api/secret.h"
#include "common/json/json.h"
#include "controller/webhook/json.h"
#include "kube/events.h"

namespace ingot::controller::webhook {
namespace {

bool expiresWithin(const CertFacts& facts, SystemTime now, std::chrono::seconds lookahead) {
  return facts.not_after - lookahead <= now;
}

std::string at(SystemTime t) {
  return k8s::formatTimestamp(t);
}

/// missingName returns the first of names the certificate lacks, or "".
std::string missingName(const CertFacts& facts, const std::vector<std::string>& names) {
  for (const auto& n : names) {
    if (std::find(facts.dns_names.begin(), facts.dns_names.end(), n) == facts.dns_names.end()) {
      return n;
    }
  }
  return {};
}

json::Value op(std::string_view verb, std::string path, json::Value value) {
  json::Value o = json::Value::object();
  o.set("op", json::Value::string(std::string(verb)));
  o.set("path", json::Value::string(std::move(path)));
  o.set("value", std::move(value));
  return o;
}

}  // namespace

RotationDecision decideRotation(const CertState& state,
                                SystemTime now,
                                const std::vector<std::string>& dns_names,
                                std::chrono::seconds lookahead) {
  if (!state.usable) {
    return {RotationAction::NewAll, "the Secret holds no usable certificates: " + state.problem};
  }
  if (state.ca.not_before > now || expiresWithin(state.ca, now, lookahead)) {
    return {RotationAction::NewAll, "the CA is valid from " + at(state.ca.not_before) + " to " +
                                        at(state.ca.not_after) + ", not long enough after " +
                                        at(now)};
  }
  if (!state.verified) {
    return {RotationAction::NewServing,
            "the serving certificate does not belong to the CA: " + state.problem};
  }
  if (const std::string name = missingName(state.serving, dns_names); !name.empty()) {
    return {RotationAction::NewServing, "the serving certificate lacks the DNS name " + name};
  }
  if (state.serving.not_before > now || expiresWithin(state.serving, now, lookahead)) {
    return {RotationAction::NewServing,
            "the serving certificate is valid from " + at(state.serving.not_before) + " to " +
                at(state.serving.not_after) + ", not long enough after " + at(now)};
  }
  return {RotationAction::Keep, "the certificates are valid until " + at(state.serving.not_after)};
}

std::vector<std::string> webhookDnsNames(const std::string& service, const std::string& ns) {
  return {service, service + "." + ns, service + "." + ns + ".svc",
          service + "." + ns + ".svc.cluster.local"};
}

std::optional<std::string> webhookConfigurationPatch(const json::Value& configuration,
                                                     std::string_view ca_bundle) {
  json::Value ops = json::Value::array();
  ops.push(json::Value::object());  // the resourceVersion test, filled in below
  const json::Value* hooks = member(&configuration, "webhooks");
  for (size_t i = 0; hooks != nullptr && hooks->isArray() && i < hooks->size(); ++i) {
    const json::Value* client = member(&hooks->items()[i], "clientConfig");
    if (text(member(client, "caBundle")) == ca_bundle) {
      continue;
    }
    ops.push(op("add", "/webhooks/" + std::to_string(i) + "/clientConfig/caBundle",
                json::Value::string(std::string(ca_bundle))));
  }
  if (ops.size() == 1) {
    return std::nullopt;
  }
  ops.items()[0] =
      op("test", "/metadata/resourceVersion",
         json::Value::string(text(member(member(&configuration, "metadata"), "resourceVersion"))));
  return json::write(ops);
}

std::optional<std::string> crdConversionPatch(const json::Value& crd,
                                              std::string_view ca_bundle,
                                              const ServiceRef& service) {
  const json::Value* conversion = member(member(&crd, "spec"), "conversion");
  if (text(member(conversion, "strategy")) != "Webhook") {
    return std::nullopt;
  }
  const json::Value* client = member(member(conversion, "webhook"), "clientConfig");
  const json::Value* current = member(client, "service");
  if (text(member(client, "caBundle")) == ca_bundle &&
      text(member(current, "name")) == service.name &&
      text(member(current, "namespace")) == service.namespace_) {
    return std::nullopt;
  }
  json::Value target = json::Value::object();
  target.set("name", json::Value::string(service.name));
  target.set("namespace", json::Value::string(service.namespace_));
  json::Value bundle = json::Value::object();
  bundle.set("caBundle", json::Value::string(std::string(ca_bundle)));
  bundle.set("service", std::move(target));
  json::Value webhook = json::Value::object();
  webhook.set("clientConfig", std::move(bundle));
  json::Value conv = json::Value::object();
  conv.set("webhook", std::move(webhook));
  json::Value spec = json::Value::object();
  spec.set("conversion", std::move(conv));
  json::Value patch = json::Value::object();
  patch.set("spec", std::move(spec));
  return json::write(patch);
}

api::StringMap certSecretData(const KeyPair& ca, const KeyPair& serving) {
  return {{kCaCertKey, api::encodeBase64(ca.cert)},
          {kCaKeyKey, api::encodeBase64(ca.key)},
          {kCertKey, api::encodeBase64(serving.cert)},
          {kKeyKey, api::encodeBase64(serving.key)}};
}

}  // namespace ingot::controller::webhook
