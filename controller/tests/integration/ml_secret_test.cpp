// SPDX-License-Identifier: Apache-2.0
// --ml-secret-name / --deployment: the controller creates the memberlist Secret the agents mount,
// as MetalLB's does, once; a restart leaves it as it is; a missing Deployment stops it.
#include <boost/test/unit_test.hpp>

#include "api/codec.h"
#include "api/secret.h"
#include "common/json/scan.h"
#include "controller/tests/integration/fixture.h"

using namespace ingot;
using namespace ingot::controller::testing;

namespace {

constexpr const char* kDeployment =
    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"controller",)"
    R"("namespace":"metallb-system"},"spec":{"selector":{"matchLabels":{"app":"metallb"}},)"
    R"("template":{"metadata":{"labels":{"app":"metallb"}},"spec":{"containers":[]}}}})";

api::Secret readSecret(Cluster& cluster) {
  auto got = cluster.api->get(k8s::resources::kSecrets, "metallb-system", "metallb-memberlist");
  BOOST_REQUIRE_MESSAGE(got.has_value(), why(got));
  auto secret = api::decodeJson<api::Secret>(*got);
  BOOST_REQUIRE_MESSAGE(secret.has_value(), why(secret));
  return *secret;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(memberlist_secret)

BOOST_AUTO_TEST_CASE(controller_creates_the_secret_once_owned_by_its_deployment) {
  Cluster cluster;
  cluster.create(k8s::resources::kDeployments, "metallb-system", kDeployment);
  auto deployment = cluster.api->get(k8s::resources::kDeployments, "metallb-system", "controller");
  BOOST_REQUIRE(deployment.has_value());
  const auto uid_field = json::stringAt(*deployment, {"metadata", "uid"});
  BOOST_REQUIRE(uid_field.has_value() && !uid_field->empty());
  const std::string& uid = *uid_field;
  const std::vector<std::string> args = {"--ml-secret-name=metallb-memberlist",
                                         "--deployment=controller"};
  auto controller = cluster.startController(args);
  const api::Secret first = readSecret(cluster);
  BOOST_REQUIRE_EQUAL(first.metadata.owner_references.size(), 1u);
  const auto& owner = first.metadata.owner_references[0];
  BOOST_TEST(owner.api_version == "apps/v1");
  BOOST_TEST(owner.kind == "Deployment");
  BOOST_TEST(owner.name == "controller");
  BOOST_TEST(owner.uid == uid);
  // secretkey: 16 random bytes as unpadded base64, i.e. 22 characters of the base64 alphabet.
  auto text = api::decodeBase64(first.data.at("secretkey"));
  BOOST_REQUIRE(text.has_value());
  BOOST_TEST(text->size() == 22u);
  BOOST_TEST(
      text->find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") ==
      std::string::npos);
  auto raw = decodeBase64(*text, Base64Mode::Lenient);
  BOOST_REQUIRE(raw.has_value());
  BOOST_TEST(raw->size() == 16u);
  stopCleanly(*controller);

  // A restart finds the Secret and never rotates it.
  auto again = cluster.startController(args);
  const api::Secret second = readSecret(cluster);
  BOOST_TEST(second.data == first.data);
  BOOST_TEST(second.metadata.resource_version == first.metadata.resource_version);
  stopCleanly(*again);
}

BOOST_AUTO_TEST_CASE(missing_deployment_stops_the_controller_with_a_clear_error) {
  Cluster cluster;
  auto controller =
      ControllerProcess::start(cluster.server->kubeconfig(), cluster.server->dir(),
                               {"--ml-secret-name=metallb-memberlist", "--deployment=nowhere"});
  BOOST_REQUIRE(controller.has_value());
  const auto code = (*controller)->process().waitExit(Millis(15000));
  BOOST_REQUIRE_MESSAGE(code.has_value(), "still running:\n" + (*controller)->log());
  BOOST_TEST(*code == 1);
  BOOST_TEST(
      (*controller)->log().find("read Deployment metallb-system/nowhere") != std::string::npos,
      (*controller)->log());
  auto got = cluster.api->get(k8s::resources::kSecrets, "metallb-system", "metallb-memberlist");
  BOOST_TEST(!got.has_value());
}

BOOST_AUTO_TEST_SUITE_END()
