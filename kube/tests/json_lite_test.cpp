// SPDX-License-Identifier: Apache-2.0
#include "kube/json_lite.h"

#include <optional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace json = ingot::k8s::json;
using ingot::Result;

BOOST_AUTO_TEST_SUITE(json_lite)

BOOST_AUTO_TEST_CASE(validate_accepts_rfc8259_values_and_rejects_the_rest) {
  struct Case {
    std::string desc;
    std::string text;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"empty object", "{}", true},
      {"nested values", R"({"a":[1,-2.5e3,true,false,null,{"b":"c"}]})", true},
      {"surrounding whitespace", " \n\t{ \"a\" : 1 } \r\n", true},
      {"bare scalar", "42", true},
      {"multibyte UTF-8 in strings", "{\"s\":\"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80\"}",
       true},
      {"escapes", R"({"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"})", true},
      {"empty text", "", false},
      {"trailing comma in object", R"({"a":1,})", false},
      {"trailing comma in array", "[1,]", false},
      {"missing colon", R"({"a" 1})", false},
      {"unquoted key", "{a:1}", false},
      {"single quotes", "{'a':1}", false},
      {"leading zero", "[01]", false},
      {"bare minus", "[-]", false},
      {"fraction without digits", "[1.]", false},
      {"exponent without digits", "[1e]", false},
      {"misspelled literal", "[tru]", false},
      {"unterminated string", R"({"a":"b)", false},
      {"raw newline in string", "{\"a\":\"b\nc\"}", false},
      {"invalid escape", R"({"a":"\x"})", false},
      {"short unicode escape", R"({"a":"\u12"})", false},
      {"two values", "{} {}", false},
      {"truncated object", R"({"a":1)", false},
      {"lone continuation byte", "[\"\x80\"]", false},
      {"truncated two-byte sequence", "[\"\xC3\"]", false},
      {"overlong encoding of slash", "[\"\xC0\xAF\"]", false},
      {"overlong three-byte", "[\"\xE0\x80\xAF\"]", false},
      {"UTF-8 encoded surrogate", "[\"\xED\xA0\x80\"]", false},
      {"code point above U+10FFFF", "[\"\xF4\x90\x80\x80\"]", false},
      {"invalid lead byte", "[\"\xFF\"]", false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(json::validate(c.text).has_value() == c.ok);
    }
  }
}

BOOST_AUTO_TEST_CASE(validate_rejects_nesting_deeper_than_the_limit) {
  const std::string ok = std::string(json::kMaxDepth, '[') + std::string(json::kMaxDepth, ']');
  const std::string deep =
      std::string(json::kMaxDepth + 2, '[') + std::string(json::kMaxDepth + 2, ']');
  BOOST_TEST(json::validate(ok).has_value());
  auto r = json::validate(deep);
  BOOST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message.find("too deep") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(members_return_raw_values_in_key_order) {
  const std::string obj =
      R"({"kind":"Service","metadata":{"name":"a","x":[1,{"y":"}"}]},"n":-3,"s":"q\"}"})";
  auto m = json::members(obj, {"metadata", "kind", "missing", "n", "s"});
  BOOST_REQUIRE(m.has_value());
  BOOST_TEST(*(*m)[0] == R"({"name":"a","x":[1,{"y":"}"}]})");
  BOOST_TEST(*(*m)[1] == R"("Service")");
  BOOST_TEST(!(*m)[2].has_value());
  BOOST_TEST(*(*m)[3] == "-3");
  BOOST_TEST(*(*m)[4] == R"("q\"}")");
}

BOOST_AUTO_TEST_CASE(members_take_the_last_of_duplicate_keys) {
  auto m = json::member(R"({"a":1,"a":2})", "a");
  BOOST_REQUIRE(m.has_value());
  BOOST_TEST(**m == "2");
}

