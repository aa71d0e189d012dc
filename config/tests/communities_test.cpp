// SPDX-License-Identifier: Apache-2.0
#include <boost/test/unit_test.hpp>

#include "config/internal.h"
#include "config/tests/fixtures.h"

namespace ingot::config::testing {

BOOST_AUTO_TEST_SUITE(communities)

BOOST_AUTO_TEST_CASE(literals_parse_into_standard_and_large_values) {
  struct Case {
    std::string desc;
    std::string text;
    bool ok;
    BgpCommunity want;
    std::string want_string;
  };
  const std::vector<Case> cases = {
      {"standard", "65000:100", true, {false, 65000, 100, 0}, "65000:100"},
      {"standard zeros", "0:0", true, {false, 0, 0, 0}, "0:0"},
      {"standard maximum", "65535:65535", true, {false, 65535, 65535, 0}, "65535:65535"},
      {"leading zeros are decimal", "010:007", true, {false, 10, 7, 0}, "10:7"},
      {"large", "large:1:2:3", true, {true, 1, 2, 3}, "large:1:2:3"},
      {"large maximum",
       "large:4294967295:4294967295:4294967295",
       true,
       {true, 4294967295u, 4294967295u, 4294967295u},
       "large:4294967295:4294967295:4294967295"},
      {"empty section", "1:", false, {}, ""},
      {"sign is not a digit", "+1:2", false, {}, ""},
      {"space is not a digit", "1: 2", false, {}, ""},
      {"no separator", "65000", false, {}, ""},
      {"huge number does not wrap", "99999999999999999999999:1", false, {}, ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto got = detail::parseCommunity(c.text);
      BOOST_TEST(got.has_value() == c.ok);
      if (got) {
        BOOST_TEST((*got == c.want));
        BOOST_TEST(got->toString() == c.want_string);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(parse_errors_distinguish_format_from_value) {
  BOOST_TEST((detail::parseCommunity("alias").error().code == ErrorCode::NotFound));
  BOOST_TEST((detail::parseCommunity("1:2:3").error().code == ErrorCode::NotFound));
  BOOST_TEST((detail::parseCommunity("1:2:3:4:5").error().code == ErrorCode::NotFound));
  BOOST_TEST((detail::parseCommunity("1:99999").error().code == ErrorCode::InvalidArgument));
  BOOST_TEST((detail::parseCommunity("x:1:2:3").error().code == ErrorCode::InvalidArgument));
  BOOST_TEST(detail::parseCommunity("alias").error().message == "invalid community format: alias");
}

BOOST_AUTO_TEST_CASE(community_objects_define_unique_aliases) {
  auto objs = [](std::vector<api::Community> list) {
    Inputs in;
    in.communities = std::move(list);
    return in;
  };
  const std::vector<ErrorCase> cases = {
      {"aliases across objects",
       objs({community("a", {{"x", "1:1"}}), community("b", {{"y", "2:2"}})}),
       {}},
      {"duplicate alias across objects",
       objs({community("b", {{"x", "2:2"}}), community("a", {{"x", "1:1"}})}),
       {{"Community", "b", "spec.communities[0].name",
         R"(duplicate definition of community "x")"}}},
      {"duplicate alias in one object",
       objs({community("a", {{"x", "1:1"}, {"x", "1:1"}})}),
       {{"Community", "a", "spec.communities[1].name",
         R"(duplicate definition of community "x")"}}},
      {"malformed alias value",
       objs({community("a", {{"x", "1:2:3"}})}),
       {{"Community", "a", "spec.communities[0].value",
         R"(parsing community "x": invalid community format: 1:2:3)"}}},
      {"alias value out of range",
       objs({community("a", {{"x", "70000:1"}})}),
       {{"Community", "a", "spec.communities[0].value",
         R"(parsing community "x": invalid community value: invalid section "70000" of )"
         R"(community "70000:1", err: "strconv.ParseUint: parsing \"70000\": value out of )"
         R"(range")"}}},
  };
  checkErrors(cases);
  const Config cfg = parseOk(objs({community("a", {{"x", "1:1"}, {"big", "large:7:8:9"}})}));
  BOOST_TEST(cfg.community_aliases.at("x").toString() == "1:1");
  BOOST_TEST(cfg.community_aliases.at("big").toString() == "large:7:8:9");
}

BOOST_AUTO_TEST_CASE(communities_order_standard_before_large_then_by_value) {
  std::vector<BgpCommunity> v = {{true, 0, 0, 1}, {false, 2, 1, 0}, {false, 1, 9, 0}};
  std::sort(v.begin(), v.end());
  BOOST_TEST(v[0].toString() == "1:9");
  BOOST_TEST(v[1].toString() == "2:1");
  BOOST_TEST(v[2].toString() == "large:0:0:1");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config::testing
