// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_yaml
#include "common/yaml/reader.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/json.h"

namespace {

using ingot::yaml::Scalars;

/// Case is one YAML text and the compact JSON of its first document read each way.
struct Case {
  std::string desc;
  std::string yaml;
  std::string json;  ///< Scalars::Json (manifests)
  std::string text;  ///< Scalars::Text (kubeconfig, the L2 exclude list)
};

std::string read(const std::string& yaml, Scalars scalars) {
  auto doc = ingot::yaml::parseFirstDocument(yaml, scalars);
  if (!doc) {
    BOOST_ERROR(yaml << ": " << doc.error().message);
    return {};
  }
  return ingot::json::write(*doc);
}

BOOST_AUTO_TEST_CASE(scalars_resolve_as_json_or_stay_text) {
  const std::vector<Case> cases = {
      {"octal-looking mode", "m: 0755", R"({"m":493})", R"({"m":"0755"})"},
      {"quoted octal-looking", "m: '0755'", R"({"m":"0755"})", R"({"m":"0755"})"},
      {"decimal", "p: 80", R"({"p":80})", R"({"p":"80"})"},
      {"hex and underscores", "a: 0x1F\nb: 1_000", R"({"a":31,"b":1000})",
       R"({"a":"0x1F","b":"1_000"})"},
      {"integral float", "p: 80.0", R"({"p":80})", R"({"p":"80.0"})"},
      {"float", "f: 1.5e3", R"({"f":1500})", R"({"f":"1.5e3"})"},
      {"true", "insecure-skip-tls-verify: true", R"({"insecure-skip-tls-verify":true})",
       R"({"insecure-skip-tls-verify":"true"})"},
      {"True", "b: True", R"({"b":true})", R"({"b":"True"})"},
      {"YAML 1.1 yes/off", "a: yes\nb: off", R"({"a":true,"b":false})", R"({"a":"yes","b":"off"})"},
      {"quoted true", "b: \"true\"", R"({"b":"true"})", R"({"b":"true"})"},
      {"null spellings", "a: ~\nb: null\nc: NULL\nd:", R"({"a":null,"b":null,"c":null,"d":null})",
       R"({"a":null,"b":null,"c":null,"d":null})"},
      {"quoted null is a string", "a: 'null'\nb: \"\"", R"({"a":"null","b":""})",
       R"({"a":"null","b":""})"},
      {"base64 data", "certificate-authority-data: LS0tLS1CRUdJTi==",
       R"({"certificate-authority-data":"LS0tLS1CRUdJTi=="})",
       R"({"certificate-authority-data":"LS0tLS1CRUdJTi=="})"},
      {"folded base64 keeps its newlines out", "d: >-\n  aGVs\n  bG8=\n", R"({"d":"aGVs bG8="})",
       R"({"d":"aGVs bG8="})"},
      {"literal block", "d: |\n  a\n  b\n", R"({"d":"a\nb\n"})", R"({"d":"a\nb\n"})"},
      {"explicit str tag", "v: !!str 12", R"({"v":"12"})", R"({"v":"12"})"},
      {"infinity stays text", "v: .inf", "", R"({"v":".inf"})"},
      {"server URL", "server: https://10.0.0.1:6443", R"({"server":"https://10.0.0.1:6443"})",
       R"({"server":"https://10.0.0.1:6443"})"},
      {"sequence", "- 1\n- a", R"([1,"a"])", R"(["1","a"])"},
      {"alias", "a: &x 7\nb: *x", R"({"a":7,"b":7})", R"({"a":"7","b":"7"})"},
      {"merge key applied only for JSON", "base: &b {x: 1}\nm:\n  <<: *b\n  z: 2",
       R"({"base":{"x":1},"m":{"z":2,"x":1}})",
       R"({"base":{"x":"1"},"m":{"<<":{"x":"1"},"z":"2"}})"},
      {"duplicate keys kept in order", "a: 1\na: 2", R"({"a":1,"a":2})", R"({"a":"1","a":"2"})"},
      {"numeric key", "1: x", R"({"1":"x"})", R"({"1":"x"})"},
      {"empty text", "", "null", "null"},
      {"only the first document", "a: 1\n---\nb: [", R"({"a":1})", R"({"a":"1"})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      if (c.json.empty()) {
        BOOST_TEST(!ingot::yaml::parseFirstDocument(c.yaml, Scalars::Json).has_value());
      } else {
        BOOST_TEST(read(c.yaml, Scalars::Json) == c.json);
      }
      BOOST_TEST(read(c.yaml, Scalars::Text) == c.text);
    }
  }
}

BOOST_AUTO_TEST_CASE(first_member_wins_as_in_yaml_cpp_nodes) {
  auto doc = ingot::yaml::parseFirstDocument("a: first\na: second\n", Scalars::Text);
  BOOST_TEST_REQUIRE(doc.has_value());
  BOOST_TEST(doc->find("a")->text() == "first");
}

BOOST_AUTO_TEST_CASE(errors_name_the_line) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a: 1\nb: [\n", "line 3: "},
      {"a: 1\n  - b\n  c: d\n", "line 3: illegal map value"},
      {"a: &x [*x]\n", "line 1: alias refers to an anchor that is not complete"},
  };
  for (const auto& [text, want] : cases) {
    for (const auto scalars : {Scalars::Json, Scalars::Text}) {
      auto doc = ingot::yaml::parseFirstDocument(text, scalars);
      BOOST_TEST_REQUIRE(!doc.has_value(), text);
      BOOST_TEST(doc.error().message.rfind(want, 0) == 0, text << " -> " << doc.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(invalid_utf8_is_an_error_only_for_json) {
  const std::string text = "a: caf\xc3\n";
  BOOST_TEST(!ingot::yaml::parseFirstDocument(text, Scalars::Json).has_value());
  BOOST_TEST(ingot::yaml::parseFirstDocument(text, Scalars::Text).has_value());
}

BOOST_AUTO_TEST_CASE(stream_keeps_documents_and_their_lines) {
  const auto stream = ingot::yaml::parseStream("a: 1\n---\n\nb: 2\n---\nc: [\n");
  BOOST_TEST_REQUIRE(stream.documents.size() == 2u);
  BOOST_TEST(stream.documents[0].line == 1);
  BOOST_TEST(stream.documents[1].line == 4);
  BOOST_TEST(ingot::json::write(stream.documents[1].root) == R"({"b":2})");
  BOOST_TEST_REQUIRE(stream.error.has_value());
  BOOST_TEST(stream.error->line == 7);
}

BOOST_AUTO_TEST_CASE(alias_bombs_and_deep_nesting_are_bounded) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    const char prev = static_cast<char>(c - 1);
    bomb += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
            prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n";
  }
  for (const auto scalars : {Scalars::Json, Scalars::Text}) {
    auto doc = ingot::yaml::parseFirstDocument(bomb, scalars);
    BOOST_TEST_REQUIRE(!doc.has_value());
    BOOST_TEST(doc.error().message.find("too large") != std::string::npos, doc.error().message);
    auto deep =
        ingot::yaml::parseFirstDocument(std::string(500, '[') + std::string(500, ']'), scalars);
    BOOST_TEST(!deep.has_value());
  }
}

}  // namespace
