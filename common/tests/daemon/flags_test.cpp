// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/flags.h"

#include <map>

#include <boost/test/unit_test.hpp>

using namespace ingot;
using namespace ingot::daemon;

namespace {

/// Values is what a sample table writes to.
struct Values {
  std::string name;
  bool verbose = false;
  int port = 9120;
  int count = 3;
  double rate = 20;
  std::vector<std::string> ignored;
};

FlagSet sampleSet(Values& v) {
  FlagSet set;
  set.add({"name", false, text(v.name), "the name (env NAME)", "NAME"});
  set.add({"verbose", true, flag(v.verbose), "say more", "VERBOSE"});
  set.add({"port", false, port(v.port), "a port"});
  set.add({"count", false, integer(v.count, 1, 10, "must be 1-10"), "how many", "COUNT"});
  set.add({"rate", false, number(v.rate), "per second"});
  set.add({"secret", true, flag(v.verbose), ""});
  set.ignore(v.ignored, {"ml-bindport", "host"}, {"enable-pprof"});
  return set;
}

Environment envOf(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) {
      return std::nullopt;
    }
    return it->second;
  };
}

struct Case {
  std::string desc;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  Values want;        ///< for successes (ignored compared too)
  std::string error;  ///< exact message, for failures
};

}  // namespace

BOOST_AUTO_TEST_SUITE(flags)

BOOST_AUTO_TEST_CASE(flags_parse_with_go_semantics_and_environment_fallbacks) {
  auto vals = [](std::string name, bool verbose, int port, int count, double rate,
                 std::vector<std::string> ignored = {}) {
    return Values{std::move(name), verbose, port, count, rate, std::move(ignored)};
  };
  const std::vector<Case> cases = {
      {"defaults", {}, {}, vals("", false, 9120, 3, 20), ""},
      {"single_dash_and_separate_value", {"-name", "a"}, {}, vals("a", false, 9120, 3, 20), ""},
      {"double_dash_with_equals", {"--name=b", "--port=0"}, {}, vals("b", false, 0, 3, 20), ""},
      {"value_may_contain_equals_and_dashes",
       {"--name", "-x=y"},
       {},
       vals("-x=y", false, 9120, 3, 20),
       ""},
      {"bare_boolean", {"--verbose"}, {}, vals("", true, 9120, 3, 20), ""},
      {"boolean_true", {"-verbose=true"}, {}, vals("", true, 9120, 3, 20), ""},
      {"boolean_false_keeps_default", {"--verbose=false"}, {}, vals("", false, 9120, 3, 20), ""},
      {"boolean_does_not_take_the_next_argument",
       {"--verbose", "--count", "4"},
       {},
       vals("", true, 9120, 4, 20),
       ""},
      {"environment_fills_in",
       {},
       {{"NAME", "e"}, {"COUNT", "7"}},
       vals("e", false, 9120, 7, 20),
       ""},
      {"flag_wins_over_environment",
       {"--name=f"},
       {{"NAME", "e"}},
       vals("f", false, 9120, 3, 20),
       ""},
      {"empty_environment_value_is_unset", {}, {{"COUNT", ""}}, vals("", false, 9120, 3, 20), ""},
      {"environment_boolean", {}, {{"VERBOSE", "1"}}, vals("", true, 9120, 3, 20), ""},
      {"environment_boolean_false", {}, {{"VERBOSE", "false"}}, vals("", false, 9120, 3, 20), ""},
      {"go_boolean_spelling", {"--verbose=T"}, {}, vals("", true, 9120, 3, 20), ""},
      {"invalid_environment_boolean",
       {},
       {{"VERBOSE", "yes"}},
       {},
       "VERBOSE=\"yes\": invalid boolean value"},
      {"metallb_flags_are_accepted_and_recorded_in_order",
       {"--host", "h", "--enable-pprof", "-ml-bindport=7946"},
       {},
       vals("", false, 9120, 3, 20, {"host", "enable-pprof", "ml-bindport"}),
       ""},
      {"double_dash_ends_the_flags", {"--name=a", "--"}, {}, vals("a", false, 9120, 3, 20), ""},
      {"decimal_rate", {"--rate", "-1.5"}, {}, vals("", false, 9120, 3, -1.5), ""},
      {"unknown_flag", {"--nope"}, {}, {}, "unknown flag --nope (see --help)"},
      {"missing_value", {"--name"}, {}, {}, "flag --name needs a value"},
      {"invalid_boolean",
       {"--verbose=yes"},
       {},
       {},
       "flag --verbose: invalid boolean value \"yes\""},
      {"port_out_of_range",
       {"--port", "70000"},
       {},
       {},
       "flag --port=\"70000\": must be a port number 0-65535"},
      {"integer_below_minimum", {"--count=0"}, {}, {}, "flag --count=\"0\": must be 1-10"},
      {"integer_with_trailing_text", {"--count=2x"}, {}, {}, "flag --count=\"2x\": must be 1-10"},
      {"not_a_number", {"--rate=fast"}, {}, {}, "flag --rate=\"fast\": must be a number"},
      {"invalid_environment_names_the_variable",
       {},
       {{"COUNT", "99"}},
       {},
       "COUNT=\"99\": must be 1-10"},
      {"stray_argument", {"value"}, {}, {}, "unexpected argument \"value\" (flags start with -)"},
      {"argument_after_double_dash", {"--", "x"}, {}, {}, "unexpected argument \"x\""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Values got;
      const auto result = sampleSet(got).parse(c.args, envOf(c.env));
      if (!c.error.empty()) {
        BOOST_TEST_REQUIRE(!result.has_value());
        BOOST_TEST(result.error().message == c.error);
        BOOST_TEST((result.error().code == ErrorCode::InvalidArgument));
        continue;
      }
      BOOST_TEST_REQUIRE(result.has_value(), (result ? "" : result.error().message));
      BOOST_TEST(got.name == c.want.name);
      BOOST_TEST(got.verbose == c.want.verbose);
      BOOST_TEST(got.port == c.want.port);
      BOOST_TEST(got.count == c.want.count);
      BOOST_TEST(got.rate == c.want.rate);
      BOOST_TEST(got.ignored == c.want.ignored, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(usage_lists_flags_with_help_sorted_and_hides_the_rest) {
  Values v;
  const std::string u = sampleSet(v).usage();
  BOOST_TEST(u ==
             "  --count value\n      how many\n"
             "  --name value\n      the name (env NAME)\n"
             "  --port value\n      a port\n"
             "  --rate value\n      per second\n"
             "  --verbose\n      say more\n");
}

BOOST_AUTO_TEST_SUITE_END()
