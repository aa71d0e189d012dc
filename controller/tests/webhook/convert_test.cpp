// SPDX-License-Identifier: Apache-2.0
// The BGPPeer conversion webhook: both ConversionReview versions, both directions, metadata and
// status kept as sent, failures named, and bodies that are not reviews refused.
#include "controller/webhook/convert.h"

#include <boost/test/unit_test.hpp>

#include "common/json/json.h"

namespace ingot::controller::webhook {
namespace {

std::string conversion(const std::string& review_version,
                       const std::string& desired,
                       const std::string& objects) {
  return R"({"apiVersion":"apiextensions.k8s.io/)" + review_version +
         R"(","kind":"ConversionReview","request":{"uid":"c-1","desiredAPIVersion":")" + desired +
         R"(","objects":[)" + objects + "]}}";
}

const std::string kV1beta1Peer =
    R"({"apiVersion":"metallb.io/v1beta1","kind":"BGPPeer","metadata":{"name":"tor",)"
    R"("namespace":"metallb-system","uid":"u","resourceVersion":"7","managedFields":[{}]},)"
    R"("spec":{"myASN":64500,"peerASN":64501,"peerAddress":"10.0.0.1","holdTime":"90s"}})";

const std::string kV1beta2Peer =
    R"({"apiVersion":"metallb.io/v1beta2","kind":"BGPPeer","metadata":{"name":"gr",)"
    R"("namespace":"metallb-system"},"spec":{"myASN":1,"peerASN":2,"peerAddress":"10.0.0.2",)"
    R"("enableGracefulRestart":true,"dynamicASN":""},"status":{}})";

json::Value responseOf(const Result<std::string>& out) {
  BOOST_REQUIRE(out.has_value());
  auto root = json::parse(*out);
  BOOST_REQUIRE(root.has_value());
  return *root->find("response");
}

BOOST_AUTO_TEST_CASE(v1beta1_peers_convert_up_keeping_metadata) {
  for (const std::string version : {"v1", "v1beta1"}) {
    BOOST_TEST_CONTEXT(version) {
      auto out = convertReview(conversion(version, "metallb.io/v1beta2", kV1beta1Peer));
      BOOST_REQUIRE(out.has_value());
      BOOST_TEST(out->find("\"apiVersion\":\"apiextensions.k8s.io/" + version + "\"") !=
                 std::string::npos);
      json::Value response = responseOf(out);
      BOOST_TEST(response.find("uid")->text() == "c-1");
      BOOST_TEST(response.find("result")->find("status")->text() == "Success");
      const json::Value& peer = response.find("convertedObjects")->items().at(0);
      BOOST_TEST(peer.find("apiVersion")->text() == "metallb.io/v1beta2");
      BOOST_TEST(json::write(*peer.find("metadata")) ==
                 R"({"name":"tor","namespace":"metallb-system","uid":"u","resourceVersion":"7",)"
                 R"("managedFields":[{}]})");
      BOOST_TEST(peer.find("spec")->find("peerAddress")->text() == "10.0.0.1");
      BOOST_TEST(peer.find("spec")->find("holdTime")->text() == "90s");
    }
  }
}

BOOST_AUTO_TEST_CASE(v1beta2_peers_convert_down_dropping_what_v1beta1_lacks) {
  json::Value response =
      responseOf(convertReview(conversion("v1", "metallb.io/v1beta1", kV1beta2Peer)));
  const json::Value& peer = response.find("convertedObjects")->items().at(0);
  BOOST_TEST(peer.find("apiVersion")->text() == "metallb.io/v1beta1");
  BOOST_TEST(peer.find("spec")->find("enableGracefulRestart") == nullptr);
  BOOST_TEST(peer.find("spec")->find("peerASN")->text() == "2");
  BOOST_TEST(peer.find("status") != nullptr);  // kept as sent
}

BOOST_AUTO_TEST_CASE(an_object_already_at_the_desired_version_is_returned_as_sent) {
  json::Value response =
      responseOf(convertReview(conversion("v1", "metallb.io/v1beta2", kV1beta2Peer)));
  BOOST_TEST((response.find("convertedObjects")->items().at(0) == *json::parse(kV1beta2Peer)));
}

BOOST_AUTO_TEST_CASE(unconvertible_objects_fail_the_review_naming_them) {
  struct Case {
    std::string desc;
    std::string desired;
    std::string object;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"unknown version", "metallb.io/v2", kV1beta1Peer,
       "BGPPeer tor: cannot convert metallb.io/v1beta1 to metallb.io/v2"},
      {"another kind", "metallb.io/v1beta2",
       R"({"apiVersion":"metallb.io/v1beta1","kind":"IPAddressPool","metadata":{"name":"p"}})",
       "object p is a IPAddressPool: only BGPPeer converts here"},
      {"bad spec", "metallb.io/v1beta2",
       R"({"apiVersion":"metallb.io/v1beta1","kind":"BGPPeer","metadata":{"name":"b"},)"
       R"("spec":{"myASN":"many"}})",
       "BGPPeer b: spec.myASN"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      json::Value response = responseOf(convertReview(conversion("v1", c.desired, c.object)));
      BOOST_TEST(response.find("result")->find("status")->text() == "Failure");
      const std::string message = response.find("result")->find("message")->text();
      BOOST_TEST(message.find(c.message) == 0u, message);
      BOOST_TEST(response.find("convertedObjects") == nullptr);
    }
  }
}

BOOST_AUTO_TEST_CASE(bodies_that_are_not_conversion_reviews_are_refused) {
  for (const std::string& body :
       {std::string("{"), std::string(R"({"apiVersion":"v1","kind":"Status"})"),
        std::string(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"})")}) {
    BOOST_TEST_CONTEXT(body) {
      auto out = convertReview(body);
      BOOST_REQUIRE(!out.has_value());
      BOOST_TEST(!out.error().message.empty());
    }
  }
  auto status = json::parse(failureStatus("bad \"body\""));
  BOOST_REQUIRE(status.has_value());
  BOOST_TEST(status->find("message")->text() == "bad \"body\"");
  BOOST_TEST(status->find("code")->text() == "400");
}

}  // namespace
}  // namespace ingot::controller::webhook
