// SPDX-License-Identifier: Apache-2.0
#include <functional>

#include <boost/test/unit_test.hpp>

#include "api/tests/fixtures.h"
#include "api/validate.h"

namespace api = ingot::api;
namespace fx = ingot::api::testing;

namespace {

using F = api::FRRConfiguration;

struct FrrK8sCase {
  std::string desc;
  std::function<void(F&)> edit;
  std::string field;    // "" = valid
  std::string message;  // substring
};

api::FrrNeighbor& neighbor(F& f) {
  return f.spec.routers[0].neighbors[0];
}

}  // namespace

BOOST_AUTO_TEST_SUITE(validate_frrk8s)

BOOST_AUTO_TEST_CASE(frr_configuration_rules) {
  const std::string n0 = "spec.bgp.routers[0].neighbors[0]";
  constexpr int64_t kS = 1000000000;
  const std::vector<FrrK8sCase> cases = {
      {"fixture", [](F&) {}, "", ""},
      {"too many routers", [](F& f) { f.spec.routers.resize(51, f.spec.routers[1]); },
       "spec.bgp.routers", "Too many: 51: must have at most 50 items"},
      {"bad router prefix", [](F& f) { f.spec.routers[0].prefixes.push_back("10.0.0.1"); },
       "spec.bgp.routers[0].prefixes[3]", "invalid CIDR"},
      {"import of unknown vrf", [](F& f) { f.spec.routers[1].imports = {"blue"}; },
       "spec.bgp.routers[1].imports[0].vrf", "imported vrf \"blue\" is not a router"},
      {"asn and dynamicASN", [](F& f) { neighbor(f).dynamic_asn = "external"; }, n0 + ".asn",
       "mutually exclusive"},
      {"neither asn nor dynamicASN", [](F& f) { neighbor(f).asn.reset(); }, n0 + ".asn",
       "one of asn or dynamicASN must be set"},
      {"dynamicASN only",
       [](F& f) {
         neighbor(f).asn.reset();
         neighbor(f).dynamic_asn = "internal";
         neighbor(f).local_asn.reset();
       },
       "", ""},
      {"bad dynamicASN",
       [](F& f) {
         neighbor(f).asn.reset();
         neighbor(f).dynamic_asn = "any";
       },
       n0 + ".dynamicASN", "Unsupported value: \"any\""},
      {"address and interface", [](F& f) { neighbor(f).interface = "eth0"; }, n0 + ".address",
       "exactly one of address or interface"},
      {"bad address", [](F& f) { neighbor(f).address = "172.18.0"; }, n0 + ".address",
       "invalid neighbor address \"172.18.0\""},
      {"port 16385", [](F& f) { neighbor(f).port = uint16_t{16385}; }, n0 + ".port",
       "should be less than or equal to 16384"},
      {"port 0 allowed", [](F& f) { neighbor(f).port = uint16_t{0}; }, "", ""},
      {"localASN on iBGP", [](F& f) { neighbor(f).asn = 64512u; }, n0 + ".localASN",
       "localASN can not be set on an iBGP neighbor"},
      {"localASN 0", [](F& f) { neighbor(f).local_asn = 0u; }, n0 + ".localASN",
       "greater than or equal to 1"},
      {"password and secret", [](F& f) { neighbor(f).password = "x"; }, n0 + ".passwordSecret",
       "mutually exclusive"},
      {"hold without keepalive", [](F& f) { neighbor(f).keepalive_time.reset(); },
       n0 + ".keepaliveTime", "must be set together"},
      {"hold 1s",
       [&](F& f) {
         neighbor(f).hold_time = api::Duration{kS, "1s"};
         neighbor(f).keepalive_time = api::Duration{kS, "1s"};
       },
       n0 + ".holdTime", "invalid hold time \"1s\": must be 0 or >=3s"},
      {"keepalive above hold",
       [&](F& f) {
         neighbor(f).keepalive_time = api::Duration{100 * kS, ""};
       },
       n0 + ".keepaliveTime", "must be lower than holdTime"},
      {"connect time fractional",
       [&](F& f) {
         neighbor(f).connect_time = api::Duration{kS + 1000000, ""};
       },
       n0 + ".connectTime", "whole number of seconds"},
      {"unknown bfd profile", [](F& f) { neighbor(f).bfd_profile = "slow"; }, n0 + ".bfdProfile",
       "bfd profile \"slow\" is not defined"},
      {"bad advertise mode", [](F& f) { neighbor(f).to_advertise.allowed_mode = "some"; },
       n0 + ".toAdvertise.allowed.mode", "Unsupported value: \"some\""},
      {"allowed prefix not a router prefix",
       [](F& f) { neighbor(f).to_advertise.allowed_prefixes.push_back("192.168.99.0/24"); },
       n0 + ".toAdvertise.allowed.prefixes[2]", "is not in the router's prefixes"},
      {"allowed prefix of the wrong family",
       [](F& f) {
         neighbor(f).dual_stack_address_family = false;
         neighbor(f).to_advertise.allowed_prefixes.push_back("fc00::/64");
       },
       n0 + ".toAdvertise.allowed.prefixes[2]", "is ipv6 but the neighbor does not carry"},
      {"dual stack carries both families",
       [](F& f) { neighbor(f).to_advertise.allowed_prefixes.push_back("fc00::/64"); }, "", ""},
      {"local pref on a prefix not advertised",
       [](F& f) { neighbor(f).to_advertise.with_local_pref[0].prefixes = {"fc00::/64"}; },
       n0 + ".toAdvertise.withLocalPref[0].prefixes", "is not advertised to this neighbor"},
      {"mode all advertises every router prefix",
       [](F& f) {
         neighbor(f).to_advertise.allowed_mode = "all";
         neighbor(f).to_advertise.allowed_prefixes.clear();
         neighbor(f).to_advertise.with_local_pref[0].prefixes = {"fc00::/64"};
       },
       "", ""},
      {"local pref without prefixes",
       [](F& f) { neighbor(f).to_advertise.with_local_pref[0].prefixes.clear(); },
       n0 + ".toAdvertise.withLocalPref[0].prefixes", "at least one prefix"},
      {"two local prefs for one prefix",
       [](F& f) {
         neighbor(f).to_advertise.with_local_pref.push_back({300, {"192.168.10.0/24"}});
       },
       n0 + ".toAdvertise.withLocalPref[1].prefixes", "has two different local preferences"},
      {"same local pref listed twice",
       [](F& f) {
         neighbor(f).to_advertise.with_local_pref.push_back({200, {"192.168.10.7/32"}});
       },
       n0 + ".toAdvertise.withLocalPref[1].localPref", "local preference 200 is listed twice"},
      {"bad community",
       [](F& f) { neighbor(f).to_advertise.with_community[0].community = "70000:1"; },
       n0 + ".toAdvertise.withCommunity[0].community", "invalid community value"},
      {"community listed twice",
       [](F& f) {
         neighbor(f).to_advertise.with_community.push_back({"65535:65282", {"192.168.10.0/24"}});
       },
       n0 + ".toAdvertise.withCommunity[1].community", "is listed twice"},
      {"community on a prefix not advertised",
       [](F& f) { neighbor(f).to_advertise.with_community[0].prefixes = {"10.10.0.0/16"}; },
       n0 + ".toAdvertise.withCommunity[0].prefixes", "is not advertised"},
      {"imported prefix can be advertised",
       [](F& f) {
         f.spec.routers[0].imports = {"red"};
         neighbor(f).to_advertise.allowed_prefixes.push_back("10.10.0.0/16");
       },
       "", ""},
      {"bad receive mode", [](F& f) { neighbor(f).to_receive.allowed_mode = "none"; },
       n0 + ".toReceive.allowed.mode", "Unsupported value"},
      {"receive prefix not a CIDR",
       [](F& f) { neighbor(f).to_receive.allowed_prefixes[0].prefix = "x"; },
       n0 + ".toReceive.allowed.prefixes[0].prefix", "invalid"},
      {"ge above le",
       [](F& f) {
         neighbor(f).to_receive.allowed_prefixes[0].ge = 30u;
         neighbor(f).to_receive.allowed_prefixes[0].le = 28u;
       },
       n0 + ".toReceive.allowed.prefixes[0]", "ge 30 must be lower or equal to le 28"},
      {"le shorter than the mask", [](F& f) { neighbor(f).to_receive.allowed_prefixes[0].le = 4u; },
       n0 + ".toReceive.allowed.prefixes[0].le", "greater than or equal to 8"},
      {"le beyond 32 for ipv4", [](F& f) { neighbor(f).to_receive.allowed_prefixes[0].le = 33u; },
       n0 + ".toReceive.allowed.prefixes[0].le", "less than or equal to 32"},
      {"bfd profile without name", [](F& f) { f.spec.bfd_profiles.push_back({}); },
       "spec.bgp.bfdProfiles[1].name", "Required value"},
      {"duplicate bfd profile", [](F& f) { f.spec.bfd_profiles.push_back(f.spec.bfd_profiles[0]); },
       "spec.bgp.bfdProfiles[1].name", "duplicate bfd profile name \"fast\""},
      {"bfd multiplier 1", [](F& f) { f.spec.bfd_profiles[0].detect_multiplier = 1u; },
       "spec.bgp.bfdProfiles[0].detectMultiplier", "greater than or equal to 2"},
      {"bfd interval 60001", [](F& f) { f.spec.bfd_profiles[0].echo_interval = 60001u; },
       "spec.bgp.bfdProfiles[0].echoInterval", "less than or equal to 60000"},
      {"bad node selector",
       [](F& f) {
         f.spec.node_selector.match_labels = {{"a b", "c"}};
       },
       "spec.nodeSelector", "invalid label key"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      F f = fx::frrConfiguration();
      c.edit(f);
      const auto errors = api::validateObject(f);
      if (c.field.empty()) {
        BOOST_TEST(errors.empty(),
                   (errors.empty() ? "" : errors[0].field + ": " + errors[0].message));
        continue;
      }
      BOOST_REQUIRE_MESSAGE(!errors.empty(), "expected an error at " + c.field);
      BOOST_TEST(errors[0].field == c.field);
      BOOST_TEST(errors[0].message.find(c.message) != std::string::npos, errors[0].message);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