BOOST_AUTO_TEST_CASE(members_reject_non_objects_and_malformed_text) {
  for (std::string text : {"[1]", "\"s\"", R"({"a":})", R"({"a":1} x)", ""}) {
    BOOST_TEST_CONTEXT(text) {
      BOOST_TEST(!json::member(text, "a").has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(member_path_follows_objects_and_stops_at_null_or_absent) {
  const std::string obj = R"({"metadata":{"labels":{"app":"x"},"ns":null}})";
  struct Case {
    std::string desc;
    std::vector<std::string> path;
    std::optional<std::string> want;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"two levels", {"metadata", "labels"}, R"({"app":"x"})", true},
      {"three levels", {"metadata", "labels", "app"}, R"("x")", true},
      {"absent leaf", {"metadata", "uid"}, std::nullopt, true},
      {"null in the middle", {"metadata", "ns", "x"}, std::nullopt, true},
      {"through a string is an error", {"metadata", "labels", "app", "y"}, std::nullopt, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Result<std::optional<std::string_view>> r = std::optional<std::string_view>{};
      if (c.path.size() == 2) r = json::memberPath(obj, {c.path[0], c.path[1]});
      if (c.path.size() == 3) r = json::memberPath(obj, {c.path[0], c.path[1], c.path[2]});
      if (c.path.size() == 4) {
        r = json::memberPath(obj, {c.path[0], c.path[1], c.path[2], c.path[3]});
      }
      BOOST_TEST(r.has_value() == c.ok);
      if (r.has_value()) {
        BOOST_TEST(r->has_value() == c.want.has_value());
        if (c.want && r->has_value()) BOOST_TEST(std::string(**r) == *c.want);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(string_value_decodes_escapes_and_surrogate_pairs) {
  struct Case {
    std::string desc;
    std::string raw;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"plain", R"("abc")", "abc"},
      {"short escapes", R"("a\"b\\c\/d\n\t")", "a\"b\\c/d\n\t"},
      {"BMP escape", R"("\u00e9\u20AC")", "\xC3\xA9\xE2\x82\xAC"},
      {"surrogate pair", R"("\ud83d\ude00")", "\xF0\x9F\x98\x80"},
      {"lone high surrogate becomes U+FFFD", R"("\ud83dx")", "\xEF\xBF\xBDx"},
      {"lone low surrogate becomes U+FFFD", R"("\ude00")", "\xEF\xBF\xBD"},
      {"high surrogate then non-surrogate escape", R"("\ud83d\u0041")",
       "\xEF\xBF\xBD"
       "A"},
      {"raw UTF-8 copied", "\"\xE2\x82\xAC\"", "\xE2\x82\xAC"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = json::stringValue(c.raw);
      BOOST_REQUIRE(r.has_value());
      BOOST_TEST(*r == c.want);
    }
  }
  BOOST_TEST(!json::stringValue("42").has_value());
  BOOST_TEST(!json::stringValue(R"("a" "b")").has_value());
}

BOOST_AUTO_TEST_CASE(int_value_accepts_int64_only) {
  BOOST_TEST(*json::intValue("404") == 404);
  BOOST_TEST(*json::intValue("-9223372036854775808") == INT64_MIN);
  for (std::string bad : {"1.5", "1e3", "9223372036854775808", "\"1\"", "", "+1"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!json::intValue(bad).has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(elements_split_arrays_at_top_level_commas) {
  auto r = json::elements(R"([ {"a":[1,2]}, "x,y", 3 ])");
  BOOST_REQUIRE(r.has_value());
  BOOST_REQUIRE(r->size() == 3u);
  BOOST_TEST((*r)[0] == R"({"a":[1,2]})");
  BOOST_TEST((*r)[1] == R"("x,y")");
  BOOST_TEST((*r)[2] == "3");
  BOOST_TEST(json::elements("[]")->empty());
  BOOST_TEST(!json::elements("{}").has_value());
}

BOOST_AUTO_TEST_CASE(string_at_is_empty_when_absent_and_an_error_when_not_a_string) {
  const std::string obj = R"({"metadata":{"name":"n","generation":3}})";
  BOOST_TEST(*json::stringAt(obj, {"metadata", "name"}) == "n");
  BOOST_TEST(json::stringAt(obj, {"metadata", "namespace"})->empty());
  BOOST_TEST(!json::stringAt(obj, {"metadata", "generation"}).has_value());
}

BOOST_AUTO_TEST_CASE(quote_round_trips_through_string_value) {
  const std::vector<std::string> inputs = {
      "",
      "plain",
      "quote\" backslash\\ slash/",
      "ctl\x01\x1f\n\r\t\b\f",
      "\xC3\xA9\xF0\x9F\x98\x80",
  };
  for (const auto& s : inputs) {
    BOOST_TEST_CONTEXT(s) {
      const std::string q = json::quote(s);
      BOOST_TEST(json::validate(q).has_value());
      BOOST_TEST(*json::stringValue(q) == s);
    }
  }
  BOOST_TEST(json::quote("a\x01") == R"("a\u0001")");
}

BOOST_AUTO_TEST_SUITE_END()
