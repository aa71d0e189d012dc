// SPDX-License-Identifier: Apache-2.0
#include "controller/webhook/rotator.h"

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>

#include "api/codec.h"
#include "api/secret.h"
#include "common/json/json.h"
#include "kube/resources.h"

namespace ingot::controller::webhook {
namespace {

const k8s::ResourceRef kWebhookConfigurations{"admissionregistration.k8s.io", "v1",
                                              "validatingwebhookconfigurations", false};
const k8s::ResourceRef kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};

constexpr const char* kCaName = "cert";           // cert-controller's CA name in MetalLB
constexpr const char* kOrganization = "metallb";  // and its organization
constexpr std::chrono::hours kBackdate{1};        // tolerate clocks a little behind ours

/// Stored is what the Secret holds: the two pairs and the facts the decision reads.
struct Stored {
  KeyPair ca;
  KeyPair serving;
  CertState state;
};

Result<std::string> value(const api::Secret& s, const char* key) {
  return api::secretValue(s, key);
}

/// readStored reads the Secret's four keys and inspects them.
Stored readStored(const api::Secret& secret) {
  Stored out;
  auto ca_cert = value(secret, kCaCertKey);
  auto ca_key = value(secret, kCaKeyKey);
  auto cert = value(secret, kCertKey);
  auto key = value(secret, kKeyKey);
  for (const auto* r : {&ca_cert, &ca_key, &cert, &key}) {
    if (!*r) {
      out.state.problem = r->error().message;
      return out;
    }
  }
  out.ca = {*ca_cert, *ca_key};
  out.serving = {*cert, *key};
  auto ca = inspectCert(*ca_cert);
  auto serving = inspectCert(*cert);
  if (!ca || !serving) {
    out.state.problem =
        !ca ? "ca.crt: " + ca.error().message : "tls.crt: " + serving.error().message;
    return out;
  }
  out.state.usable = true;
  out.state.ca = *ca;
  out.state.serving = *serving;
  auto verified = verifyServing(out.serving, out.ca.cert);
  out.state.verified = verified.has_value();
  if (!verified) out.state.problem = verified.error().message;
  return out;
}

Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{ErrorCode::NotFound, path + ": cannot open"};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

Rotator::Rotator(k8s::ApiClient& api,
                 CertificateHolder& certs,
                 WebhookMetrics& metrics,
                 log::Logger& logger,
                 RotatorOptions options,
                 ReportFailure report)
    : api_(api),
      certs_(certs),
      metrics_(metrics),
      logger_(logger),
      options_(std::move(options)),
      report_(std::move(report)) {}

Result<void> Rotator::serve(const KeyPair& serving) {
  if (serving.cert == certs_.pem()) return {};
  if (auto ok = certs_.set(serving); !ok) return ok;
  if (auto facts = inspectCert(serving.cert)) {
    metrics_.setCertificateExpiry(
        std::chrono::duration_cast<std::chrono::seconds>(facts->not_after.time_since_epoch())
            .count());
  }
  logger_.info("webhook", "certificate_loaded", "serving a new webhook certificate");
  return {};
}

Result<void> Rotator::loadFromDirectory() {
  auto cert = readFile(options_.cert_dir + "/tls.crt");
  if (!cert) return cert.error();
  auto key = readFile(options_.cert_dir + "/tls.key");
  if (!key) return key.error();
  auto ok = serve({*cert, *key});
  if (!ok) return Error{ok.error().code, options_.cert_dir + ": " + ok.error().message};
  return {};
}

Result<KeyPair> Rotator::ensureSecret(SystemTime now, std::string& ca_pem) {
  const std::string where = "Secret " + options_.namespace_ + "/" + options_.secret;
  auto text = api_.get(k8s::resources::kSecrets, options_.namespace_, options_.secret);
  if (!text && text.error().code != ErrorCode::NotFound) {
    return Error{text.error().code, "read " + where + ": " + text.error().message};
  }
  api::Secret secret;
  if (text) {
    auto decoded = api::decodeJson<api::Secret>(*text);
    if (!decoded) return Error{decoded.error().code, where + ": " + decoded.error().message};
    secret = std::move(*decoded);
  }
  Stored stored = readStored(secret);
  if (!text) stored.state.problem = "the Secret does not exist";
  const auto names = webhookDnsNames(options_.service, options_.namespace_);
  const RotationDecision d = decideRotation(stored.state, now, names, options_.lookahead);
  if (d.action == RotationAction::Keep) {
    ca_pem = stored.ca.cert;
    return stored.serving;
  }
  logger_.info("webhook", "rotate", d.reason, {{"secret", where}});
  if (d.action == RotationAction::NewAll) {
    auto ca = generateCa({kCaName, kOrganization, {}, now - kBackdate, now + options_.ca_validity});
    if (!ca) return ca.error();
    stored.ca = std::move(*ca);
  }
  const std::string dns = options_.service + "." + options_.namespace_ + ".svc";
  auto serving = generateServing(
      {dns, kOrganization, names, now - kBackdate, now + options_.serving_validity}, stored.ca);
  if (!serving) return serving.error();
  secret.metadata.name = options_.secret;
  secret.metadata.namespace_ = options_.namespace_;
  secret.data = certSecretData(stored.ca, *serving);
  secret.string_data.clear();
  auto body = api::encodeJson(secret);
  auto written =
      text ? api_.update(k8s::resources::kSecrets, options_.namespace_, options_.secret, body)
           : api_.create(k8s::resources::kSecrets, options_.namespace_, body);
  if (!written) {
    return Error{written.error().code, "write " + where + ": " + written.error().message};
  }
  metrics_.countRotation(true);
  ca_pem = stored.ca.cert;
  return *serving;
}

Result<void> Rotator::patchBundles(const std::string& ca_pem) {
  const std::string bundle = api::encodeBase64(ca_pem);
  struct Target {
    const k8s::ResourceRef& ref;
    const std::string& name;
    bool json_patch;
  };
  for (const Target& t : {Target{kWebhookConfigurations, options_.configuration, true},
                          Target{kCrds, options_.crd, false}}) {
    auto text = api_.get(t.ref, "", t.name);
    if (!text && text.error().code == ErrorCode::NotFound) {
      logger_.debug("webhook", "no_target", "nothing to put the CA bundle in", {{"name", t.name}});
      continue;
    }
    if (!text) return Error{text.error().code, "read " + t.name + ": " + text.error().message};
    auto object = json::parse(*text);
    if (!object) return Error{ErrorCode::Internal, t.name + ": " + object.error().message};
    auto patch = t.json_patch
                     ? webhookConfigurationPatch(*object, bundle)
                     : crdConversionPatch(*object, bundle, {options_.service, options_.namespace_});
    if (!patch) continue;
    auto done = api_.patch(t.ref, "", t.name,
                           t.json_patch ? k8s::PatchType::Json : k8s::PatchType::Merge, *patch);
    if (!done) return Error{done.error().code, "patch " + t.name + ": " + done.error().message};
    logger_.info("webhook", "ca_bundle", "CA bundle updated", {{"name", t.name}});
  }
  return {};
}

Result<void> Rotator::pass(SystemTime now) {
  if (!options_.rotate) return loadFromDirectory();
  std::string ca_pem;
  auto serving = ensureSecret(now, ca_pem);
  if (!serving) return serving.error();
  if (auto ok = serve(*serving); !ok) return ok;
  return patchBundles(ca_pem);
}

void Rotator::check(SystemTime now) {
  if (auto ok = pass(now); !ok) {
    if (options_.rotate) metrics_.countRotation(false);
    report_(ok.error().message);
  }
}

void Rotator::run(const std::stop_token& stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  while (!stop.stop_requested()) {
    {
      std::unique_lock lock(mu);
      if (cv.wait_for(lock, stop, options_.interval, [] { return false; })) break;
    }
    if (stop.stop_requested()) break;
    check(std::chrono::system_clock::now());
  }
}

}  // namespace ingot::controller::webhook
