// SPDX-License-Identifier: Apache-2.0
// The certificate rotator's decisions: when to renew what, and which CA bundle patches to send.
#include "controller/webhook/rotation.h"

#include <boost/test/unit_test.hpp>

#include "common/json/json.h"

namespace ingot::controller::webhook {
namespace {

using std::chrono::hours;

const SystemTime kRotationNow = std::chrono::system_clock::from_time_t(1'800'000'000);
const std::vector<std::string> kNames = {"svc.ns.svc"};
const std::chrono::seconds kLookahead = hours(24 * 90);

CertState good() {
  CertState s;
  s.usable = true;
  s.verified = true;
  s.ca = {kRotationNow - hours(24), kRotationNow + hours(24 * 3650), {}};
  s.serving = {kRotationNow - hours(24), kRotationNow + hours(24 * 365), {"svc", "svc.ns.svc"}};
  return s;
}

BOOST_AUTO_TEST_CASE(rotation_decisions) {
  struct Case {
    std::string desc;
    CertState state;
    SystemTime now;
    RotationAction action;
    std::string reason;
  };
  CertState missing;
  missing.problem = "ns/cert: key ca.crt not found";
  CertState foreign = good();
  foreign.verified = false;
  foreign.problem = "the certificate is not signed by the CA";
  CertState renamed = good();
  renamed.serving.dns_names = {"old.ns.svc"};
  const std::vector<Case> cases = {
      {"valid", good(), kRotationNow, RotationAction::Keep, "valid until"},
      {"empty Secret", missing, kRotationNow, RotationAction::NewAll, "key ca.crt not found"},
      {"serving certificate inside the lookahead", good(), kRotationNow + hours(24 * 300),
       RotationAction::NewServing, "the serving certificate is valid from"},
      {"just outside the lookahead", good(), kRotationNow + hours(24 * 274), RotationAction::Keep,
       ""},
      {"expired serving certificate", good(), kRotationNow + hours(24 * 366),
       RotationAction::NewServing, ""},
      {"CA inside the lookahead", good(), kRotationNow + hours(24 * 3600), RotationAction::NewAll,
       "the CA is valid from"},
      {"CA not valid yet", good(), kRotationNow - hours(48), RotationAction::NewAll, "the CA"},
      {"serving certificate of another CA", foreign, kRotationNow, RotationAction::NewServing,
       "does not belong to the CA"},
      {"Service renamed", renamed, kRotationNow, RotationAction::NewServing,
       "lacks the DNS name svc.ns.svc"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const RotationDecision d = decideRotation(c.state, c.now, kNames, kLookahead);
      BOOST_TEST((d.action == c.action), d.reason);
      BOOST_TEST(d.reason.find(c.reason) != std::string::npos, d.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(webhook_configuration_patch_sets_only_missing_bundles) {
  struct Case {
    std::string desc;
    std::string configuration;
    std::optional<std::string> patch;
  };
  const std::vector<Case> cases = {
      {"two webhooks, one stale",
       R"({"metadata":{"resourceVersion":"5"},"webhooks":[{"clientConfig":{"caBundle":"Q0E="}},)"
       R"({"clientConfig":{"caBundle":"old"}}]})",
       R"([{"op":"test","path":"/metadata/resourceVersion","value":"5"},)"
       R"({"op":"add","path":"/webhooks/1/clientConfig/caBundle","value":"Q0E="}])"},
      {"no bundle yet", R"({"metadata":{"resourceVersion":"1"},"webhooks":[{"clientConfig":{}}]})",
       R"([{"op":"test","path":"/metadata/resourceVersion","value":"1"},)"
       R"({"op":"add","path":"/webhooks/0/clientConfig/caBundle","value":"Q0E="}])"},
      {"all current", R"({"webhooks":[{"clientConfig":{"caBundle":"Q0E="}}]})", std::nullopt},
      {"no webhooks", R"({"metadata":{}})", std::nullopt},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(
          webhookConfigurationPatch(*json::parse(c.configuration), "Q0E=").value_or("none") ==
          c.patch.value_or("none"));
    }
  }
}

BOOST_AUTO_TEST_CASE(crd_patch_only_for_webhook_conversion) {
  struct Case {
    std::string desc;
    std::string crd;
    std::optional<std::string> patch;
  };
  // The controller runs in namespace lb-system; the CRD file ships pointing at metallb-system.
  const std::string merge =
      R"({"spec":{"conversion":{"webhook":{"clientConfig":{"caBundle":"Q0E=",)"
      R"("service":{"name":"metallb-webhook-service","namespace":"lb-system"}}}}}})";
  const std::string ours =
      R"("service":{"name":"metallb-webhook-service","namespace":"lb-system","path":"/convert"})";
  const std::vector<Case> cases = {
      {"webhook without bundle",
       R"({"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{}}}}})", merge},
      {"stale bundle",
       R"({"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":)"
       R"({"caBundle":"x",)" +
           ours + "}}}}}",
       merge},
      {"current bundle, Service in the CRD file's namespace",
       R"({"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":)"
       R"({"caBundle":"Q0E=","service":{"name":"metallb-webhook-service",)"
       R"("namespace":"metallb-system","path":"/convert"}}}}}})",
       merge},
      {"current bundle and Service",
       R"({"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":)"
       R"({"caBundle":"Q0E=",)" +
           ours + "}}}}}",
       std::nullopt},
      {"no conversion webhook", R"({"spec":{"conversion":{"strategy":"None"}}})", std::nullopt},
  };
  const ServiceRef service{"metallb-webhook-service", "lb-system"};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(crdConversionPatch(*json::parse(c.crd), "Q0E=", service).value_or("none") ==
                 c.patch.value_or("none"));
    }
  }
}

BOOST_AUTO_TEST_CASE(secret_data_and_dns_names) {
  const auto data = certSecretData({"A", "B"}, {"C", "D"});
  BOOST_TEST(data.at("ca.crt") == "QQ==");
  BOOST_TEST(data.at("ca.key") == "Qg==");
  BOOST_TEST(data.at("tls.crt") == "Qw==");
  BOOST_TEST(data.at("tls.key") == "RA==");
  const std::vector<std::string> names = {"s", "s.n", "s.n.svc", "s.n.svc.cluster.local"};
  BOOST_TEST(webhookDnsNames("s", "n") == names, boost::test_tools::per_element());
}

}  // namespace
}  // namespace ingot::controller::webhook
