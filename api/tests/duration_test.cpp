// SPDX-License-Identifier: Apache-2.0
#include "api/duration.h"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(duration)

BOOST_AUTO_TEST_CASE(parse_go_duration_accepts_what_go_accepts) {
  struct Case {
    std::string text;
    int64_t want;
  };
  constexpr int64_t kS = 1000000000;
  const std::vector<Case> cases = {
      {"0", 0},
      {"+0", 0},
      {"-0", 0},
      {"0s", 0},
      {"90s", 90 * kS},
      {"1m30s", 90 * kS},
      {"1h", 3600 * kS},
      {"500ms", 500000000},
      {"1.5s", 1500000000},
      {"-1s", -kS},
      {"+5s", 5 * kS},
      {".5s", 500000000},
      {"5.s", 5 * kS},
      {"1h2m3s4ms5us6ns", 3723004005006},
      {"1\xc2\xb5s", 1000},  // micro sign
      {"1\xce\xbcs", 1000},  // Greek mu
      {"1us", 1000},
      {"3ns", 3},
      {"1.0000000001s", 1000000000},  // below nanosecond precision: truncated
      {"0.3333333333333333333h", 1200000000000},
      {"2562047h47m16.854775807s", 9223372036854775807},
      {"-2562047h47m16.854775808s", -9223372036854775807 - 1},
      {"9223372036854775807ns", 9223372036854775807},
      {"1h1h", 7200 * kS},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.text) {
      const auto got = ingot::api::parseGoDuration(c.text);
      BOOST_REQUIRE_MESSAGE(got.has_value(), (got.has_value() ? "" : got.error().message));
      BOOST_TEST(*got == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(parse_go_duration_rejects_with_go_messages) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"", "time: invalid duration \"\""},
      {"-", "time: invalid duration \"-\""},
      {"1", "time: missing unit in duration \"1\""},
      {"10", "time: missing unit in duration \"10\""},
      {"s", "time: invalid duration \"s\""},
      {".s", "time: invalid duration \".s\""},
      {"1d", "time: unknown unit \"d\" in duration \"1d\""},
      {"1 s", "time: unknown unit \" s\" in duration \"1 s\""},
      {"1s ", "time: unknown unit \"s \" in duration \"1s \""},
      {"3000000h", "time: invalid duration \"3000000h\""},
      {"9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\""},
      {"2562047h47m16.854775808s", "time: invalid duration \"2562047h47m16.854775808s\""},
      {"99999999999999999999s", "time: invalid duration \"99999999999999999999s\""},
      {"1s\xff", "time: unknown unit \"s\\xff\" in duration \"1s\\xff\""},
      {"--1s", "time: invalid duration \"--1s\""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.text) {
      const auto got = ingot::api::parseGoDuration(c.text);
      BOOST_REQUIRE(!got.has_value());
      BOOST_TEST(got.error().message == c.message);
    }
  }
}

BOOST_AUTO_TEST_CASE(format_go_duration_matches_go_string) {
  struct Case {
    int64_t ns;
    std::string want;
  };
  const std::vector<Case> cases = {
      {0, "0s"},
      {1, "1ns"},
      {1100, "1.1\xc2\xb5s"},
      {2200000, "2.2ms"},
      {3300000000, "3.3s"},
      {-3300000000, "-3.3s"},
      {90000000000, "1m30s"},
      {4 * 60000000000 + 5000000000, "4m5s"},
      {3600000000000, "1h0m0s"},
      {5400000000000 + 1, "1h30m0.000000001s"},
      {9223372036854775807, "2562047h47m16.854775807s"},
      {-9223372036854775807 - 1, "-2562047h47m16.854775808s"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.want) {
      BOOST_TEST(ingot::api::formatGoDuration(c.ns) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(parse_duration_keeps_the_text_and_format_parses_back) {
  const auto d = ingot::api::parseDuration("90s");
  BOOST_REQUIRE(d.has_value());
  BOOST_TEST(d->text == "90s");
  BOOST_TEST(d->nanoseconds == 90000000000);
  BOOST_TEST(ingot::api::durationText(*d) == "90s");
  BOOST_TEST(ingot::api::durationText(ingot::api::Duration{1500000000, ""}) == "1.5s");
  for (const int64_t ns : {int64_t{1}, int64_t{999}, int64_t{1500000000}, int64_t{-7200000000000},
                           int64_t{9223372036854775807}}) {
    const auto back = ingot::api::parseGoDuration(ingot::api::formatGoDuration(ns));
    BOOST_REQUIRE(back.has_value());
    BOOST_TEST(*back == ns);
  }
}

BOOST_AUTO_TEST_SUITE_END()
