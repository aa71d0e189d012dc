// SPDX-License-Identifier: Apache-2.0
// The memberlist Secret against kube's FakeApiClient: created once with MetalLB's shape, left
// alone when present, a lost create race is not an error, and failures name the object.
#include "controller/ml_secret.h"

#include <boost/test/unit_test.hpp>

#include "api/codec.h"
#include "api/secret.h"
#include "kube/tests/fake_api_client.h"

namespace ingot::controller {
namespace {

using k8s::testing::FakeApiClient;

const std::string kDeploymentJson =
    R"({"metadata":{"name":"controller","namespace":"metallb-system","uid":"d-uid"}})";

Result<std::string> fixedKey(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>(0xf0 + i));
  return out;
}

BOOST_AUTO_TEST_CASE(secret_has_metallb_key_encoding_and_deployment_owner) {
  FakeApiClient api;
  api.gets = {Error{ErrorCode::NotFound, "secrets \"ml\" not found"}, kDeploymentJson};
  log::Logger logger(log::Level::None);
  auto created =
      ensureMemberlistSecret(api, "metallb-system", "ml", "controller", logger, fixedKey);
  BOOST_REQUIRE(created.has_value());
  BOOST_TEST(*created);
  BOOST_REQUIRE_EQUAL(api.writes().size(), 1u);
  auto secret = api::decodeJson<api::Secret>(api.writes()[0].body);
  BOOST_REQUIRE(secret.has_value());
  BOOST_TEST(secret->metadata.name == "ml");
  BOOST_TEST(secret->metadata.namespace_ == "metallb-system");
  // 16 bytes f0..ff as unpadded standard base64, stored as the value of key secretkey.
  auto text = api::decodeBase64(secret->data.at("secretkey"));
  BOOST_REQUIRE(text.has_value());
  BOOST_TEST(*text == "8PHy8/T19vf4+fr7/P3+/w");
  BOOST_REQUIRE_EQUAL(secret->metadata.owner_references.size(), 1u);
  const auto& owner = secret->metadata.owner_references[0];
  BOOST_TEST(owner.api_version == "apps/v1");
  BOOST_TEST(owner.kind == "Deployment");
  BOOST_TEST(owner.name == "controller");
  BOOST_TEST(owner.uid == "d-uid");
  BOOST_TEST(!owner.controller.has_value());
}

BOOST_AUTO_TEST_CASE(secret_outcomes_per_api_answer) {
  struct Case {
    std::string desc;
    std::deque<Result<std::string>> gets;
    std::deque<Result<std::string>> write_results;
    std::string deployment;
    std::optional<bool> created;  ///< nullopt: error
    std::string error;            ///< substring
    size_t writes;
  };
  const Error not_found{ErrorCode::NotFound, "not found"};
  const std::vector<Case> cases = {
      {"existing_secret_is_left_alone", {std::string("{}")}, {}, "controller", false, "", 0},
      {"lost_create_race_counts_as_existing",
       {not_found, kDeploymentJson},
       {Error{ErrorCode::AlreadyExists, "exists"}},
       "controller",
       false,
       "",
       1},
      {"unreadable_secret_names_it",
       {Error{ErrorCode::Unavailable, "down"}},
       {},
       "controller",
       std::nullopt,
       "read Secret metallb-system/ml: down",
       0},
      {"missing_deployment_names_it",
       {not_found, not_found},
       {},
       "controller",
       std::nullopt,
       "read Deployment metallb-system/controller",
       0},
      {"no_deployment_flag_names_both_flags",
       {not_found},
       {},
       "",
       std::nullopt,
       "--ml-secret-name needs --deployment",
       0},
      {"failed_create_names_the_secret",
       {not_found, kDeploymentJson},
       {Error{ErrorCode::Forbidden, "denied"}},
       "controller",
       std::nullopt,
       "create Secret metallb-system/ml: denied",
       1},
  };
  log::Logger logger(log::Level::None);
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      FakeApiClient api;
      api.gets = c.gets;
      api.write_results = c.write_results;
      auto r = ensureMemberlistSecret(api, "metallb-system", "ml", c.deployment, logger, fixedKey);
      BOOST_TEST(api.writes().size() == c.writes);
      if (c.created) {
        BOOST_REQUIRE(r.has_value());
        BOOST_TEST(*r == *c.created);
      } else {
        BOOST_REQUIRE(!r.has_value());
        BOOST_TEST(r.error().message.find(c.error) != std::string::npos, r.error().message);
      }
    }
  }
}

}  // namespace
}  // namespace ingot::controller
