// SPDX-License-Identifier: Apache-2.0
// The certificate rotator against kube's FakeApiClient: a missing Secret is filled and the CA
// bundle published (and the BGPPeer conversion webhook pointed at the controller's namespace);
// a pass that cannot write keeps the served certificate and is reported.
#include "controller/webhook/rotator.h"

#include <boost/test/unit_test.hpp>

#include "api/codec.h"
#include "api/secret.h"
#include "kube/tests/fake_api_client.h"

namespace ingot::controller::webhook {
namespace {

using k8s::testing::FakeApiClient;
using std::chrono::hours;

const SystemTime kRotatorNow = std::chrono::system_clock::from_time_t(1'800'000'000);
const std::string kConfiguration =
    R"({"metadata":{"name":"metallb-webhook-configuration","resourceVersion":"3"},)"
    R"("webhooks":[{"clientConfig":{}}]})";
const std::string kCrd = R"({"spec":{"conversion":{"strategy":"Webhook","webhook":{}}}})";

struct Fixture {
  FakeApiClient api;
  CertificateHolder certs;
  WebhookMetrics metrics;
  log::Logger logger{log::Level::None};
  std::vector<std::string> reported;
  Rotator rotator{api, certs, metrics, logger, RotatorOptions{}, [this](const std::string& m) {
                    reported.push_back(m);
                  }};
};

BOOST_AUTO_TEST_CASE(a_missing_secret_is_filled_and_the_bundle_published) {
  Fixture f;
  f.api.gets = {Error{ErrorCode::NotFound, "secrets not found"}, kConfiguration, kCrd};
  f.rotator.check(kRotatorNow);
  BOOST_TEST(f.reported.empty());
  BOOST_TEST(f.certs.loaded());
  const auto writes = f.api.writes();
  BOOST_REQUIRE_EQUAL(writes.size(), 3u);
  BOOST_TEST(writes[0].verb == "create");
  auto secret = api::decodeJson<api::Secret>(writes[0].body);
  BOOST_REQUIRE(secret.has_value());
  BOOST_TEST(secret->metadata.name == "metallb-webhook-cert");
  const std::string ca = *api::secretValue(*secret, "ca.crt");
  BOOST_TEST(f.certs.pem() == *api::secretValue(*secret, "tls.crt"));
  BOOST_TEST(writes[1].verb == "jsonpatch");
  BOOST_TEST(writes[1].body.find(api::encodeBase64(ca)) != std::string::npos);
  BOOST_TEST(writes[2].verb == "patch");
  BOOST_TEST(writes[2].body.find(api::encodeBase64(ca)) != std::string::npos);
  // The conversion webhook is pointed at the Service in the controller's namespace.
  BOOST_TEST(writes[2].body.find(R"("service":{"name":"metallb-webhook-service",)"
                                 R"("namespace":"metallb-system"})") != std::string::npos,
             writes[2].body);
  BOOST_TEST(f.metrics.render().find("ingot_webhook_cert_rotations_total 1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_failed_rotation_keeps_the_served_certificate_and_is_reported) {
  Fixture f;
  f.api.gets = {Error{ErrorCode::NotFound, "secrets not found"}, kConfiguration, kCrd};
  f.rotator.check(kRotatorNow);
  const std::string stored = f.api.writes().at(0).body;
  const std::string served = f.certs.pem();
  // 300 days on, the serving certificate is inside the renewal window, but the write fails.
  f.api.gets = {stored};
  f.api.write_results = {Error{ErrorCode::Conflict, "the object has been modified"}};
  f.rotator.check(kRotatorNow + hours(24 * 300));
  BOOST_TEST(f.certs.pem() == served);
  BOOST_REQUIRE_EQUAL(f.reported.size(), 1u);
  BOOST_TEST(f.reported[0].find("write Secret metallb-system/metallb-webhook-cert: the object "
                                "has been modified") != std::string::npos,
             f.reported[0]);
  BOOST_TEST(f.metrics.render().find("ingot_webhook_cert_rotation_errors_total 1") !=
             std::string::npos);
  // The next pass succeeds and serves the renewed certificate.
  f.api.gets = {stored, kConfiguration, kCrd};
  f.rotator.check(kRotatorNow + hours(24 * 300));
  BOOST_TEST(f.reported.size() == 1u);
  BOOST_TEST(f.certs.pem() != served);
}

BOOST_AUTO_TEST_CASE(a_valid_secret_is_served_without_writes) {
  Fixture f;
  f.api.gets = {Error{ErrorCode::NotFound, "secrets not found"}, kConfiguration, kCrd};
  f.rotator.check(kRotatorNow);
  const std::string stored = f.api.writes().at(0).body;
  const size_t before = f.api.writes().size();
  Fixture g;
  g.api.gets = {stored, Error{ErrorCode::NotFound, "no configuration"},
                Error{ErrorCode::NotFound, "no crd"}};
  g.rotator.check(kRotatorNow + hours(24));
  BOOST_TEST(g.reported.empty());
  BOOST_TEST(g.api.writes().empty());
  BOOST_TEST(g.certs.pem() == f.certs.pem());
  BOOST_TEST(f.api.writes().size() == before);
}

}  // namespace
}  // namespace ingot::controller::webhook
