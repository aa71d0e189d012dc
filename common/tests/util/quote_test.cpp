// SPDX-License-Identifier: Apache-2.0
#include "common/util/quote.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/util/utf8.h"
#include "common/yaml/quote.h"

namespace {

/// Case is one input and what each quoting kind makes of it.
struct Case {
  std::string desc;
  std::string in;
  std::string go;    ///< strconv.Quote (checked against Go 1.19)
  std::string time;  ///< Go's time package quoting
  std::string json;  ///< RapidJSON's Writer
  std::string yaml;  ///< yaml-cpp's emitter, after the plain-scalar decision
  std::string prom;  ///< Prometheus label value
};

/// replaced is a quoted string of n replacement characters (U+FFFD).
std::string replaced(int n) {
  std::string out = "\"";
  for (int i = 0; i < n; ++i) {
    out += "\xef\xbf\xbd";
  }
  return out + "\"";
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"plain", "web-1", R"("web-1")", R"("web-1")", R"("web-1")", "web-1", "web-1"},
      {"empty", "", R"("")", R"("")", R"("")", R"("")", ""},
      {"quote and backslash", R"(a"b\c)", R"("a\"b\\c")", R"("a\"b\\c")", R"("a\"b\\c")",
       R"("a\"b\\c")", R"(a\"b\\c)"},
      {"one-letter escapes", "\a\b\f\n\r\t\v", R"("\a\b\f\n\r\t\v")",
       R"("\x07\x08\x0c\x0a\x0d\x09\x0b")", R"("\u0007\b\f\n\r\t\u000B")",
       R"("\x07\b\f\n\r\t\x0b")", "\a\b\f\\n\r\t\v"},
      {"other control bytes", std::string("\0\x01\x1b", 3), R"("\x00\x01\x1b")",
       R"("\x00\x01\x1b")", R"("\u0000\u0001\u001B")", R"("\x00\x01\x1b")",
       std::string("\0\x01\x1b", 3)},
      {"DEL", "a\x7f", R"("a\x7f")", "\"a\x7f\"", "\"a\x7f\"", R"("a\x7f")", "a\x7f"},
      {"invalid UTF-8", "caf\xc3 \xff", R"("caf\xc3 \xff")", R"("caf\xc3 \xff")",
       "\"caf\xef\xbf\xbd \xef\xbf\xbd\"", "\"caf\xef\xbf\xbd \xef\xbf\xbd\"", "caf\xc3 \xff"},
      {"surrogate and beyond U+10FFFF are invalid", "\xed\xa0\x80\xf4\x90\x80\x80",
       R"("\xed\xa0\x80\xf4\x90\x80\x80")", R"("\xed\xa0\x80\xf4\x90\x80\x80")", replaced(7),
       replaced(7), "\xed\xa0\x80\xf4\x90\x80\x80"},
      {"printable multi-byte runes", "\xc3\xa9\xe2\x98\xba\xf0\x9f\x98\x80",
       "\"\xc3\xa9\xe2\x98\xba\xf0\x9f\x98\x80\"", R"("\xc3\xa9\xe2\x98\xba\xf0\x9f\x98\x80")",
       "\"\xc3\xa9\xe2\x98\xba\xf0\x9f\x98\x80\"", "\"\xc3\xa9\xe2\x98\xba\xf0\x9f\x98\x80\"",
       "\xc3\xa9\xe2\x98\xba\xf0\x9f\x98\x80"},
      {"non-printable runes", "\xc2\xa0\xe2\x80\xa8\xee\x80\x80\xef\xbb\xbf\xf3\xa0\x80\x81",
       R"("\u00a0\u2028\ue000\ufeff\U000e0001")",
       R"("\xc2\xa0\xe2\x80\xa8\xee\x80\x80\xef\xbb\xbf\xf3\xa0\x80\x81")",
       "\"\xc2\xa0\xe2\x80\xa8\xee\x80\x80\xef\xbb\xbf\xf3\xa0\x80\x81\"",
       "\"\\xa0\xe2\x80\xa8\xee\x80\x80\\ufeff\xf3\xa0\x80\x81\"",
       "\xc2\xa0\xe2\x80\xa8\xee\x80\x80\xef\xbb\xbf\xf3\xa0\x80\x81"},
      {"valid U+FFFD", "\xef\xbf\xbd", "\"\xef\xbf\xbd\"", R"("\xef\xbf\xbd")", "\"\xef\xbf\xbd\"",
       "\"\xef\xbf\xbd\"", "\xef\xbf\xbd"},
      {"YAML reserved words and numbers stay strings", "Off", R"("Off")", R"("Off")", R"("Off")",
       R"("Off")", "Off"},
      {"number-like", "1_000", R"("1_000")", R"("1_000")", R"("1_000")", R"("1_000")", "1_000"},
  };
  return kCases;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quote)

BOOST_AUTO_TEST_CASE(
    each_kind_quotes_control_bytes_del_invalid_utf8_and_runes_as_its_reader_expects) {
  for (const auto& c : cases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(ingot::goQuote(c.in) == c.go);
      BOOST_TEST(ingot::goTimeQuote(c.in) == c.time);
      BOOST_TEST(ingot::jsonQuote(c.in) == c.json);
      BOOST_TEST(ingot::yamlScalar(c.in) == c.yaml);
      BOOST_TEST(ingot::prometheusLabelValue(c.in) == c.prom);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
