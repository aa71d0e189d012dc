// SPDX-License-Identifier: Apache-2.0
// Tests of the support bundle's redaction: the structural rules per kind, FRR text, the values
// collected for the scrub, and the scrub itself. Table-driven.
#include "cli/redact.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/json.h"

namespace {

using namespace ingot;
using namespace ingot::cli;

json::Value parsed(const std::string& text) {
  auto v = json::parse(text);
  BOOST_TEST_REQUIRE(v.has_value(), text);
  return *v;
}

std::string redactedJson(const std::string& text) {
  return json::write(redactObject(parsed(text)));
}

struct ObjectCase {
  const char* name;
  const char* input;
  const char* want;
};

const ObjectCase kObjectCases[] = {
    {"Secret data and stringData values go, keys and type stay",
     R"({"kind":"Secret","type":"Opaque","data":{"password":"c2VjcmV0","user":"YWRtaW4="},"stringData":{"k":"v"}})",
     R"({"kind":"Secret","type":"Opaque","data":{"password":"<redacted>","user":"<redacted>"},"stringData":{"k":"<redacted>"}})"},
    {"a data member of another kind is kept (a ConfigMap is not secret)",
     R"({"kind":"ConfigMap","data":{"a":"b"}})", R"({"kind":"ConfigMap","data":{"a":"b"}})"},
    {"BGPPeer spec.password; passwordSecret (a reference) is kept",
     R"({"kind":"BGPPeer","spec":{"password":"pw","passwordSecret":{"name":"s"},"myASN":1}})",
     R"({"kind":"BGPPeer","spec":{"password":"<redacted>","passwordSecret":{"name":"s"},"myASN":1}})"},
    {"FRRConfiguration neighbor passwords deep in arrays",
     R"({"kind":"FRRConfiguration","spec":{"bgp":{"routers":[{"neighbors":[{"address":"1.2.3.4","password":"x1"}]}]}}})",
     R"({"kind":"FRRConfiguration","spec":{"bgp":{"routers":[{"neighbors":[{"address":"1.2.3.4","password":"<redacted>"}]}]}}})"},
    {"credential member names in any case, non-string values too",
     R"({"kind":"X","a":{"Token":"t","bearerToken":"b","SecretKey":{"x":1},"PASSWORD":7,"tokens":"kept"}})",
     R"({"kind":"X","a":{"Token":"<redacted>","bearerToken":"<redacted>","SecretKey":"<redacted>","PASSWORD":"<redacted>","tokens":"kept"}})"},
    {"env values of credential-looking names only",
     R"({"kind":"Pod","spec":{"containers":[{"name":"c","env":[{"name":"DB_PASSWORD","value":"p"},{"name":"api_key","value":"k"},{"name":"LOG_LEVEL","value":"info"},{"name":"X","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]}]}})",
     R"({"kind":"Pod","spec":{"containers":[{"name":"c","env":[{"name":"DB_PASSWORD","value":"<redacted>"},{"name":"api_key","value":"<redacted>"},{"name":"LOG_LEVEL","value":"info"},{"name":"X","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}]}]}})"},
    {"last-applied annotation replaced, managedFields dropped, other annotations kept",
     R"({"kind":"Secret","metadata":{"name":"s","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{}}","a":"b"},"managedFields":[{"manager":"kubectl"}]}})",
     R"({"kind":"Secret","metadata":{"name":"s","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"<redacted>","a":"b"}}})"},
};

BOOST_AUTO_TEST_CASE(redact_object_rules) {
  for (const auto& c : kObjectCases) {
    BOOST_TEST(redactedJson(c.input) == json::write(parsed(c.want)), c.name);
  }
}

struct TextCase {
  const char* name;
  const char* input;
  const char* want;
};

const TextCase kTextCases[] = {
    {"neighbor password", " neighbor 10.0.0.1 password s3cret\n",
     " neighbor 10.0.0.1 password <redacted>\n"},
    {"last line without newline, trailing words kept", "enable password abc extra",
     "enable password <redacted> extra"},
    {"CRLF and tabs", "password\tpw1\r\nline 2\n", "password\t<redacted>\r\nline 2\n"},
    {"no value after the word", "no password\n", "no password\n"},
    {"lines without the word unchanged", "router bgp 64512\n neighbor x remote-as 1\n",
     "router bgp 64512\n neighbor x remote-as 1\n"},
    {"upper case", "PASSWORD Foo\n", "PASSWORD <redacted>\n"},
};

BOOST_AUTO_TEST_CASE(redact_frr_text) {
  for (const auto& c : kTextCases) {
    BOOST_TEST(redactFrrText(c.input) == c.want, c.name);
  }
}

BOOST_AUTO_TEST_CASE(sensitive_values_are_collected_from_raw_objects) {
  const std::vector<json::Value> objects = {
      parsed(
          R"({"kind":"Secret","data":{"p":"c2VjcmV0LXZhbHVl"},"stringData":{"q":"plain-value"}})"),
      parsed(R"({"kind":"BGPPeer","spec":{"password":"peer-pass","passwordSecret":{"name":"n"}}})"),
      parsed(R"({"kind":"Pod","spec":{"env":[{"name":"MY_TOKEN","value":"tok-value"}]}})"),
      parsed(R"({"kind":"BGPPeer","spec":{"password":"abc"}})"),  // too short to scrub
      // A service-account token Secret: its namespace and CA are public, its token is not.
      parsed(R"({"kind":"Secret","data":{"namespace":"bWV0YWxsYi1zeXN0ZW0=","ca.crt":"Q0VSVA==",)"
             R"("token":"dG9rLXNlY3JldA=="}})"),
  };
  const std::set<std::string> want = {
      "c2VjcmV0LXZhbHVl", "secret-value",     "plain-value", "peer-pass",
      "tok-value",        "dG9rLXNlY3JldA==", "tok-secret"};
  BOOST_TEST(sensitiveValues(objects) == want);
}

struct ScrubCase {
  const char* name;
  std::string text;
  std::set<std::string> values;
  std::string want;
  size_t count;
};

BOOST_AUTO_TEST_CASE(scrub_replaces_values_and_their_base64) {
  const std::vector<ScrubCase> cases = {
      {"plain, twice", "a hunter2x b hunter2x", {"hunter2x"}, "a <redacted> b <redacted>", 2},
      {"base64 form", "pw: aHVudGVyMng=", {"hunter2x"}, "pw: <redacted>", 1},
      {"longest first", "xx-secret-long", {"secret", "xx-secret-long"}, "<redacted>", 1},
      {"nothing to do", "clean text", {"hunter2x"}, "clean text", 0},
      {"value that contains the marker's text",
       "k=<redacted>zz",
       {"redacted>zz"},
       "k=<<redacted>",
       1},
  };
  for (auto c : cases) {
    const size_t n = scrub(c.text, c.values);
    BOOST_TEST(c.text == c.want, c.name);
    BOOST_TEST(n == c.count, c.name);
  }
}

}  // namespace
