// SPDX-License-Identifier: Apache-2.0
#include "controller/status_writes.h"

#include <boost/test/unit_test.hpp>

using namespace ingot;
using namespace ingot::controller;

BOOST_AUTO_TEST_SUITE(status_writes)

BOOST_AUTO_TEST_CASE(service_patch_carries_ingress_and_annotation_changes_in_one_body) {
  struct Case {
    std::string desc;
    ServiceOutcome outcome;
    std::string expected;
  };
  ServiceOutcome assign;
  assign.status.ingress = {{"192.168.1.1", "", std::nullopt}, {"fc00::1", "", std::string("VIP")}};
  assign.set_annotations = {{"metallb.io/ip-allocated-from-pool", "p"}};
  ServiceOutcome clear;
  clear.remove_annotations = {"metallb.io/ip-allocated-from-pool"};
  ServiceOutcome status_only;
  status_only.status.ingress = {{"10.0.0.1", "", std::nullopt}};
  // Conditions are written only when asked: a cleared address drops the unannounced report.
  ServiceOutcome clear_conditions = clear;
  clear_conditions.write_conditions = true;
  ServiceOutcome keep_other = status_only;
  keep_other.status.conditions = {{"example.com/Other", "True", "R", "m", "t0", 0}};
  keep_other.write_conditions = true;
  const std::vector<Case> cases = {
      {"assignment of two families", assign,
       R"({"metadata":{"annotations":{"metallb.io/ip-allocated-from-pool":"p"}},)"
       R"("status":{"loadBalancer":{"ingress":[{"ip":"192.168.1.1"},{"ip":"fc00::1","ipMode":"VIP"}]}}})"},
      {"clear removes the annotation and the ingress list", clear,
       R"({"metadata":{"annotations":{"metallb.io/ip-allocated-from-pool":null}},)"
       R"("status":{"loadBalancer":{"ingress":null}}})"},
      {"status only leaves metadata out", status_only,
       R"({"status":{"loadBalancer":{"ingress":[{"ip":"10.0.0.1"}]}}})"},
      {"conditions removed with the address", clear_conditions,
       R"({"metadata":{"annotations":{"metallb.io/ip-allocated-from-pool":null}},)"
       R"("status":{"loadBalancer":{"ingress":null},"conditions":null}})"},
      {"other conditions written whole", keep_other,
       R"({"status":{"loadBalancer":{"ingress":[{"ip":"10.0.0.1"}]},"conditions":[{"type":)"
       R"("example.com/Other","status":"True","lastTransitionTime":"t0","reason":"R",)"
       R"("message":"m"}]}})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(servicePatch(c.outcome) == c.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(apply_outcome_matches_what_the_patch_does) {
  api::Service svc;
  svc.metadata.annotations = {{"keep", "1"}, {"metallb.io/ip-allocated-from-pool", "old"}};
  svc.status.ingress = {{"10.0.0.9", "", std::nullopt}};
  ServiceOutcome out;
  out.status.ingress = {{"10.0.0.1", "", std::nullopt}};
  out.set_annotations = {{"metallb.io/ip-allocated-from-pool", "new"}};
  const api::Service after = applyOutcome(svc, out);
  BOOST_TEST((after.status == out.status));
  const api::StringMap expected = {{"keep", "1"}, {"metallb.io/ip-allocated-from-pool", "new"}};
  BOOST_TEST((after.metadata.annotations == expected));
}

BOOST_AUTO_TEST_CASE(conditions_patch_sets_or_removes_the_list) {
  BOOST_TEST(conditionsPatch({}) == R"({"status":{"conditions":null}})");
  BOOST_TEST(conditionsPatch({{"ingot.dev/Announced", "False", "NoAnnouncingNode", "no node",
                               "2026-01-01T00:00:00Z", 3}}) ==
             R"({"status":{"conditions":[{"type":"ingot.dev/Announced","status":"False",)"
             R"("observedGeneration":3,"lastTransitionTime":"2026-01-01T00:00:00Z",)"
             R"("reason":"NoAnnouncingNode","message":"no node"}]}})");
}

BOOST_AUTO_TEST_CASE(pool_status_patch_has_the_four_counters) {
  BOOST_TEST(poolStatusPatch({2, 1, 254, 9223372036854775807}) ==
             R"({"status":{"assignedIPv4":2,"assignedIPv6":1,"availableIPv4":254,)"
             R"("availableIPv6":9223372036854775807}})");
}

BOOST_AUTO_TEST_CASE(configuration_state_follows_the_parse_result) {
  const std::vector<config::ConfigError> errors = {
      {"IPAddressPool", "metallb-system", "b", "spec.addresses[0]", "overlaps", false},
      {"", "", "", "", "global problem", false}};
  struct Case {
    std::string desc;
    std::vector<config::ConfigError> errors;
    std::string result;
    std::string status;
    std::string reason;
    std::string summary;
  };
  const std::vector<Case> cases = {
      {"valid", {}, "Valid", "True", "Reconciled", ""},
      {"invalid lists every error", errors, "Invalid", "False", "ConfigurationError",
       "configuration error: IPAddressPool metallb-system/b spec.addresses[0]: overlaps\n"
       "global problem"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto s = configurationStateStatus(c.errors, "2024-05-01T12:00:00Z");
      BOOST_TEST(s.result == c.result);
      BOOST_TEST(s.error_summary == c.summary);
      BOOST_REQUIRE(s.conditions.size() == 1u);
      BOOST_TEST(s.conditions[0].type == "poolReconcilerValid");
      BOOST_TEST(s.conditions[0].status == c.status);
      BOOST_TEST(s.conditions[0].reason == c.reason);
      BOOST_TEST(s.conditions[0].message == c.summary);
      BOOST_TEST(s.conditions[0].last_transition_time == "2024-05-01T12:00:00Z");
    }
  }
}

BOOST_AUTO_TEST_CASE(configuration_state_object_is_named_labelled_and_owned) {
  api::OwnerReference owner{"v1", "Pod", "ctrl-0", "uid-1", true, std::nullopt};
  const std::string obj = configurationStateObject("mlb", owner);
  BOOST_TEST(obj.find(R"("name":"controller","namespace":"mlb")") != std::string::npos, obj);
  BOOST_TEST(obj.find(R"("metallb.io/component-type":"controller")") != std::string::npos, obj);
  BOOST_TEST(obj.find(R"("uid":"uid-1")") != std::string::npos, obj);
  BOOST_TEST(configurationStateObject("mlb", {}).find("ownerReferences") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
