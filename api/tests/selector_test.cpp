// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_api_model
#include "api/selector.h"

#include <boost/test/unit_test.hpp>

using ingot::api::LabelSelector;
using ingot::api::LabelSelectorRequirement;
using ingot::api::StringMap;

BOOST_AUTO_TEST_SUITE(selector)

BOOST_AUTO_TEST_CASE(label_selector_semantics) {
  struct Case {
    std::string desc;
    LabelSelector sel;
    StringMap labels;
    bool want;
  };
  const StringMap web = {{"app", "web"}, {"tier", "front"}};
  const std::vector<Case> cases = {
      {"empty selector matches everything", {}, web, true},
      {"empty selector matches no labels", {}, {}, true},
      {"matchLabels equal", {{{"app", "web"}}, {}}, web, true},
      {"matchLabels different value", {{{"app", "db"}}, {}}, web, false},
      {"matchLabels missing key", {{{"zone", "a"}}, {}}, web, false},
      {"In listed", {{}, {{"app", "In", {"db", "web"}}}}, web, true},
      {"In not listed", {{}, {{"app", "In", {"db"}}}}, web, false},
      {"In absent key", {{}, {{"zone", "In", {"a"}}}}, web, false},
      {"NotIn listed", {{}, {{"app", "NotIn", {"web"}}}}, web, false},
      {"NotIn not listed", {{}, {{"app", "NotIn", {"db"}}}}, web, true},
      {"NotIn absent key matches", {{}, {{"zone", "NotIn", {"a"}}}}, web, true},
      {"Exists present", {{}, {{"tier", "Exists", {}}}}, web, true},
      {"Exists absent", {{}, {{"zone", "Exists", {}}}}, web, false},
      {"DoesNotExist absent", {{}, {{"zone", "DoesNotExist", {}}}}, web, true},
      {"DoesNotExist present", {{}, {{"app", "DoesNotExist", {}}}}, web, false},
      {"labels AND expressions", {{{"app", "web"}}, {{"tier", "In", {"back"}}}}, web, false},
      {"unknown operator matches nothing", {{}, {{"app", "Equals", {"web"}}}}, web, false},
      {"In without values matches nothing", {{}, {{"app", "In", {}}}}, web, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(ingot::api::matches(c.sel, c.labels) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(matches_any_is_or_and_empty_list_matches_nothing) {
  const StringMap labels = {{"a", "1"}};
  BOOST_TEST(!ingot::api::matchesAny({}, labels));
  BOOST_TEST(ingot::api::matchesAny(
      {LabelSelector{{{"a", "2"}}, {}}, LabelSelector{{{"a", "1"}}, {}}}, labels));
}

BOOST_AUTO_TEST_CASE(check_selector_rejects_bad_parts) {
  BOOST_TEST(
      ingot::api::checkSelector(LabelSelector{{{"example.com/app", "web-1"}}, {}}).has_value());
  BOOST_TEST(!ingot::api::checkSelector(LabelSelector{{{"-bad", "x"}}, {}}).has_value());
  BOOST_TEST(!ingot::api::checkSelector(LabelSelector{{{"a", "bad value"}}, {}}).has_value());
  BOOST_TEST(!ingot::api::checkSelector(LabelSelector{{}, {{"a", "Exists", {"x"}}}}).has_value());
  BOOST_TEST(!ingot::api::checkSelector(LabelSelector{{}, {{"a", "NotIn", {}}}}).has_value());
  BOOST_TEST(!ingot::api::checkSelector(LabelSelector{{}, {{"a", "Gt", {"1"}}}}).has_value());
  BOOST_TEST(!ingot::api::checkSelector(LabelSelector{{{"Example.com/a", "x"}}, {}}).has_value());
}

BOOST_AUTO_TEST_CASE(renders_selector_text) {
  LabelSelector s{{{"app", "web"}}, {{"zone", "In", {"b", "a"}}, {"gpu", "DoesNotExist", {}}}};
  BOOST_TEST(ingot::api::selectorToString(s) == "!gpu,app=web,zone in (a,b)");
  BOOST_TEST(ingot::api::selectorToString({}) == "");
}

BOOST_AUTO_TEST_SUITE_END()
