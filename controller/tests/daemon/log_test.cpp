// SPDX-License-Identifier: Apache-2.0
// common/util/log (its tests live here: common/ has no test target of its own for util).
#include "common/util/log.h"

#include <boost/test/unit_test.hpp>

using namespace ingot;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(logging)

BOOST_AUTO_TEST_CASE(lines_are_one_json_object_with_fixed_members_first) {
  const system_clock::time_point t{milliseconds(1714564800123)};  // 2024-05-01T12:00:00.123Z
  struct Case {
    std::string desc;
    log::Level level;
    std::string msg;
    std::vector<log::Field> fields;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"plain line",
       log::Level::Info,
       "hello",
       {},
       R"({"ts":"2024-05-01T12:00:00.123Z","level":"info","op":"op1","event":"ev","msg":"hello"})"},
      {"object key and numbers",
       log::Level::Warn,
       "m",
       {{"key", "ns/a"}, log::num("n", -3)},
       R"({"ts":"2024-05-01T12:00:00.123Z","level":"warn","op":"op1","event":"ev","msg":"m","key":"ns/a","n":-3})"},
      {"quotes, backslashes and control characters are escaped",
       log::Level::Error,
       "say \"hi\"\\\n\x01",
       {},
       R"({"ts":"2024-05-01T12:00:00.123Z","level":"error","op":"op1","event":"ev","msg":"say \"hi\"\\\n\u0001"})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(log::formatLine(t, c.level, "op1", "ev", c.msg, c.fields) == c.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(levels_parse_metallb_spellings_and_filter_lines) {
  struct Case {
    std::string text;
    bool ok;
    log::Level level;
  };
  const std::vector<Case> cases = {
      {"all", true, log::Level::Debug},   {"debug", true, log::Level::Debug},
      {"info", true, log::Level::Info},   {"warn", true, log::Level::Warn},
      {"error", true, log::Level::Error}, {"none", true, log::Level::None},
      {"INFO", false, log::Level::Info},  {"", false, log::Level::Info}};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.text) {
      auto l = log::parseLevel(c.text);
      BOOST_TEST(l.has_value() == c.ok);
      if (c.ok) BOOST_TEST(static_cast<int>(*l) == static_cast<int>(c.level));
    }
  }
  std::vector<std::string> lines;
  log::Logger warn(log::Level::Warn, [&](std::string_view l) { lines.emplace_back(l); });
  warn.debug("o", "e", "dropped");
  warn.info("o", "e", "dropped");
  warn.warn("o", "e", "kept");
  warn.error("o", "e", "kept");
  BOOST_TEST(lines.size() == 2u);
  log::Logger none(log::Level::None, [&](std::string_view l) { lines.emplace_back(l); });
  none.error("o", "e", "dropped");
  BOOST_TEST(lines.size() == 2u);
}

BOOST_AUTO_TEST_CASE(timestamps_are_rfc3339_utc_with_milliseconds) {
  BOOST_TEST(log::formatTime(system_clock::time_point{}) == "1970-01-01T00:00:00.000Z");
  BOOST_TEST(log::formatTime(system_clock::time_point{milliseconds(-1)}) ==
             "1969-12-31T23:59:59.999Z");
}

BOOST_AUTO_TEST_SUITE_END()
