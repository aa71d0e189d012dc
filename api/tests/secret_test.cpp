// SPDX-License-Identifier: Apache-2.0
#include "api/secret.h"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(secret)

BOOST_AUTO_TEST_CASE(base64_decodes_like_go_std_encoding) {
  struct Case {
    std::string desc;
    std::string in;
    bool ok;
    std::string out_or_error;
  };
  const std::vector<Case> cases = {
      {"empty", "", true, ""},
      {"one byte", "YQ==", true, "a"},
      {"two bytes", "YWI=", true, "ab"},
      {"three bytes", "YWJj", true, "abc"},
      {"password", "czNjcjN0", true, "s3cr3t"},
      {"newlines skipped", "YW\nJj\r\n", true, "abc"},
      {"binary", "AP8=", true, std::string("\0\xff", 2)},
      {"missing padding", "YQ", false, "illegal base64 data at input byte 0"},
      {"bad character", "YW*j", false, "illegal base64 data at input byte 2"},
      {"data after padding", "YQ==YWJj", false, "illegal base64 data at input byte 4"},
      {"truncated quantum", "YWJjZ", false, "illegal base64 data at input byte 4"},
      {"one padding char for one byte", "YQ=", false, "illegal base64 data at input byte 3"},
      {"url alphabet", "_-8=", false, "illegal base64 data at input byte 0"},
      {"unused trailing bits ignored", "YR==", true, "a"},
      {"too much padding", "Y===", false, "illegal base64 data at input byte 1"},
      {"space", "YW Jj", false, "illegal base64 data"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto got = ingot::api::decodeBase64(c.in);
      BOOST_TEST(got.has_value() == c.ok);
      if (got.has_value() && c.ok) {
        BOOST_TEST(*got == c.out_or_error);
      } else if (!got.has_value()) {
        BOOST_TEST(got.error().message.find(c.out_or_error) != std::string::npos,
                   got.error().message);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(base64_round_trips_every_length) {
  std::string bytes;
  for (int i = 0; i < 70; ++i) {
    const auto back = ingot::api::decodeBase64(ingot::api::encodeBase64(bytes));
    BOOST_REQUIRE(back.has_value());
    BOOST_TEST(*back == bytes);
    bytes.push_back(static_cast<char>(i * 37));
  }
  BOOST_TEST(ingot::api::encodeBase64("s3cr3t") == "czNjcjN0");
}

BOOST_AUTO_TEST_CASE(secret_value_prefers_string_data_and_names_the_secret) {
  ingot::api::Secret s;
  s.metadata.name = "bgp-auth";
  s.metadata.namespace_ = "metallb-system";
  s.type = "kubernetes.io/basic-auth";
  s.data = {{"password", "czNjcjN0"}, {"user", "!!"}, {"both", "YQ=="}};
  s.string_data = {{"both", "plain"}};
  BOOST_TEST(*ingot::api::secretValue(s, "password") == "s3cr3t");
  BOOST_TEST(*ingot::api::secretValue(s, "both") == "plain");
  const auto missing = ingot::api::secretValue(s, "nope");
  BOOST_REQUIRE(!missing.has_value());
  BOOST_TEST((missing.error().code == ingot::ErrorCode::NotFound));
  BOOST_TEST(missing.error().message == "key \"nope\" not found in secret metallb-system/bgp-auth");
  const auto bad = ingot::api::secretValue(s, "user");
  BOOST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().message.find("secret metallb-system/bgp-auth data[user]") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
