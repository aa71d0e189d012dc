// SPDX-License-Identifier: Apache-2.0
#include <boost/test/unit_test.hpp>

#include "config/tests/fixtures.h"

namespace ingot::config::testing {
namespace {

constexpr char kBgp[] = "BGPAdvertisement";
constexpr char kMutex[] =
    "serviceSelectors and aggregationLength are mutually exclusive, can only be used together with "
    "default aggregationLength (32) and aggregationLengthV6 (128)";

Inputs withPools(std::vector<api::IPAddressPool> pools, std::vector<api::BGPAdvertisement> ads) {
  Inputs in;
  in.pools = std::move(pools);
  in.bgp_advertisements = std::move(ads);
  return in;
}

std::string aggregationError(int length,
                             int prefix,
                             const std::string& addresses,
                             const std::string& pool_name) {
  return "invalid aggregation length " + std::to_string(length) + ": prefix " +
         std::to_string(prefix) +
         " in this pool is more specific than the aggregation length for addresses " + addresses +
         " (IPAddressPool \"" + pool_name + "\")";
}

std::string localPrefError(uint32_t mine,
                           uint32_t theirs,
                           const std::string& other,
                           const std::string& pool_name) {
  return "invalid local preference " + std::to_string(mine) + ": local preference " +
         std::to_string(theirs) +
         " was already set for the same type of BGP update. Check existing BGP advertisements "
         "with common pools and aggregation lengths (BGPAdvertisement \"" +
         other + "\", IPAddressPool \"" + pool_name + "\")";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bgp_advertisements)

BOOST_AUTO_TEST_CASE(defaults_and_copied_fields) {
  Inputs in = withPools({pool("p", {"10.0.0.0/24"}), pool("q", {"10.0.1.0/24"})},
                        {bgp("plain"), with(bgp("custom", {"q"}), [](auto& a) {
                           a.spec.aggregation_length = 24;
                           a.spec.aggregation_length_v6 = 64;
                           a.spec.local_pref = 150;
                           a.spec.peers = {"r2", "r1"};
                           a.spec.node_selectors = {sel({{"rack", "1"}})};
                         })});
  in.nodes = {node("n1", {{"rack", "1"}}), node("n2")};
  const Config cfg = parseOk(in);
  BOOST_REQUIRE(cfg.bgp_advertisements.size() == 2u);
  const auto& custom = cfg.bgp_advertisements[0];
  const auto& plain = cfg.bgp_advertisements[1];
  BOOST_TEST(plain.name == "plain");
  BOOST_TEST(plain.aggregation_length == 32);
  BOOST_TEST(plain.aggregation_length_v6 == 128);
  BOOST_TEST(plain.local_pref == 0u);
  BOOST_TEST(plain.pools == (std::set<std::string>{"p", "q"}), boost::test_tools::per_element());
  BOOST_TEST(plain.nodes == (std::set<std::string>{"n1", "n2"}), boost::test_tools::per_element());
  BOOST_TEST(plain.peers.empty());
  BOOST_TEST(custom.name == "custom");
  BOOST_TEST(custom.aggregation_length == 24);
  BOOST_TEST(custom.aggregation_length_v6 == 64);
  BOOST_TEST(custom.local_pref == 150u);
  BOOST_TEST(custom.pools == (std::set<std::string>{"q"}), boost::test_tools::per_element());
  BOOST_TEST(custom.nodes == (std::set<std::string>{"n1"}), boost::test_tools::per_element());
  BOOST_TEST(custom.peers == (std::vector<std::string>{"r2", "r1"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(aggregation_length_rules) {
  auto agg = [](std::vector<std::string> addresses, std::optional<int32_t> v4,
                std::optional<int32_t> v6) {
    return withPools({pool("p", std::move(addresses))}, {with(bgp("ad"), [&](auto& a) {
                       a.spec.aggregation_length = v4;
                       a.spec.aggregation_length_v6 = v6;
                     })});
  };
  const std::vector<ErrorCase> cases = {
      {"defaults fit any pool", agg({"10.0.0.0/8", "fc00::/16"}, {}, {}), {}},
      {"length equal to the prefix", agg({"10.0.0.0/24"}, 24, {}), {}},
      {"length longer than the prefix", agg({"10.0.0.0/24"}, 26, {}), {}},
      {"length shorter than the prefix",
       agg({"10.0.0.0/24"}, 16, {}),
       {{kBgp, "ad", "spec.aggregationLength", aggregationError(16, 24, "10.0.0.0/24", "p")}}},
      {"range uses its shortest block", agg({"10.0.0.0-10.0.0.255"}, 24, {}), {}},
      {"unaligned range is as specific as its widest block",
       agg({"10.0.0.1-10.0.0.6"}, 30, {}),
       {{kBgp, "ad", "spec.aggregationLength",
         aggregationError(30, 31, "10.0.0.1-10.0.0.6", "p")}}},
      {"ipv6 length checked against ipv6 entries only",
       agg({"10.0.0.0/24", "fc00::/64"}, 24, 64),
       {}},
      {"ipv6 length shorter than the prefix",
       agg({"10.0.0.0/24", "fc00::/64"}, {}, 48),
       {{kBgp, "ad", "spec.aggregationLengthV6", aggregationError(48, 64, "fc00::/64", "p")}}},
      {"every offending entry is reported",
       agg({"10.0.0.0/24", "10.0.1.0/25"}, 16, {}),
       {{kBgp, "ad", "spec.aggregationLength", aggregationError(16, 24, "10.0.0.0/24", "p")},
        {kBgp, "ad", "spec.aggregationLength", aggregationError(16, 25, "10.0.1.0/25", "p")}}},
      {"ipv4 length zero",
       agg({"10.0.0.0/24"}, 0, {}),
       {{kBgp, "ad", "spec.aggregationLength",
         "invalid aggregation length 0 for IPv4, must be in 1-32 range"}}},
      {"ipv4 length 33",
       agg({"10.0.0.0/24"}, 33, {}),
       {{kBgp, "ad", "spec.aggregationLength",
         "invalid aggregation length 33 for IPv4, must be in 1-32 range"}}},
      {"ipv6 length 129",
       agg({"10.0.0.0/24"}, {}, 129),
       {{kBgp, "ad", "spec.aggregationLengthV6",
         "invalid aggregation length 129 for IPv6, must be at most 128"}}},
      {"ipv6 length zero on an ipv4 pool", agg({"10.0.0.0/24"}, {}, 0), {}},
      {"negative ipv6 length on an ipv4-only pool is accepted, as by MetalLB",
       agg({"10.0.0.0/24"}, {}, -1),
       {}},
      {"negative ipv6 length on a pool with ipv6 addresses",
       agg({"10.0.0.0/24", "fc00::/64"}, {}, -1),
       {{kBgp, "ad", "spec.aggregationLengthV6", aggregationError(-1, 64, "fc00::/64", "p")}}},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(service_selectors_require_default_aggregation) {
  auto ad = [](std::optional<int32_t> v4, std::optional<int32_t> v6) {
    return withPools({pool("p", {"10.0.0.0/16"})}, {with(bgp("ad"), [&](auto& a) {
                       a.spec.service_selectors = {sel({{"app", "web"}})};
                       a.spec.aggregation_length = v4;
                       a.spec.aggregation_length_v6 = v6;
                     })});
  };
  checkErrors({
      {"defaults", ad({}, {}), {}},
      {"explicit defaults", ad(32, 128), {}},
      {"custom ipv4 length", ad(24, {}), {{kBgp, "ad", "spec.serviceSelectors", kMutex}}},
      {"custom ipv6 length", ad({}, 64), {{kBgp, "ad", "spec.serviceSelectors", kMutex}}},
  });
}

BOOST_AUTO_TEST_CASE(communities_resolve_aliases_then_literals) {
  struct Case {
    std::string desc;
    std::vector<std::string> communities;
    std::vector<std::string> want;  ///< toString of the sorted result
  };
  const std::vector<Case> cases = {
      {"standard literal", {"65000:100"}, {"65000:100"}},
      {"large literal", {"large:4200000000:1:2"}, {"large:4200000000:1:2"}},
      {"alias", {"no-export"}, {"65535:65281"}},
      {"alias wins over a literal spelling", {"1:1"}, {"2:2"}},
      {"sorted, standard before large",
       {"large:1:2:3", "65000:2", "65000:1"},
       {"65000:1", "65000:2", "large:1:2:3"}},
      {"alias and literal of the same value collapse",
       {"no-export", "65535:65281"},
       {"65535:65281"}},
      {"bounds",
       {"0:0", "65535:65535", "large:0:0:4294967295"},
       {"0:0", "65535:65535", "large:0:0:4294967295"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Inputs in =
          withPools({pool("p", {"10.0.0.0/24"})},
                    {with(bgp("ad"), [&](auto& a) { a.spec.communities = c.communities; })});
      in.communities = {community("aliases", {{"no-export", "65535:65281"}, {"1:1", "2:2"}})};
      const Config cfg = parseOk(in);
      std::vector<std::string> got;
      for (const auto& v : cfg.bgp_advertisements.at(0).communities) {
        got.push_back(v.toString());
      }
      BOOST_TEST(got == c.want, boost::test_tools::per_element());
      BOOST_TEST(cfg.community_aliases.size() == 2u);
    }
  }
}

BOOST_AUTO_TEST_CASE(community_errors_are_hard_or_transient) {
  auto ad = [](std::vector<std::string> communities) {
    Inputs in = withPools({pool("p", {"10.0.0.0/24"})},
                          {with(bgp("ad"), [&](auto& a) { a.spec.communities = communities; })});
    in.communities = {community("c", {{"known", "1:2"}})};
    return in;
  };
  std::vector<std::string> many;
  many.reserve(64);
  for (int i = 0; i < 64; ++i) {
    many.push_back("65000:" + std::to_string(i));
  }
  const std::vector<ErrorCase> cases = {
      {"unknown alias is transient",
       ad({"known", "unknown"}),
       {{kBgp, "ad", "spec.communities[1]",
         R"(invalid community "unknown" in BGP advertisement: invalid community format: unknown )"
         "(no Community alias with this name either)",
         true}}},
      {"three sections is a format problem, so transient",
       ad({"large:1:2"}),
       {{kBgp, "ad", "spec.communities[0]",
         R"(invalid community "large:1:2" in BGP advertisement: invalid community format: )"
         "large:1:2 (no Community alias with this name either)",
         true}}},
      {"standard section out of range is hard",
       ad({"65536:1"}),
       {{kBgp, "ad", "spec.communities[0]",
         R"(invalid community "65536:1" in BGP advertisement: invalid community value: invalid )"
         R"(section "65536" of community "65536:1", err: "strconv.ParseUint: parsing \"65536\": )"
         R"(value out of range")"}}},
      {"non numeric section is hard",
       ad({"1:x"}),
       {{kBgp, "ad", "spec.communities[0]",
         R"(invalid community "1:x" in BGP advertisement: invalid community value: invalid )"
         R"(section "x" of community "1:x", err: "strconv.ParseUint: parsing \"x\": invalid )"
         R"(syntax")"}}},
      {"large marker misspelt is hard",
       ad({"big:1:2:3"}),
       {{kBgp, "ad", "spec.communities[0]",
         R"(invalid community "big:1:2:3" in BGP advertisement: invalid community value: invalid )"
         "marker for large community, expected community to be of format "
         R"(large:<uint32>:<uint32>:<uint32> but got "big:1:2:3" instead)"}}},
      {"large section out of range is hard",
       ad({"large:1:4294967296:0"}),
       {{kBgp, "ad", "spec.communities[0]",
         R"(invalid community "large:1:4294967296:0" in BGP advertisement: invalid community )"
         R"(value: invalid section "4294967296" of community "large:1:4294967296:0", err: )"
         R"("strconv.ParseUint: parsing \"4294967296\": value out of range")"}}},
      {"duplicate community string",
       ad({"1:2", "3:4", "1:2"}),
       {{kBgp, "ad", "spec.communities[2]", R"(duplicate definition of community "1:2")"}}},
      {"64 communities exceed the frr limit",
       ad(many),
       {{kBgp, "ad", "spec.communities",
         "too many communities: 64, at most 63 are supported per advertisement with FRR"}}},
      {"63 communities are fine", ad(std::vector<std::string>(many.begin(), many.end() - 1)), {}},
      {"the limit does not apply to native", ad(many), {}, Backend::Native},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(local_pref_must_agree_unless_advertisements_are_disjoint) {
  auto two = [](std::vector<std::string> addresses, auto fa, auto fb) {
    Inputs in = withPools({pool("p", std::move(addresses))},
                          {with(with(bgp("a"), [](auto& x) { x.spec.local_pref = 100; }), fa),
                           with(with(bgp("b"), [](auto& x) { x.spec.local_pref = 200; }), fb)});
    in.nodes = {node("n1", {{"rack", "1"}}), node("n2", {{"rack", "2"}})};
    return in;
  };
  const auto none = [](auto&) {};
  const std::vector<std::string> v4 = {"10.0.0.0/24"};
  const std::vector<std::string> dual = {"10.0.0.0/24", "fc00::/64"};
  const std::vector<Want> conflict = {
      {kBgp, "b", "spec.localPref", localPrefError(200, 100, "a", "p")}};
  auto agg = [](int32_t v4_len, int32_t v6_len) {
    return [=](auto& x) {
      x.spec.aggregation_length = v4_len;
      x.spec.aggregation_length_v6 = v6_len;
    };
  };
  auto peers_of = [](std::vector<std::string> p) { return [=](auto& x) { x.spec.peers = p; }; };
  auto rack = [](std::string r) {
    return [=](auto& x) { x.spec.node_selectors = {sel({{"rack", r}})}; };
  };
  const std::vector<ErrorCase> cases = {
      {"same scope, different local pref", two(v4, none, none), conflict},
      {"same local pref", two(v4, none, [](auto& x) { x.spec.local_pref = 100; }), {}},
      {"different ipv4 aggregation on an ipv4 pool", two(v4, agg(32, 128), agg(24, 128)), {}},
      {"only ipv4 aggregation differs on a dual-stack pool", two(dual, agg(32, 128), agg(24, 128)),
       conflict},
      {"both aggregations differ on a dual-stack pool", two(dual, agg(32, 128), agg(24, 64)), {}},
      {"only ipv6 aggregation differs on an ipv4 pool", two(v4, agg(32, 128), agg(32, 64)),
       conflict},
      {"disjoint peers", two(v4, peers_of({"r1"}), peers_of({"r2"})), {}},
      {"a common peer", two(v4, peers_of({"r1", "r2"}), peers_of({"r2"})), conflict},
      {"empty peers means all peers", two(v4, none, peers_of({"r2"})), conflict},
      {"disjoint nodes", two(v4, rack("1"), rack("2")), {}},
      {"a common node", two(v4, rack("1"), none), conflict},
      {"service selectors defer the check to announce time",
       two(v4, none,
           [](auto& x) {
             x.spec.service_selectors = {sel({{"app", "web"}})};
           }),
       {}},
      {"different pools never conflict",
       [] {
         Inputs in = withPools({pool("p", {"10.0.0.0/24"}), pool("q", {"10.0.1.0/24"})},
                               {with(bgp("a", {"p"}), [](auto& x) { x.spec.local_pref = 1; }),
                                with(bgp("b", {"q"}), [](auto& x) { x.spec.local_pref = 2; })});
         return in;
       }(),
       {}},
      {"without nodes node sets never intersect (MetalLB)",
       [] {
         Inputs in = withPools({pool("p", {"10.0.0.0/24"})},
                               {with(bgp("a"), [](auto& x) { x.spec.local_pref = 1; }),
                                with(bgp("b"), [](auto& x) { x.spec.local_pref = 2; })});
         return in;
       }(),
       {}},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(bgp_advertisement_list_errors) {
  auto ad = [](auto f) { return withPools({pool("p", {"10.0.0.0/24"})}, {with(bgp("ad"), f)}); };
  checkErrors({
      {"duplicate pool",
       ad([](auto& a) {
         a.spec.ip_address_pools = {"p", "p"};
       }),
       {{kBgp, "ad", "spec.ipAddressPools[1]", R"(duplicate definition of ipAddressPools "p")"}}},
      {"duplicate peer",
       ad([](auto& a) {
         a.spec.peers = {"r", "s", "r"};
       }),
       {{kBgp, "ad", "spec.peers[2]", R"(duplicate definition of peers "r")"}}},
      {"duplicate node selector",
       ad([](auto& a) {
         a.spec.node_selectors = {sel({{"a", "b"}}), sel({{"a", "b"}})};
       }),
       {{kBgp, "ad", "spec.nodeSelectors[1]", R"(duplicate definition of nodeSelectors "a=b")"}}},
      {"duplicate pool selector",
       ad([](auto& a) {
         a.spec.ip_address_pool_selectors = {expr("t", "Exists", {}), expr("t", "Exists", {})};
       }),
       {{kBgp, "ad", "spec.ipAddressPoolSelectors[1]",
         R"(duplicate definition of ipAddressPoolSelectors "t")"}}},
      {"duplicate name",
       withPools({pool("p", {"10.0.0.0/24"})}, {bgp("ad"), bgp("ad")}),
       {{kBgp, "ad", "metadata.name", R"(duplicate definition of bgpadvertisement "ad")"}}},
  });
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config::testing
