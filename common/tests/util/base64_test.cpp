// SPDX-License-Identifier: Apache-2.0
#include "common/util/base64.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

using ingot::Base64Mode;

namespace {

/// Base64Case is one input decoded in both modes; an expectation starting with "illegal" is an
/// error.
struct Base64Case {
  std::string desc;
  std::string in;
  std::string go;       ///< Go's base64.StdEncoding.DecodeString (checked against Go 1.19)
  std::string lenient;  ///< kubeconfig data
};

const std::vector<Base64Case>& base64Cases() {
  static const std::vector<Base64Case> kCases = {
      {"empty", "", "", ""},
      {"one byte", "YQ==", "a", "a"},
      {"two bytes", "YWI=", "ab", "ab"},
      {"three bytes", "YWJj", "abc", "abc"},
      {"binary", "AP8=", std::string("\0\xff", 2), std::string("\0\xff", 2)},
      {"plus and slash", "+/8=", "\xfb\xff", "\xfb\xff"},
      {"newlines skipped", "YW\nJj\r\n", "abc", "abc"},
      {"unused trailing bits ignored", "YR==", "a", "a"},
      {"missing padding", "YQ", "illegal base64 data at input byte 0", "a"},
      {"missing padding, two bytes", "YWI", "illegal base64 data at input byte 0", "ab"},
      {"short padding", "YQ=", "illegal base64 data at input byte 3", "a"},
      {"spaces and tabs", "YW J\tj", "illegal base64 data at input byte 2", "abc"},
      {"bad character", "YW*j", "illegal base64 data at input byte 2",
       "illegal base64 data at input byte 2"},
      {"bad character after whitespace", " \tYW*j", "illegal base64 data at input byte 0",
       "illegal base64 data at input byte 4"},
      {"data after padding", "YQ==YWJj", "illegal base64 data at input byte 4",
       "illegal base64 data at input byte 4"},
      {"truncated quantum", "YWJjZ", "illegal base64 data at input byte 4",
       "illegal base64 data at input byte 4"},
      {"too much padding", "Y===", "illegal base64 data at input byte 1",
       "illegal base64 data at input byte 3"},
      {"three padding characters", "YQ===", "illegal base64 data at input byte 4",
       "illegal base64 data at input byte 4"},
      {"URL alphabet", "_-8=", "illegal base64 data at input byte 0",
       "illegal base64 data at input byte 0"},
      {"non-ASCII byte", "YW\xc3\xa9", "illegal base64 data at input byte 2",
       "illegal base64 data at input byte 2"},
      {"control byte", std::string("YW\0j", 4), "illegal base64 data at input byte 2",
       "illegal base64 data at input byte 2"},
      {"DEL", "YW\x7fj", "illegal base64 data at input byte 2",
       "illegal base64 data at input byte 2"},
  };
  return kCases;
}

void check(const std::string& in, Base64Mode mode, const std::string& want) {
  const auto got = ingot::decodeBase64(in, mode);
  if (want.rfind("illegal", 0) == 0) {
    BOOST_REQUIRE(!got.has_value());
    BOOST_TEST(got.error().message == want);
  } else {
    BOOST_REQUIRE(got.has_value());
    BOOST_TEST(*got == want);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(base64)

BOOST_AUTO_TEST_CASE(decodes_like_go_std_encoding_or_tolerates_kubeconfig_padding) {
  for (const auto& c : base64Cases()) {
    BOOST_TEST_CONTEXT(c.desc << " (Go)") {
      check(c.in, Base64Mode::GoStd, c.go);
    }
    BOOST_TEST_CONTEXT(c.desc << " (lenient)") {
      check(c.in, Base64Mode::Lenient, c.lenient);
    }
  }
}

BOOST_AUTO_TEST_CASE(round_trips_every_length_in_both_modes) {
  std::string bytes;
  for (int i = 0; i < 70; ++i) {
    const std::string encoded = ingot::encodeBase64(bytes);
    for (const Base64Mode mode : {Base64Mode::GoStd, Base64Mode::Lenient}) {
      const auto back = ingot::decodeBase64(encoded, mode);
      BOOST_REQUIRE(back.has_value());
      BOOST_TEST(*back == bytes);
    }
    bytes.push_back(static_cast<char>(i * 37));
  }
  BOOST_TEST(ingot::encodeBase64("s3cr3t") == "czNjcjN0");
}

BOOST_AUTO_TEST_SUITE_END()
