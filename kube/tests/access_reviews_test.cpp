// SPDX-License-Identifier: Apache-2.0
// The review objects the metrics gate sends and how it reads the API server's answers.
#include "kube/access_reviews.h"

#include <boost/test/unit_test.hpp>

using namespace ingot;
using namespace ingot::k8s;

BOOST_AUTO_TEST_SUITE(access_reviews)

BOOST_AUTO_TEST_CASE(review_bodies_carry_the_token_and_the_non_resource_attributes) {
  BOOST_TEST(tokenReviewBody("t0k") ==
             R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview",)"
             R"("spec":{"token":"t0k"}})");
  daemon::UserInfo user{"system:serviceaccount:monitoring:prometheus",
                        "42",
                        {"system:authenticated"},
                        {{"k", {"v"}}}};
  BOOST_TEST(subjectAccessReviewBody(user, "get", "/metrics") ==
             R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",)"
             R"("spec":{"user":"system:serviceaccount:monitoring:prometheus","uid":"42",)"
             R"("groups":["system:authenticated"],"extra":{"k":["v"]},)"
             R"("nonResourceAttributes":{"path":"/metrics","verb":"get"}}})");
}

BOOST_AUTO_TEST_CASE(token_review_answers_are_read) {
  struct Case {
    std::string desc, answer;
    bool ok;
    std::string user;  ///< "" = not authenticated
  };
  const std::vector<Case> cases = {
      {"authenticated",
       R"({"status":{"authenticated":true,"user":{"username":"u","groups":["a","b"]}}})", true,
       "u"},
      {"not authenticated", R"({"status":{"user":{},"error":"invalid bearer token"}})", true, ""},
      {"authenticated false", R"({"status":{"authenticated":false}})", true, ""},
      {"no status", R"({"kind":"TokenReview"})", false, ""},
      {"authenticated without a user name", R"({"status":{"authenticated":true,"user":{}}})", false,
       ""},
      {"not JSON", "<html>", false, ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = parseTokenReview(c.answer);
      BOOST_TEST(r.has_value() == c.ok);
      if (r && !c.user.empty()) {
        BOOST_REQUIRE(r->has_value());
        BOOST_TEST((*r)->username == c.user);
        BOOST_TEST((*r)->groups == (std::vector<std::string>{"a", "b"}),
                   boost::test_tools::per_element());
      } else if (r) {
        BOOST_TEST(!r->has_value());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(subject_access_review_answers_are_read) {
  struct Case {
    std::string desc, answer;
    bool ok, allowed;
  };
  const std::vector<Case> cases = {
      {"allowed", R"({"status":{"allowed":true,"reason":"RBAC"}})", true, true},
      {"not allowed", R"({"status":{"allowed":false}})", true, false},
      {"explicitly denied wins", R"({"status":{"allowed":true,"denied":true}})", true, false},
      {"no status", R"({})", false, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = parseSubjectAccessReview(c.answer);
      BOOST_TEST(r.has_value() == c.ok);
      if (r) BOOST_TEST(*r == c.allowed);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
