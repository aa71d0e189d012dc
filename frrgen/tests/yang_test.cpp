// SPDX-License-Identifier: Apache-2.0
#include <cstdlib>
#include <filesystem>
#include <functional>

#include <boost/test/unit_test.hpp>

#include "frrgen/policy.h"
#include "frrgen/yang_data.h"
#include "frrgen/yang_validate.h"

namespace ingot::frrgen {
namespace {

namespace utf = boost::unit_test;

std::string yangDir() {
  const char* dir = std::getenv("INGOT_FRR_YANG_DIR");
  return dir != nullptr ? dir : kFrrYangDir;
}

boost::test_tools::assertion_result modulesInstalled(utf::test_unit_id) {
  const bool ok = std::filesystem::exists(yangDir() + "/frr-bfdd.yang");
  boost::test_tools::assertion_result r(ok);
  if (!ok) r.message() << "FRR's YANG modules are not in " << yangDir() << " (apt-get install frr)";
  return r;
}

const YangValidator& validator() {
  static YangValidatorPtr v = [] {
    auto r = YangValidator::load(yangDir());
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    return std::move(*r);
  }();
  return *v;
}

// model has one dual-stack neighbor using every kind of list and set, and a BFD profile.
Model model() {
  Model m;
  Router r;
  r.asn = 64512;
  Neighbor n;
  n.address = "10.0.0.1";
  n.remote_as = "64513";
  n.family = NeighborFamily::Dual;
  n.outgoing_v4 = {{"192.168.1.1/32", 200, {"64512:100"}, {"1:2:3"}}};
  n.outgoing_v6 = {{"fd00::1/128", 0, {}, {"4294967295:0:1"}}};
  n.incoming_v4 = {{"10.8.0.0/16", 24, 20}};
  n.incoming_v6 = {{"fd00:8::/48", 64, std::nullopt}};
  r.neighbors = {n};
  m.routers = {r};
  m.bfd_profiles = {{"fast", 100, 100, 5, 60, true, false, 200}};
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(yang_suite, *utf::precondition(modulesInstalled))

BOOST_AUTO_TEST_CASE(rendered_policy_and_profiles_are_valid_frr_yang) {
  auto r = validator().validate(model());
  BOOST_TEST(r.has_value(), (r ? "" : r.error().message));
  auto plan = planPolicy(model());
  BOOST_TEST_REQUIRE(plan.has_value());
  const std::string json = yangInstanceJson(*plan, model().bfd_profiles);
  BOOST_TEST(json.find("\"required-receive-interval\":100000") != std::string::npos);
  BOOST_TEST(json.find("\"frr-bgp-route-map:large-community-string\":\"1:2:3 additive\"") !=
             std::string::npos);
  Model quiet = model();
  quiet.routers[0].neighbors[0].incoming_v6.clear();
  auto quiet_plan = planPolicy(quiet);
  BOOST_TEST_REQUIRE(quiet_plan.has_value());
  BOOST_TEST(yangInstanceJson(*quiet_plan, {}).find("\"action\":\"deny\",\"any\":[null]") !=
             std::string::npos);
  BOOST_TEST(validator().validate(quiet).has_value());
}

BOOST_AUTO_TEST_CASE(out_of_range_values_are_rejected_with_path_and_reason) {
  struct Case {
    std::string desc;
    std::function<void(Model&)> edit;
    std::vector<std::string> want;  ///< substrings of the error
  };
  auto profile = [](Model& m) -> BfdProfile& { return m.bfd_profiles.at(0); };
  auto neighbor = [](Model& m) -> Neighbor& { return m.routers.at(0).neighbors.at(0); };
  const std::vector<Case> cases = {
      {"detect multiplier above uint8",
       [&](Model& m) { profile(m).detect_multiplier = 300; },
       {"300", "/frr-bfdd:bfdd/bfd/profile[name='fast']/detection-multiplier"}},
      {"detect multiplier below the range",
       [&](Model& m) { profile(m).detect_multiplier = 1; },
       {"detection-multiplier"}},
      {"receive interval below 10 ms",
       [&](Model& m) { profile(m).receive_interval = 5; },
       {"5000", "required-receive-interval"}},
      {"transmit interval above 60 s",
       [&](Model& m) { profile(m).transmit_interval = 70000; },
       {"70000000", "desired-transmission-interval"}},
      {"interval that overflows microseconds",
       [&](Model& m) { profile(m).receive_interval = 5000000; },
       {"5000000000", "required-receive-interval"}},
      {"echo interval below 10 ms",
       [&](Model& m) { profile(m).echo_interval = 9; },
       {"desired-echo-transmission-interval"}},
      {"minimum TTL of 255", [&](Model& m) { profile(m).minimum_ttl = 255; }, {"minimum-ttl"}},
      {"minimum TTL of 0", [&](Model& m) { profile(m).minimum_ttl = 0; }, {"minimum-ttl"}},
      {"IPv4 selector longer than 32",
       [&](Model& m) { neighbor(m).incoming_v4[0].le = 33; },
       {"33", "ipv4-prefix-length-lesser-or-equal"}},
      {"IPv6 selector longer than 128",
       [&](Model& m) { neighbor(m).incoming_v6[0].ge = 129; },
       {"129", "ipv6-prefix-length-greater-or-equal"}},
      {"list name longer than FRR allows",
       [&](Model& m) {
         neighbor(m).vrf = std::string(120, 'v');
         m.routers[0].vrf = neighbor(m).vrf;
       },
       {"prefix-list", "name"}},
      {"profile name longer than 64",
       [&](Model& m) { profile(m).name = std::string(65, 'p'); },
       {"/frr-bfdd:bfdd/bfd/profile"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Model m = model();
      c.edit(m);
      auto r = validator().validate(m);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error().message.rfind("FRR YANG validation failed: ", 0) == 0u,
                 r.error().message);
      for (const auto& w : c.want) {
        BOOST_TEST(r.error().message.find(w) != std::string::npos, r.error().message);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(malformed_json_is_an_error_not_a_crash) {
  auto r = validator().validateJson("{\"frr-bfdd:bfdd\": {");
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message.rfind("FRR YANG validation failed: ", 0) == 0u);
  auto unknown = validator().validateJson("{\"frr-bfdd:bfdd\":{\"bfd\":{\"bogus\":1}}}");
  BOOST_TEST(!unknown.has_value());
}

BOOST_AUTO_TEST_CASE(missing_modules_are_reported) {
  auto r = YangValidator::load("/nonexistent-yang-dir");
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((r.error().code == ErrorCode::Unavailable));
  BOOST_TEST(r.error().message.find("/nonexistent-yang-dir") != std::string::npos,
             r.error().message);
  // A directory without FRR's modules names the first module it could not load. A fresh one:
  // the shared temporary directory may hold .yang files of other programs.
  std::string dir = (std::filesystem::temp_directory_path() / "ingot-yang-empty-XXXXXX").string();
  BOOST_TEST_REQUIRE(::mkdtemp(dir.data()) != nullptr);
  auto empty = YangValidator::load(dir);
  std::filesystem::remove_all(dir);
  BOOST_TEST_REQUIRE(!empty.has_value());
  BOOST_TEST(empty.error().message.find("cannot load YANG module frr-filter from") == 0u,
             empty.error().message);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
