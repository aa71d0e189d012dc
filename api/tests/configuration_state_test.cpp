// SPDX-License-Identifier: Apache-2.0
#include "api/configuration_state.h"

#include <functional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

using namespace ingot::api;

namespace {

ConfigurationStateStatus valid(const std::string& time) {
  ConfigurationStateStatus s;
  s.result = "Valid";
  s.conditions = {{"poolReconcilerValid", "True", "Reconciled", "", time, 0}};
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(configuration_state)

BOOST_AUTO_TEST_CASE(same_configuration_state_ignores_only_the_transition_time) {
  struct Case {
    std::string desc;
    std::function<void(ConfigurationStateStatus&)> change;
    bool same;
  };
  const std::vector<Case> cases = {
      {"another lastTransitionTime", [](auto& s) { s.conditions[0].last_transition_time = "t2"; },
       true},
      {"another observedGeneration", [](auto& s) { s.conditions[0].observed_generation = 3; },
       true},
      {"another result", [](auto& s) { s.result = "Invalid"; }, false},
      {"another errorSummary", [](auto& s) { s.error_summary = "x"; }, false},
      {"another condition type", [](auto& s) { s.conditions[0].type = "configReconcilerValid"; },
       false},
      {"another condition status", [](auto& s) { s.conditions[0].status = "False"; }, false},
      {"another condition reason", [](auto& s) { s.conditions[0].reason = "Error"; }, false},
      {"another condition message", [](auto& s) { s.conditions[0].message = "m"; }, false},
      {"one more condition", [](auto& s) { s.conditions.push_back(s.conditions[0]); }, false},
      {"no condition", [](auto& s) { s.conditions.clear(); }, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      ConfigurationStateStatus b = valid("t1");
      c.change(b);
      BOOST_TEST(sameConfigurationState(valid("t1"), b) == c.same);
      BOOST_TEST(sameConfigurationState(b, valid("t1")) == c.same);
    }
  }
}

BOOST_AUTO_TEST_CASE(configuration_state_patch_always_carries_result_and_error_summary) {
  struct Case {
    std::string desc;
    ConfigurationStateStatus status;
    std::string expected;
  };
  ConfigurationStateStatus invalid;
  invalid.result = "Invalid";
  invalid.error_summary = "configuration error: bad \"x\"";
  invalid.conditions = {{"poolReconcilerValid", "False", "ConfigurationError",
                         "configuration error: bad \"x\"", "T", 4}};
  const std::vector<Case> cases = {
      {"valid", valid("T"),
       R"({"status":{"conditions":[{"type":"poolReconcilerValid","status":"True",)"
       R"("reason":"Reconciled","message":"","lastTransitionTime":"T"}],)"
       R"("result":"Valid","errorSummary":""}})"},
      {"invalid with an escaped message", invalid,
       R"({"status":{"conditions":[{"type":"poolReconcilerValid","status":"False",)"
       R"("reason":"ConfigurationError","message":"configuration error: bad \"x\"",)"
       R"("lastTransitionTime":"T"}],"result":"Invalid",)"
       R"("errorSummary":"configuration error: bad \"x\""}})"},
      {"no conditions is an empty list", ConfigurationStateStatus{},
       R"({"status":{"conditions":[],"result":"","errorSummary":""}})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(configurationStatePatch(c.status) == c.expected);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
