// SPDX-License-Identifier: Apache-2.0
#include "common/json/scan.h"

#include <optional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/json.h"
#include "common/util/quote.h"

BOOST_AUTO_TEST_SUITE(scan)

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
      {"number beyond double range (refused by RapidJSON)", "[1e400]", false},
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
      {"lone surrogate escape", R"({"a":"\ud83dx"})", false},
      {"two values", "{} {}", false},
      {"truncated object", R"({"a":1)", false},
      {"NUL after the value", std::string("{}\0{", 4), false},
      {"NUL in a string", std::string("[\"a\0\"]", 6), false},
      {"lone continuation byte", "[\"\x80\"]", false},
      {"truncated two-byte sequence at the end", "[\"\xC3", false},
      {"truncated two-byte sequence", "[\"\xC3\"]", false},
      {"overlong encoding of slash", "[\"\xC0\xAF\"]", false},
      {"overlong three-byte", "[\"\xE0\x80\xAF\"]", false},
      {"UTF-8 encoded surrogate", "[\"\xED\xA0\x80\"]", false},
      {"code point above U+10FFFF", "[\"\xF4\x90\x80\x80\"]", false},
      {"invalid lead byte", "[\"\xFF\"]", false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(ingot::json::validate(c.text).has_value() == c.ok);
    }
  }
}

BOOST_AUTO_TEST_CASE(validate_rejects_nesting_deeper_than_the_limit) {
  const std::string ok =
      std::string(ingot::json::kMaxDepth, '[') + std::string(ingot::json::kMaxDepth, ']');
  const std::string deep =
      std::string(ingot::json::kMaxDepth + 1, '[') + std::string(ingot::json::kMaxDepth + 1, ']');
  BOOST_TEST(ingot::json::validate(ok).has_value());
  auto r = ingot::json::validate(deep);
  BOOST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message.find("nesting deeper") != std::string::npos, r.error().message);
}

BOOST_AUTO_TEST_CASE(scan_returns_raw_values_types_and_decoded_strings_per_path) {
  const std::string obj =
      R"({"kind":"Service","metadata":{"name":"a\u00e9","x":[1,{"y":"}"}]},"n":-3,)"
      R"( "s" : "q\"}" ,"nil":null})";
  auto r = ingot::json::scan(obj, {{"metadata"},
                                   {"kind"},
                                   {"missing"},
                                   {"n"},
                                   {"s"},
                                   {"metadata", "name"},
                                   {"nil"},
                                   {"metadata", "x"}});
  BOOST_REQUIRE(r.has_value());
  const auto& f = *r;
  BOOST_TEST(f[0].raw == R"({"name":"a\u00e9","x":[1,{"y":"}"}]})");
  BOOST_TEST((f[0].type == ingot::json::Type::Object));
  BOOST_TEST(f[1].raw == R"("Service")");
  BOOST_TEST(f[1].text == "Service");
  BOOST_TEST(!f[2].present);
  BOOST_TEST(f[3].raw == "-3");
  BOOST_TEST((f[3].type == ingot::json::Type::Number));
  BOOST_TEST(f[4].raw == R"("q\"}")");
  BOOST_TEST(f[4].text == "q\"}");
  BOOST_TEST(f[5].text == "a\xC3\xA9");
  BOOST_TEST((f[6].present && f[6].type == ingot::json::Type::Null));
  BOOST_REQUIRE(f[7].items.size() == 2u);
  BOOST_TEST(f[7].items[0] == "1");
  BOOST_TEST(f[7].items[1] == R"({"y":"}"})");
}

BOOST_AUTO_TEST_CASE(scan_takes_the_last_of_duplicate_keys) {
  auto r = ingot::json::scan(R"({"a":[1,2],"a":[3]})", {{"a"}});
  BOOST_REQUIRE(r.has_value());
  BOOST_TEST((*r)[0].raw == "[3]");
  BOOST_REQUIRE((*r)[0].items.size() == 1u);
  BOOST_TEST((*r)[0].items[0] == "3");
}

