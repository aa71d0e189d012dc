// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_config
#include <algorithm>
#include <random>

#include <boost/test/unit_test.hpp>

#include "config/internal.h"
#include "config/tests/fixtures.h"

namespace ingot::config::testing {
namespace {

/// rich is a valid configuration touching every kind and every resolution.
Inputs rich() {
  Inputs in;
  in.nodes = {node("n1", {{"rack", "1"}}), node("n2", {{"rack", "2"}}),
              node("n3", {{"rack", "1"}})};
  in.namespaces = {ns("web", {{"team", "a"}}), ns("db", {{"team", "b"}}), ns("ops")};
  in.pools = {
      pool("gold", {"10.0.0.0/24", "fc00::/120"}, {{"tier", "gold"}}),
      with(pool("silver", {"10.0.1.10-10.0.1.20"}, {{"tier", "silver"}}),
           [](auto& p) {
             p.spec.service_allocation =
                 api::ServiceAllocation{1, {"ops"}, {sel({{"team", "a"}})}, {sel({{"app", "x"}})}};
           }),
      with(pool("manual", {"192.168.0.0/16"}), [](auto& p) { p.spec.auto_assign = false; })};
  in.bfd_profiles = {bfd("slow"), with(bfd("fast"), [](auto& b) { b.spec.detect_multiplier = 3; })};
  in.secrets = {secret("auth", "kubernetes.io/basic-auth", {{"password", "cHc="}})};
  in.peers = {with(peer("tor1", 64500, 64501, "10.1.0.1"),
                   [](auto& p) {
                     p.spec.bfd_profile = "fast";
                     p.spec.hold_time = dur("9s", 9000);
                     p.spec.node_selectors = {sel({{"rack", "1"}})};
                   }),
              with(peer("tor2", 64500, 64502, "10.1.0.2"), [](auto& p) {
                p.spec.password_secret = api::SecretReference{"auth", kNs};
              })};
  in.communities = {community("c1", {{"gold-comm", "65000:1"}}),
                    community("c2", {{"big", "large:1:2:3"}})};
  in.l2_advertisements = {
      with(l2("l2-b", {"manual"}), [](auto& a) { a.spec.interfaces = {"eth0"}; }),
      with(l2("l2-a"), [](auto& a) {
        a.spec.ip_address_pool_selectors = {sel({{"tier", "silver"}})};
        a.spec.preferred_node_selectors = {{50, sel({{"rack", "2"}})}};
      })};
  in.bgp_advertisements = {with(bgp("bgp-z", {"gold"}),
                                [](auto& a) {
                                  a.spec.communities = {"big", "gold-comm", "65000:9"};
                                  a.spec.local_pref = 100;
                                  a.spec.peers = {"tor1"};
                                }),
                           with(bgp("bgp-a", {"gold", "manual"}), [](auto& a) {
                             a.spec.aggregation_length = 24;
                             a.spec.aggregation_length_v6 = 120;
                             a.spec.node_selectors = {sel({{"rack", "2"}})};
                           })};
  return in;
}

template <typename T>
void shuffle(std::vector<T>& v, std::mt19937& rng) {
  std::shuffle(v.begin(), v.end(), rng);
}

Inputs shuffled(Inputs in, unsigned seed) {
  std::mt19937 rng(seed);
  shuffle(in.pools, rng);
  shuffle(in.l2_advertisements, rng);
  shuffle(in.bgp_advertisements, rng);
  shuffle(in.peers, rng);
  shuffle(in.bfd_profiles, rng);
  shuffle(in.communities, rng);
  shuffle(in.nodes, rng);
  shuffle(in.namespaces, rng);
  shuffle(in.secrets, rng);
  return in;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(parser)

BOOST_AUTO_TEST_CASE(empty_inputs_give_an_empty_config) {
  const Config cfg = parseOk(Inputs{});
  BOOST_TEST(cfg.pools.empty());
  BOOST_TEST(cfg.peers.empty());
  BOOST_TEST(cfg.l2_advertisements.empty());
  BOOST_TEST(cfg.bgp_advertisements.empty());
  BOOST_TEST(cfg.bfd_profiles.empty());
  BOOST_TEST(cfg.community_aliases.empty());
}

BOOST_AUTO_TEST_CASE(rich_configuration_resolves_every_reference) {
  const Config cfg = parseOk(rich());
  BOOST_TEST(cfg.pools.size() == 3u);
  BOOST_TEST(cfg.pools.at("silver").allocation->namespaces == (std::set<std::string>{"ops", "web"}),
             boost::test_tools::per_element());
  BOOST_TEST(cfg.peers.at("tor1").nodes == (std::set<std::string>{"n1", "n3"}),
             boost::test_tools::per_element());
  BOOST_TEST(cfg.peers.at("tor1").keepalive_time->count() == ms(3000).count());
  BOOST_TEST(cfg.peers.at("tor2").secret_password == "pw");
  BOOST_REQUIRE(cfg.l2_advertisements.size() == 2u);
  BOOST_TEST(cfg.l2_advertisements[0].name == "l2-a");
  BOOST_TEST(cfg.l2_advertisements[0].pools == (std::set<std::string>{"silver"}),
             boost::test_tools::per_element());
  BOOST_TEST(cfg.l2_advertisements[0].preferred_nodes.at(0).nodes == (std::set<std::string>{"n2"}),
             boost::test_tools::per_element());
  BOOST_REQUIRE(cfg.bgp_advertisements.size() == 2u);
  const auto& z = cfg.bgp_advertisements[1];
  BOOST_TEST(z.name == "bgp-z");
  std::vector<std::string> comms;
  for (const auto& c : z.communities) {
    comms.push_back(c.toString());
  }
  BOOST_TEST(comms == (std::vector<std::string>{"65000:1", "65000:9", "large:1:2:3"}),
             boost::test_tools::per_element());
  BOOST_TEST(cfg.bgp_advertisements[0].nodes == (std::set<std::string>{"n2"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(shuffled_inputs_give_an_identical_config) {
  const Config reference = parseOk(rich());
  for (unsigned seed = 1; seed <= 20; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      const auto out = run(shuffled(rich(), seed));
      BOOST_REQUIRE(out.config != nullptr);
      BOOST_TEST((*out.config == reference));
    }
  }
}

BOOST_AUTO_TEST_CASE(shuffled_invalid_inputs_give_identical_errors) {
  Inputs bad = rich();
  bad.pools.push_back(pool("overlap", {"10.0.0.128/25"}));
  bad.peers.push_back(peer("broken", 0, 1, "x"));
  bad.bgp_advertisements.push_back(
      with(bgp("missing-alias"), [](auto& a) { a.spec.communities = {"nope"}; }));
  const auto reference = run(bad);
  BOOST_TEST(reference.errors.size() == 4u);
  for (unsigned seed = 1; seed <= 20; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      const auto out = run(shuffled(bad, seed));
      BOOST_TEST(errorLines(out.errors) == errorLines(reference.errors),
                 boost::test_tools::per_element());
      BOOST_TEST(out.config == nullptr);
    }
  }
}

BOOST_AUTO_TEST_CASE(errors_from_every_kind_are_collected_in_parse_order) {
  Inputs in;
  in.bfd_profiles = {with(bfd("b"), [](auto& b) { b.spec.minimum_ttl = 0; })};
  in.peers = {peer("p", 0, 1, "10.0.0.1")};
  in.pools = {pool("pool", {})};
  in.communities = {community("c", {{"x", "1"}})};
  in.l2_advertisements = {with(l2("l2"), [](auto& a) { a.spec.ip_address_pools = {"a", "a"}; })};
  in.bgp_advertisements = {with(bgp("bgp"), [](auto& a) { a.spec.aggregation_length = 40; })};
  checkErrors({{"one problem per kind",
                in,
                {{"BFDProfile", "b", "spec.minimumTtl", "invalid value 0, must be in 1-254 range"},
                 {"BGPPeer", "p", "spec.myASN", "missing local ASN"},
                 {"IPAddressPool", "pool", "spec.addresses", "pool has no prefixes defined"},
                 {"Community", "c", "spec.communities[0].value",
                  R"(parsing community "x": invalid community format: 1)"},
                 {"L2Advertisement", "l2", "spec.ipAddressPools[1]",
                  R"(duplicate definition of ipAddressPools "a")"},
                 {"BGPAdvertisement", "bgp", "spec.aggregationLength",
                  "invalid aggregation length 40 for IPv4, must be in 1-32 range"}}}});
}

BOOST_AUTO_TEST_CASE(transient_errors_are_flagged_and_hard_ones_are_not) {
  Inputs in;
  in.peers = {with(peer("p", 1, 2, "10.0.0.1"), [](auto& p) {
    p.spec.bfd_profile = "later";
    p.spec.password_secret = api::SecretReference{"later", kNs};
  })};
  in.pools = {pool("pool", {"10.0.0.0/24"})};
  in.bgp_advertisements = {with(bgp("ad"), [](auto& a) { a.spec.communities = {"later"}; })};
  const auto out = run(in);
  BOOST_REQUIRE(out.errors.size() == 3u);
  BOOST_TEST(std::all_of(out.errors.begin(), out.errors.end(),
                         [](const ConfigError& e) { return e.transient; }));
  BOOST_TEST(out.config == nullptr);
  in.peers[0].spec.my_asn = 0;
  const auto mixed = run(in);
  BOOST_TEST(std::count_if(mixed.errors.begin(), mixed.errors.end(),
                           [](const ConfigError& e) { return !e.transient; }) == 1);
}

BOOST_AUTO_TEST_CASE(quote_matches_go_percent_q_for_ascii) {
  using detail::goQuote;
  BOOST_TEST(goQuote("abc") == "\"abc\"");
  BOOST_TEST(goQuote("") == "\"\"");
  BOOST_TEST(goQuote("a\"b\\c") == R"("a\"b\\c")");
  BOOST_TEST(goQuote("a\nb\tc") == R"("a\nb\tc")");
  BOOST_TEST(goQuote(std::string("\x01\x7f", 2)) == R"("\x01\x7f")");
}

BOOST_AUTO_TEST_CASE(go_duration_strings) {
  struct Case {
    std::string desc;
    int64_t ns;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"zero", 0, "0s"},
      {"nanoseconds", 999, "999ns"},
      {"microseconds", 1500, "1.5\u00b5s"},
      {"milliseconds", 300000000, "300ms"},
      {"fractional milliseconds", 1500000, "1.5ms"},
      {"seconds", 3000000000, "3s"},
      {"fractional seconds", 1500000000, "1.5s"},
      {"minutes", 90000000000, "1m30s"},
      {"hours", 3600000000000, "1h0m0s"},
      {"everything", 3723500000000, "1h2m3.5s"},
      {"negative", -1500000000, "-1.5s"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(detail::goDuration(std::chrono::nanoseconds(c.ns)) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(base64_decoding) {
  struct Case {
    std::string desc;
    std::string in;
    bool ok;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"empty", "", true, ""},
      {"padded", "cGFzcw==", true, "pass"},
      {"unpadded (Go's StdEncoding requires padding)", "cGFzcw", false, ""},
      {"full group", "YWJj", true, "abc"},
      {"plus and slash", "+/8=", true, std::string("\xfb\xff", 2)},
      {"bad character", "cG!z", false, ""},
      {"truncated group", "cGFzc", false, ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto got = detail::decodeBase64(c.in);
      BOOST_TEST(got.has_value() == c.ok);
      if (got) {
        BOOST_TEST(*got == c.want);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config::testing
