// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_json
#include "common/json/json.h"

#include <cstdint>
#include <random>

#include <boost/test/unit_test.hpp>

#include "common/json/decode.h"

using ingot::json::Decoder;
using ingot::json::Field;
using ingot::json::ObjectReader;
using ingot::json::Unknown;
using ingot::json::Value;

BOOST_AUTO_TEST_SUITE(json)

BOOST_AUTO_TEST_CASE(parse_accepts_documents_and_rejects_malformed_text_with_a_line) {
  struct Case {
    std::string desc;
    std::string text;
    bool ok;
    std::string error_part;  // substring of the error message
  };
  const std::vector<Case> cases = {
      {"object", R"({"a": 1, "b": [true, null, "x"]})", true, ""},
      {"scalar root", "42", true, ""},
      {"big integer kept as text", "123456789012345678901234567890", true, ""},
      {"empty text", "", false, "line 1, column 1"},
      {"truncated object", "{\n\"a\": [1,\n", false, "line 3"},
      {"trailing garbage", "{} x", false, "root must not be followed"},
      {"comment", "{} // c", false, "line 1"},
      {"invalid utf-8", "\"\xff\xfe\"", false, "encoding"},
      {"utf-8 sequence truncated at the end", "\"\xe0", false, "line 1"},
      {"utf-8 sequence truncated before the quote", "\"\xf0\x9f\"", false, "encoding"},
      {"nul byte", std::string("{\"a\":\0}", 7), false, "NUL byte"},
      {"nan", "NaN", false, "line 1"},
      {"single quotes", "{'a': 1}", false, "line 1"},
      {"depth at the limit", std::string(100, '[') + std::string(100, ']'), true, ""},
      {"depth over the limit", std::string(101, '[') + std::string(101, ']'), false,
       "nesting deeper than 100"},
      {"very deep junk", std::string(100000, '['), false, "nesting deeper than 100"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto r = ingot::json::parse(c.text);
      BOOST_TEST(r.has_value() == c.ok);
      if (!r.has_value()) {
        BOOST_TEST(r.error().message.find(c.error_part) != std::string::npos, r.error().message);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(parse_records_the_line_of_every_node) {
  const auto r =
      ingot::json::parse("{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [\n      \"x\"\n    ]\n  }\n}");
  BOOST_REQUIRE(r.has_value());
  BOOST_TEST(r->line() == 1);
  BOOST_TEST(r->find("a")->line() == 2);
  BOOST_TEST(r->find("b")->line() == 3);
  BOOST_TEST(ingot::json::lineOf(*r, "b.c[0]") == 5);
  BOOST_TEST(ingot::json::lineOf(*r, "b.c[7]") == 4);  // deepest node reached
  BOOST_TEST(ingot::json::lineOf(*r, "b.missing") == 3);
}

BOOST_AUTO_TEST_CASE(write_is_deterministic_and_round_trips) {
  Value v = Value::object();
  v.set("z", Value::string("last \"quoted\"\n"));
  v.set("a", Value::number(int64_t{-5}));
  Value& arr = v.set("arr", Value::array());
  arr.push(Value::boolean(true));
  arr.push(Value::null());
  arr.push(Value::numberText("1.5e3"));
  v.set("big", Value::number(uint64_t{18446744073709551615u}));
  const std::string compact = ingot::json::write(v);
  BOOST_TEST(
      compact ==
      R"({"z":"last \"quoted\"\n","a":-5,"arr":[true,null,1.5e3],"big":18446744073709551615})");
  const auto back = ingot::json::parse(compact);
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST((*back == v));
  BOOST_TEST(ingot::json::write(*back) == compact);
  const std::string pretty = ingot::json::write(v, ingot::json::Style::Pretty);
  BOOST_TEST(pretty.find("\n  \"a\": -5") != std::string::npos);
  BOOST_TEST((*ingot::json::parse(pretty) == v));
}

BOOST_AUTO_TEST_CASE(field_reads_follow_go_json_type_rules) {
  struct Case {
    std::string desc;
    std::string json;  // {"f": ...}
    std::string target;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"uint32 max", R"({"f": 4294967295})", "uint32", true},
      {"uint32 overflow 2^32", R"({"f": 4294967296})", "uint32", false},
      {"uint32 2^40", R"({"f": 1099511627776})", "uint32", false},
      {"uint32 negative", R"({"f": -1})", "uint32", false},
      {"uint32 negative zero", R"({"f": -0})", "uint32", true},
      {"uint32 float", R"({"f": 1.5})", "uint32", false},
      {"uint32 integral float", R"({"f": 1.0})", "uint32", false},
      {"uint32 exponent", R"({"f": 1e3})", "uint32", false},
      {"uint32 from string", R"({"f": "7"})", "uint32", false},
      {"uint32 null is absent", R"({"f": null})", "uint32", true},
      {"uint16 max", R"({"f": 65535})", "uint16", true},
      {"uint16 overflow", R"({"f": 65536})", "uint16", false},
      {"int32 min", R"({"f": -2147483648})", "int32", true},
      {"int32 below min", R"({"f": -2147483649})", "int32", false},
      {"int64 huge", R"({"f": 99999999999999999999})", "int64", false},
      {"int64 min", R"({"f": -9223372036854775808})", "int64", true},
      {"string", R"({"f": "x"})", "string", true},
      {"string from number", R"({"f": 5})", "string", false},
      {"string from bool", R"({"f": true})", "string", false},
      {"bool", R"({"f": false})", "bool", true},
      {"bool from string", R"({"f": "true"})", "bool", false},
      {"string list", R"({"f": ["a", "b"]})", "list", true},
      {"string list with number", R"({"f": ["a", 1]})", "list", false},
      {"string list from string", R"({"f": "a"})", "list", false},
      {"map", R"({"f": {"a": "b"}})", "map", true},
      {"map with bool value", R"({"f": {"a": true}})", "map", false},
      {"map with duplicate key", R"({"f": {"a": "b", "a": "c"}})", "map", false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto doc = ingot::json::parse(c.json);
      BOOST_REQUIRE(doc.has_value());
      Decoder d;
      {
        ObjectReader r(Field(&*doc, "", d), Unknown::Reject);
        const Field f = r["f"];
        if (c.target == "uint32") {
          uint32_t v = 0;
          (void)f.read(v);
        } else if (c.target == "uint16") {
          uint16_t v = 0;
          (void)f.read(v);
        } else if (c.target == "int32") {
          int32_t v = 0;
          (void)f.read(v);
        } else if (c.target == "int64") {
          int64_t v = 0;
          (void)f.read(v);
        } else if (c.target == "string") {
          std::string v;
          (void)f.read(v);
        } else if (c.target == "bool") {
          bool v = false;
          (void)f.read(v);
        } else if (c.target == "list") {
          std::vector<std::string> v;
          (void)f.read(v);
        } else {
          std::map<std::string, std::string> v;
          (void)f.read(v);
        }
      }
      BOOST_TEST(d.ok() == c.ok);
      for (const auto& issue : d.issues()) {
        BOOST_TEST(issue.path.rfind('f', 0) == 0);
        BOOST_TEST(issue.line == 1);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(object_reader_reports_unknown_and_duplicate_fields_with_paths) {
  const auto doc = ingot::json::parse("{\"spec\": {\n\"a\": \"1\",\n\"bogus\": 2,\n\"a\": \"3\"}}");
  BOOST_REQUIRE(doc.has_value());
  Decoder d;
  {
    ObjectReader top(Field(&*doc, "", d), Unknown::Reject);
    ObjectReader spec(top["spec"], Unknown::Reject);
    std::string a;
    BOOST_TEST(spec["a"].read(a));
    BOOST_TEST(a == "1");
  }
  BOOST_REQUIRE(d.issues().size() == 2u);
  BOOST_TEST(d.issues()[0].path == "spec.a");
  BOOST_TEST(d.issues()[0].message == "duplicate field \"a\"");
  BOOST_TEST(d.issues()[0].line == 4);
  BOOST_TEST(d.issues()[1].path == "spec.bogus");
  BOOST_TEST(d.issues()[1].message == "unknown field \"bogus\"");
  BOOST_TEST(d.issues()[1].line == 3);
  BOOST_TEST(d.toError().message.find("spec.bogus: unknown field") != std::string::npos);

  Decoder lenient;
  { ObjectReader top(Field(&*doc, "", lenient), Unknown::Ignore); }
  BOOST_TEST(lenient.ok());
}

BOOST_AUTO_TEST_CASE(object_reader_on_a_non_object_reports_once) {
  const auto doc = ingot::json::parse(R"({"spec": [1]})");
  BOOST_REQUIRE(doc.has_value());
  Decoder d;
  {
    ObjectReader top(Field(&*doc, "", d), Unknown::Reject);
    ObjectReader spec(top["spec"], Unknown::Reject);
    BOOST_TEST(!spec.isObject());
    BOOST_TEST(!spec["x"].present());
  }
  BOOST_REQUIRE(d.issues().size() == 1u);
  BOOST_TEST(d.issues()[0].message == "expected object, got array");
}

BOOST_AUTO_TEST_CASE(random_bytes_never_crash_the_parser) {
  std::mt19937 rng(20261130);
  const std::string seed = R"({"apiVersion":"v1","kind":"List","items":[{"a":[1,2.5,"x\u00e9"]}]})";
  for (int i = 0; i < 20000; ++i) {
    std::string s = seed;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % (s.size() + 1);
      switch (rng() % 3) {
        case 0:
          if (pos < s.size()) {
            s[pos] = static_cast<char>(rng() & 0xff);
          }
          break;
        case 1:
          s.resize(pos);
          break;
        default:
          s.insert(pos, 1, static_cast<char>(rng() & 0xff));
      }
    }
    const auto r = ingot::json::parse(s);
    if (!r.has_value()) {
      BOOST_TEST(r.error().message.rfind("line ", 0) == 0u);
    } else {
      BOOST_TEST(ingot::json::parse(ingot::json::write(*r)).has_value());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