BOOST_AUTO_TEST_CASE(array_elements_are_split_at_their_own_commas_only) {
  auto r =
      ingot::json::scan(R"({"items":[ {"a":[1,2]} , "x,y",3,[[]] ],"e":[]})", {{"items"}, {"e"}});
  BOOST_REQUIRE(r.has_value());
  const auto& items = (*r)[0].items;
  BOOST_REQUIRE(items.size() == 4u);
  BOOST_TEST(items[0] == R"({"a":[1,2]})");
  BOOST_TEST(items[1] == R"("x,y")");
  BOOST_TEST(items[2] == "3");
  BOOST_TEST(items[3] == "[[]]");
  BOOST_TEST((*r)[1].present);
  BOOST_TEST((*r)[1].items.empty());
}

BOOST_AUTO_TEST_CASE(paths_stop_at_null_absent_or_non_objects) {
  const std::string obj = R"({"metadata":{"labels":{"app":"x"},"ns":null,"l":[{"a":1}]}})";
  BOOST_TEST(**ingot::json::rawAt(obj, {"metadata", "labels"}) == R"({"app":"x"})");
  BOOST_TEST(**ingot::json::rawAt(obj, {"metadata", "labels", "app"}) == R"("x")");
  BOOST_TEST(!ingot::json::rawAt(obj, {"metadata", "uid"})->has_value());
  BOOST_TEST(!ingot::json::rawAt(obj, {"metadata", "ns", "x"})->has_value());
  BOOST_TEST(!ingot::json::rawAt(obj, {"metadata", "labels", "app", "y"})->has_value());
  BOOST_TEST(!ingot::json::rawAt(obj, {"metadata", "l", "a"})->has_value());  // not into arrays
  BOOST_TEST(!ingot::json::rawAt("[1]", {"a"})->has_value());
  BOOST_TEST(!ingot::json::rawAt(R"({"a":})", {"a"}).has_value());  // malformed text is an error
}

BOOST_AUTO_TEST_CASE(string_at_decodes_escapes_and_is_empty_when_absent_or_null) {
  const std::string obj =
      R"({"metadata":{"name":"a\"b\\c\/d\n\t\u00e9\u20AC\ud83d\ude00","generation":3,"ns":null}})";
  BOOST_TEST(*ingot::json::stringAt(obj, {"metadata", "name"}) ==
             "a\"b\\c/d\n\t\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  BOOST_TEST(ingot::json::stringAt(obj, {"metadata", "namespace"})->empty());
  BOOST_TEST(ingot::json::stringAt(obj, {"metadata", "ns"})->empty());
  BOOST_TEST(!ingot::json::stringAt(obj, {"metadata", "generation"}).has_value());
}

BOOST_AUTO_TEST_CASE(int_at_accepts_int64_only) {
  BOOST_TEST(*ingot::json::intAt(R"({"code":404})", {"code"}) == 404);
  BOOST_TEST(*ingot::json::intAt(R"({"n":-9223372036854775808})", {"n"}) == INT64_MIN);
  for (std::string bad : {"1.5", "1e3", "9223372036854775808", "\"1\"", "null"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!ingot::json::intAt(R"({"n":)" + bad + "}", {"n"}).has_value());
    }
  }
  BOOST_TEST(!ingot::json::intAt("{}", {"n"}).has_value());
}

BOOST_AUTO_TEST_CASE(json_quote_round_trips_through_scan_and_parse) {
  const std::vector<std::string> inputs = {
      "",
      "plain",
      "quote\" backslash\\ slash/",
      std::string("ctl\0\x01\x1f\x7f\n\r\t\b\f", 12),
      "\xC3\xA9\xF0\x9F\x98\x80",
  };
  for (const auto& s : inputs) {
    BOOST_TEST_CONTEXT(s) {
      const std::string doc = "{\"s\":" + ingot::jsonQuote(s) + "}";
      BOOST_TEST(*ingot::json::stringAt(doc, {"s"}) == s);
      auto parsed = ingot::json::parse(doc);
      BOOST_REQUIRE(parsed.has_value());
      BOOST_TEST(parsed->find("s")->text() == s);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
