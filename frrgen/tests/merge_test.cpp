// SPDX-License-Identifier: Apache-2.0
#include "frrgen/merge.h"

#include <functional>

#include <boost/test/unit_test.hpp>

#include "frrgen/convert.h"
#include "frrgen/tests/fixtures.h"

namespace ingot::frrgen {
namespace {

using namespace ingot::frrgen::testing;

// config returns an FRRConfiguration c<index> with one router 64512 announcing 192.168.1.0/24
// and fd00:1::/64 and one IPv4 neighbor 10.0.0.1 (AS 64513) allowed the v4 prefix.
api::FRRConfiguration config(const std::string& name = "c1") {
  api::FRRConfiguration c;
  c.metadata.name = name;
  c.metadata.namespace_ = "metallb-system";
  api::FrrRouter r;
  r.asn = 64512;
  r.prefixes = {"192.168.1.0/24", "fd00:1::/64"};
  api::FrrNeighbor n;
  n.address = "10.0.0.1";
  n.asn = 64513;
  n.to_advertise.allowed_prefixes = {"192.168.1.0/24"};
  r.neighbors = {n};
  c.spec.routers = {r};
  return c;
}

api::FrrNeighbor& neighbor(api::FRRConfiguration& c) {
  return c.spec.routers.at(0).neighbors.at(0);
}

const Neighbor& onlyNeighbor(const Model& m) {
  return m.routers.at(0).neighbors.at(0);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(merge_suite)

BOOST_AUTO_TEST_CASE(conversion_rejects_invalid_objects_with_a_clear_reason) {
  struct Case {
    std::string desc;
    std::function<void(api::FRRConfiguration&)> edit;
    std::string want;  ///< substring of the error after the object name
  };
  using C = api::FRRConfiguration;
  const std::vector<Case> cases = {
      {"address and interface together", [](C& c) { neighbor(c).interface = "eth0"; },
       "neighbor 10.0.0.1: exactly one of address and interface must be set"},
      {"neither address nor interface", [](C& c) { neighbor(c).address.clear(); },
       "exactly one of address and interface must be set"},
      {"asn and dynamicASN together", [](C& c) { neighbor(c).dynamic_asn = "external"; },
       "exactly one of asn and dynamicASN must be set"},
      {"unknown dynamicASN",
       [](C& c) {
         neighbor(c).asn.reset();
         neighbor(c).dynamic_asn = "sideways";
       },
       "dynamicASN must be internal or external, got \"sideways\""},
      {"bad address", [](C& c) { neighbor(c).address = "10.0.0.300"; },
       "invalid address \"10.0.0.300\""},
      {"hold time without keepalive", [](C& c) { neighbor(c).hold_time = apiSeconds(90); },
       "holdTime and keepaliveTime must be set together"},
      {"hold time of two seconds",
       [](C& c) {
         neighbor(c).hold_time = apiSeconds(2);
         neighbor(c).keepalive_time = apiSeconds(1);
       },
       "invalid hold time 2s: must be 0 or >= 3s"},
      {"keepalive above hold",
       [](C& c) {
         neighbor(c).hold_time = apiSeconds(9);
         neighbor(c).keepalive_time = apiSeconds(10);
       },
       "keepalive time 10s is bigger than hold time 9s"},
      {"fractional connect time",
       [](C& c) {
         neighbor(c).connect_time = api::Duration{1'500'000'000, "1.5s"};
       },
       "connectTime 1.5s must be a whole number of seconds in 1-65535"},
      {"connect time above 65535 s", [](C& c) { neighbor(c).connect_time = apiSeconds(70000); },
       "connectTime 70000s must be a whole number"},
      {"local ASN on iBGP",
       [](C& c) {
         neighbor(c).asn = 64512;
         neighbor(c).local_asn = 65000;
       },
       "localASN cannot be used on an iBGP session"},
      {"local ASN on dynamic internal",
       [](C& c) {
         neighbor(c).asn.reset();
         neighbor(c).dynamic_asn = "internal";
         neighbor(c).local_asn = 65000;
       },
       "localASN cannot be used on an iBGP session"},
      {"port above the CRD range", [](C& c) { neighbor(c).port = 20000; },
       "port 20000 is out of range 0-16384"},
      {"password and secret together",
       [](C& c) {
         neighbor(c).password = "pw";
         neighbor(c).password_secret = api::SecretReference{"bgp-auth", ""};
       },
       "specifies both cleartext password and secret ref"},
      {"secret of the wrong type",
       [](C& c) {
         neighbor(c).password_secret = api::SecretReference{"opaque", ""};
       },
       "secret type mismatch on \"metallb-system\"/\"opaque\", type \"kubernetes.io/basic-auth\" "
       "is expected"},
      {"secret without a password key",
       [](C& c) {
         neighbor(c).password_secret = api::SecretReference{"nokey", ""};
       },
       "password field not specified in the secret \"metallb-system\"/\"nokey\""},
      {"password with a space", [](C& c) { neighbor(c).password = "two words"; },
       "password must be one word without spaces or control characters"},
      {"password longer than TCP-MD5 allows",
       [](C& c) { neighbor(c).password = std::string(81, 'x'); },
       "password is 81 bytes long; TCP-MD5 keys are at most 80 bytes"},
      {"password that would inject a line", [](C& c) { neighbor(c).password = "x\nrouter bgp 1"; },
       "password must be one word"},
      {"unknown BFD profile", [](C& c) { neighbor(c).bfd_profile = "fast"; },
       "referencing non existing BFDProfile fast"},
      {"duplicate BFD profile in one object",
       [](C& c) {
         c.spec.bfd_profiles = {{"fast", 100, {}, {}, {}, {}, {}, {}},
                                {"fast", 200, {}, {}, {}, {}, {}, {}}};
       },
       "duplicate bfd profile name fast in config c1"},
      {"allowed prefix the router does not announce",
       [](C& c) { neighbor(c).to_advertise.allowed_prefixes = {"192.168.2.0/24"}; },
       "prefix 192.168.2.0/24 is not an allowed prefix"},
      {"allowed prefix of the other family",
       [](C& c) { neighbor(c).to_advertise.allowed_prefixes = {"fd00:1::/64"}; },
       "prefix fd00:1::/64 does not match the neighbor family ipv4"},
      {"unparsable allowed prefix",
       [](C& c) { neighbor(c).to_advertise.allowed_prefixes = {"192.168.1/24"}; },
       "invalid prefix \"192.168.1/24\""},
      {"unparsable router prefix", [](C& c) { c.spec.routers[0].prefixes.push_back("nope"); },
       "router 64512: invalid prefix \"nope\""},
      {"community on a prefix not advertised",
       [](C& c) {
         neighbor(c).to_advertise.with_community = {{"64512:1", {"fd00:1::/64"}}};
       },
       "community 64512:1 associated to non existing prefix fd00:1::/64"},
      {"community number too large",
       [](C& c) {
         neighbor(c).to_advertise.with_community = {{"64512:70000", {"192.168.1.0/24"}}};
       },
       "invalid community 64512:70000"},
      {"community listed twice",
       [](C& c) {
         neighbor(c).to_advertise.with_community = {{"64512:1", {"192.168.1.0/24"}},
                                                    {"64512:1", {"192.168.1.0/24"}}};
       },
       "community 64512:1 is listed more than once"},
      {"local pref on a prefix not advertised",
       [](C& c) {
         neighbor(c).to_advertise.with_local_pref = {{100, {"10.9.0.0/16"}}};
       },
       "localPref associated to non existing prefix 10.9.0.0/16"},
      {"two local prefs for one prefix",
       [](C& c) {
         neighbor(c).to_advertise.with_local_pref = {{100, {"192.168.1.0/24"}},
                                                     {200, {"192.168.1.0/24"}}};
       },
       "multiple local prefs specified for prefix 192.168.1.0/24"},
      {"receive selector with ge above le",
       [](C& c) {
         neighbor(c).to_receive.allowed_prefixes = {{"10.0.0.0/8", 16, 24}};
       },
       "invalid toReceive selector 10.0.0.0/8: lengths must satisfy mask (8) <= ge <= le"},
      {"receive selector with le below the mask",
       [](C& c) {
         neighbor(c).to_receive.allowed_prefixes = {{"10.0.0.0/16", 8, std::nullopt}};
       },
       "lengths must satisfy mask (16) <= ge <= le"},
      {"unknown advertise mode", [](C& c) { neighbor(c).to_advertise.allowed_mode = "some"; },
       "toAdvertise.allowed.mode must be filtered or all, got \"some\""},
      {"unknown receive mode", [](C& c) { neighbor(c).to_receive.allowed_mode = "most"; },
       "toReceive.allowed.mode must be filtered or all"},
      {"IPv6 router id", [](C& c) { c.spec.routers[0].id = "fd00::1"; },
       "router id \"fd00::1\" is not an IPv4 address"},
      {"import of a VRF that is not a router here",
       [](C& c) { c.spec.routers[0].imports = {"red"}; },
       "imported vrf red is not a router of the same configuration"},
      {"router ASN zero", [](C& c) { c.spec.routers[0].asn = 0; },
       "router 0: asn must be 1-4294967295"},
      {"VRF name with a space", [](C& c) { c.spec.routers[0].vrf = "red blue"; },
       "vrf \"red blue\" must be one word"},
      {"interface name with a newline",
       [](C& c) {
         neighbor(c).address.clear();
         neighbor(c).interface = "eth0\nexit";
       },
       "interface \"eth0\nexit\" must be one word"},
  };
  api::Secret opaque = basicAuth("opaque", "cHc=");
  opaque.type = "Opaque";
  api::Secret nokey = basicAuth("nokey", "");
  nokey.data.clear();
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto cfg = config();
      c.edit(cfg);
      auto r = convert(cfg, {opaque, nokey});
      BOOST_TEST_REQUIRE(!r.has_value());
      const std::string& msg = r.error().message;
      BOOST_TEST(msg.rfind("FRRConfiguration metallb-system/c1: ", 0) == 0u, msg);
      BOOST_TEST(msg.find(c.want) != std::string::npos, msg);
    }
  }
}

BOOST_AUTO_TEST_CASE(missing_secret_is_a_transient_error) {
  auto c = config();
  neighbor(c).password_secret = api::SecretReference{"bgp-auth", "ignored"};
  auto r = merge({c}, {});
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((r.error().code == ErrorCode::Transient));
  BOOST_TEST(r.error().message.find("secret bgp-auth not found") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(secret_password_is_resolved_from_data_or_string_data) {
  auto c = config();
  neighbor(c).password_secret = api::SecretReference{"bgp-auth", "other-namespace-is-ignored"};
  BOOST_TEST(onlyNeighbor(mustMerge({c}, {basicAuth("bgp-auth", "czNjcjN0")})).password ==
             "s3cr3t");
  api::Secret plain = basicAuth("bgp-auth", "");
  plain.data.clear();
  plain.string_data = {{"password", "plain"}};
  BOOST_TEST(onlyNeighbor(mustMerge({c}, {plain})).password == "plain");
  auto bad = merge({c}, {basicAuth("bgp-auth", "###")});
  BOOST_TEST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().message.find("is not valid base64") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(conflicting_objects_are_rejected_with_frrk8s_messages) {
  struct Case {
    std::string desc;
    std::function<void(api::FRRConfiguration&)> edit_second;
    std::string want;  ///< empty = compatible
  };
  using C = api::FRRConfiguration;
  const std::vector<Case> cases = {
      {"identical objects merge", [](C&) {}, ""},
      {"different peer ASN", [](C& c) { neighbor(c).asn = 64999; },
       "multiple asns specified for 10.0.0.1"},
      {"explicit port 179 equals unset", [](C& c) { neighbor(c).port = 179; }, ""},
      {"different port", [](C& c) { neighbor(c).port = 1179; },
       "multiple ports specified for 10.0.0.1"},
      {"different source address", [](C& c) { neighbor(c).source_address = "10.0.0.11"; },
       "multiple source addresses specified for 10.0.0.1"},
      {"different password", [](C& c) { neighbor(c).password = "pw"; },
       "multiple passwords specified for 10.0.0.1"},
      {"ebgp multihop on one side", [](C& c) { neighbor(c).ebgp_multi_hop = true; },
       "conflicting ebgp-multihop specified for 10.0.0.1"},
      {"dual stack on one side", [](C& c) { neighbor(c).dual_stack_address_family = true; },
       "conflicting advertiseDualStack specified for 10.0.0.1"},
      {"hold time against unset",
       [](C& c) {
         neighbor(c).hold_time = apiSeconds(90);
         neighbor(c).keepalive_time = apiSeconds(60);
       },
       "multiple hold times specified for 10.0.0.1"},
      {"keepalive time against unset",
       [](C& c) {
         neighbor(c).hold_time = apiSeconds(180);
         neighbor(c).keepalive_time = apiSeconds(30);
       },
       "multiple keepalive times specified for 10.0.0.1"},
      {"default timers against unset",
       [](C& c) {
         neighbor(c).hold_time = apiSeconds(180);
         neighbor(c).keepalive_time = apiSeconds(60);
       },
       ""},
      {"connect time against unset", [](C& c) { neighbor(c).connect_time = apiSeconds(5); },
       "multiple connect times specified for 10.0.0.1"},
      {"default connect time against unset",
       [](C& c) { neighbor(c).connect_time = apiSeconds(60); }, ""},
      {"local ASN on one side only", [](C& c) { neighbor(c).local_asn = 65000; }, ""},
      {"BFD profile on one side only",
       [](C& c) {
         c.spec.bfd_profiles = {{"fast", 100, {}, {}, {}, {}, {}, {}}};
         neighbor(c).bfd_profile = "fast";
       },
       ""},
      {"different router ASN", [](C& c) { c.spec.routers[0].asn = 64513; },
       "different asns (64512 != 64513) specified for same vrf: "},
      {"same router id on both sides", [](C& c) { c.spec.routers[0].id = "10.0.0.11"; }, ""},
      {"different local pref for one prefix",
       [](C& c) {
         neighbor(c).to_advertise.with_local_pref = {{300, {"192.168.1.0/24"}}};
       },
       "multiple local prefs (100 != 300) specified for prefix 192.168.1.0/24"},
      {"same BFD profile name with other values",
       [](C& c) {
         c.spec.bfd_profiles = {{"slow", 900, {}, {}, {}, {}, {}, {}}};
       },
       "duplicate bfd profile name slow with different values for config c2"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto first = config("c1");
      first.spec.routers[0].id = "10.0.0.11";
      neighbor(first).to_advertise.with_local_pref = {{100, {"192.168.1.0/24"}}};
      first.spec.bfd_profiles = {{"slow", 1000, {}, {}, {}, {}, {}, {}}};
      auto second = config("c2");
      second.spec.bfd_profiles = {{"slow", 1000, {}, {}, {}, {}, {}, {}}};
      c.edit_second(second);
      auto r = merge({first, second}, {});
      if (c.want.empty()) {
        BOOST_TEST(r.has_value(), (r ? "" : r.error().message));
        continue;
      }
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error().message.find(c.want) != std::string::npos, r.error().message);
      BOOST_TEST(r.error().message.find("FRRConfiguration metallb-system/c2") == 0u,
                 r.error().message);
    }
  }
  auto first = config("c1");
  first.spec.routers[0].id = "10.0.0.11";
  auto second = config("c2");
  second.spec.routers[0].id = "10.0.0.12";
  auto r = merge({first, second}, {});
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message.find(
                 "different router ids (10.0.0.11 != 10.0.0.12) specified for same vrf: ") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(explicit_default_values_survive_the_merge) {
  auto a = config("c1");
  neighbor(a).port = 179;
  neighbor(a).hold_time = apiSeconds(180);
  neighbor(a).keepalive_time = apiSeconds(60);
  neighbor(a).connect_time = apiSeconds(60);
  auto b = config("c2");
  for (const auto& order : {std::vector<api::FRRConfiguration>{a}, {a, b}, {b, a}}) {
    const Model m = mustMerge(order);
    const Neighbor& n = onlyNeighbor(m);
    BOOST_TEST(n.port.value_or(0) == 179);
    BOOST_TEST(n.hold_time.value_or(0) == 180u);
    BOOST_TEST(n.keepalive_time.value_or(0) == 60u);
    BOOST_TEST(n.connect_time.value_or(0) == 60u);
  }
}

BOOST_AUTO_TEST_CASE(frrk8s_clears_each_default_on_its_own) {
  struct Case {
    std::string desc;
    std::optional<int64_t> hold, keepalive, connect;
    std::optional<uint16_t> port;
    std::optional<uint32_t> want_hold, want_keepalive, want_connect;
    std::optional<uint16_t> want_port;
  };
  using std::nullopt;
  const std::vector<Case> cases = {
      {"hold 90 keeps its value, keepalive 60 is cleared", 90, 60, nullopt, nullopt, 90u, nullopt,
       nullopt, nullopt},
      {"hold 180 is cleared, keepalive 30 stays", 180, 30, nullopt, nullopt, nullopt, 30u, nullopt,
       nullopt},
      {"both defaults are cleared", 180, 60, 60, uint16_t{179}, nullopt, nullopt, nullopt, nullopt},
      {"non-default values stay", 9, 3, 2, uint16_t{1179}, 9u, 3u, 2u, uint16_t{1179}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto cfg = config("c1");
      if (c.hold) neighbor(cfg).hold_time = apiSeconds(*c.hold);
      if (c.keepalive) neighbor(cfg).keepalive_time = apiSeconds(*c.keepalive);
      if (c.connect) neighbor(cfg).connect_time = apiSeconds(*c.connect);
      neighbor(cfg).port = c.port;
      Model m = mustMerge({cfg});
      clearFrrK8sDefaults(m);
      const Neighbor& n = onlyNeighbor(m);
      BOOST_TEST((n.hold_time == c.want_hold));
      BOOST_TEST((n.keepalive_time == c.want_keepalive));
      BOOST_TEST((n.connect_time == c.want_connect));
      BOOST_TEST((n.port == c.want_port));
    }
  }
}

BOOST_AUTO_TEST_CASE(merge_combines_extensions_independently_of_order) {
  auto a = config("a");
  a.spec.routers[0].id = "10.0.0.11";
  neighbor(a).to_advertise.with_community = {{"64512:1", {"192.168.1.0/24"}}};
  neighbor(a).to_receive.allowed_prefixes = {{"10.2.0.0/16", std::nullopt, std::nullopt}};
  auto b = config("b");
  b.spec.routers[0].prefixes.push_back("192.168.9.0/24");
  b.spec.bfd_profiles = {{"fast", 100, {}, {}, {}, {}, {}, {}}};
  neighbor(b).bfd_profile = "fast";
  neighbor(b).enable_graceful_restart = true;
  neighbor(b).to_advertise.allowed_prefixes = {"192.168.1.0/24", "192.168.9.0/24"};
  neighbor(b).to_advertise.with_community = {{"large:1:2:3", {"192.168.1.0/24"}},
                                             {"64512:1", {"192.168.9.0/24"}}};
  neighbor(b).to_advertise.with_local_pref = {{50, {"192.168.9.0/24"}}};
  neighbor(b).to_receive.allowed_prefixes = {{"10.1.0.0/16", 24, std::nullopt},
                                             {"10.2.0.0/16", std::nullopt, std::nullopt}};
  api::FrrNeighbor extra;
  extra.address = "fd00::9";
  extra.asn = 64600;
  b.spec.routers[0].neighbors.push_back(extra);
  Model ab = mustMerge({a, b});
  Model ba = mustMerge({b, a});
  BOOST_TEST((ab == ba));
  const Router& r = ab.routers.at(0);
  BOOST_TEST(r.router_id == "10.0.0.11");
  BOOST_TEST(r.prefixes_v4 == (std::vector<std::string>{"192.168.1.0/24", "192.168.9.0/24"}),
             boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(r.neighbors.size() == 2u);
  BOOST_TEST(r.neighbors[1].address == "fd00::9");
  const Neighbor& n = r.neighbors[0];
  BOOST_TEST(n.bfd_profile == "fast");
  BOOST_TEST(n.graceful_restart);
  BOOST_TEST_REQUIRE(n.outgoing_v4.size() == 2u);
  BOOST_TEST(n.outgoing_v4[0].communities == (std::vector<std::string>{"64512:1"}),
             boost::test_tools::per_element());
  BOOST_TEST(n.outgoing_v4[0].large_communities == (std::vector<std::string>{"1:2:3"}),
             boost::test_tools::per_element());
  BOOST_TEST(n.outgoing_v4[1].local_pref == 50u);
  BOOST_TEST_REQUIRE(n.incoming_v4.size() == 2u);  // deduplicated, sorted by prefix+le+ge
  BOOST_TEST(n.incoming_v4[0].prefix == "10.1.0.0/16");
  BOOST_TEST(n.incoming_v4[1].prefix == "10.2.0.0/16");
  BOOST_TEST(ab.bfd_profiles.size() == 1u);
}

BOOST_AUTO_TEST_CASE(receive_all_wins_over_selectors) {
  auto a = config("a");
  neighbor(a).to_receive.allowed_prefixes = {{"10.1.0.0/16", std::nullopt, std::nullopt}};
  auto b = config("b");
  neighbor(b).to_receive.allowed_mode = "all";
  const Model m = mustMerge({a, b});
  const Neighbor& n = onlyNeighbor(m);
  BOOST_TEST(n.receive_all);
  BOOST_TEST(n.incoming_v4.empty());
}

BOOST_AUTO_TEST_CASE(duplicate_neighbors_in_one_router_are_merged) {
  auto c = config();
  auto second = neighbor(c);
  second.to_advertise.allowed_prefixes.clear();
  second.to_receive.allowed_mode = "all";
  c.spec.routers[0].neighbors.push_back(second);
  const Model m = mustMerge({c});
  BOOST_TEST_REQUIRE(m.routers.at(0).neighbors.size() == 1u);
  BOOST_TEST(onlyNeighbor(m).receive_all);
  BOOST_TEST(onlyNeighbor(m).outgoing_v4.size() == 1u);
}

BOOST_AUTO_TEST_CASE(mode_all_advertises_own_and_imported_prefixes_of_the_neighbor_families) {
  auto c = config();
  api::FrrRouter red;
  red.asn = 64512;
  red.vrf = "red";
  red.prefixes = {"172.16.0.0/24", "fd00:7::/64"};
  c.spec.routers.push_back(red);
  c.spec.routers[0].imports = {"red"};
  neighbor(c).to_advertise.allowed_mode = "all";
  neighbor(c).to_advertise.allowed_prefixes.clear();
  const Model m = mustMerge({c});
  BOOST_TEST_REQUIRE(m.routers.size() == 2u);
  BOOST_TEST(m.routers[0].vrf == "");  // default VRF first
  BOOST_TEST(m.routers[0].import_vrfs == (std::vector<std::string>{"red"}),
             boost::test_tools::per_element());
  const Neighbor& n = m.routers[0].neighbors.at(0);
  BOOST_TEST_REQUIRE(n.outgoing_v4.size() == 2u);
  BOOST_TEST(n.outgoing_v4[0].prefix == "172.16.0.0/24");
  BOOST_TEST(n.outgoing_v6.empty());  // an IPv4 neighbor
}

BOOST_AUTO_TEST_CASE(prefixes_are_canonicalised) {
  auto c = config();
  c.spec.routers[0].prefixes = {"192.168.1.7/24", "FD00:1:0::/64"};
  neighbor(c).to_advertise.allowed_prefixes = {"192.168.1.0/24"};
  const Model m = mustMerge({c});
  BOOST_TEST(m.routers[0].prefixes_v4 == (std::vector<std::string>{"192.168.1.0/24"}),
             boost::test_tools::per_element());
  BOOST_TEST(m.routers[0].prefixes_v6 == (std::vector<std::string>{"fd00:1::/64"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(raw_snippets_are_ordered_by_priority_then_name) {
  auto a = config("b-second");
  a.spec.raw = api::FrrRawConfig{5, "! b"};
  auto b = config("a-first");
  b.spec.raw = api::FrrRawConfig{5, "! a\n"};
  auto c = config("z-top");
  c.spec.raw = api::FrrRawConfig{-1, "! z"};
  BOOST_TEST(mustMerge({a, b, c}).raw_config == "! z\n! a\n! b\n");
}

BOOST_AUTO_TEST_CASE(select_for_node_filters_namespace_and_node_selector) {
  auto all = config("all");
  auto mine = config("mine");
  mine.spec.node_selector.match_labels = {{"kubernetes.io/hostname", "node1"}};
  auto theirs = config("theirs");
  theirs.spec.node_selector.match_labels = {{"kubernetes.io/hostname", "node2"}};
  auto elsewhere = config("elsewhere");
  elsewhere.metadata.namespace_ = "default";
  auto r = selectForNode({all, mine, theirs, elsewhere}, "metallb-system",
                         node("node1").metadata.labels);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST_REQUIRE(r->size() == 2u);
  BOOST_TEST((*r)[0].metadata.name == "all");
  BOOST_TEST((*r)[1].metadata.name == "mine");
  auto bad = config("bad");
  bad.spec.node_selector.match_expressions = {{"zone", "Sideways", {"a"}}};
  auto e = selectForNode({bad}, "metallb-system", {});
  BOOST_TEST_REQUIRE(!e.has_value());
  BOOST_TEST(e.error().message.find("FRRConfiguration metallb-system/bad: spec.nodeSelector: ") ==
             0u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
