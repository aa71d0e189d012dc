// SPDX-License-Identifier: Apache-2.0
#include <boost/test/unit_test.hpp>

#include "config/tests/fixtures.h"

namespace ingot::config::testing {
namespace {

constexpr char kPool[] = "IPAddressPool";

std::vector<std::string> cidrTexts(const std::vector<net::Cidr>& cidrs) {
  std::vector<std::string> out;
  out.reserve(cidrs.size());
  for (const auto& c : cidrs) {
    out.push_back(c.toString());
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pools)

BOOST_AUTO_TEST_CASE(addresses_are_masked_and_ranges_summarised_per_entry) {
  struct Case {
    std::string desc;
    std::string address;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"cidr host bits are masked off", "10.0.0.7/24", {"10.0.0.0/24"}},
      {"single address as /32", "10.0.0.7/32", {"10.0.0.7/32"}},
      {"unaligned ipv4 range splits into blocks",
       "192.168.1.1-192.168.1.6",
       {"192.168.1.1/32", "192.168.1.2/31", "192.168.1.4/31", "192.168.1.6/32"}},
      {"spaces around range bounds are trimmed", " 10.0.0.0 - 10.0.0.255 ", {"10.0.0.0/24"}},
      {"ipv4 /8 range collapses to one block", "10.0.0.0-10.255.255.255", {"10.0.0.0/8"}},
      {"whole ipv4 space", "0.0.0.0-255.255.255.255", {"0.0.0.0/0"}},
      {"ipv4 upper edge", "255.255.255.254-255.255.255.255", {"255.255.255.254/31"}},
      {"ipv4 lower edge", "0.0.0.0-0.0.0.2", {"0.0.0.0/31", "0.0.0.2/32"}},
      {"single-address range", "10.1.1.1-10.1.1.1", {"10.1.1.1/32"}},
      {"ipv6 /48 range collapses to one block",
       "2001:db8::-2001:db8:0:ffff:ffff:ffff:ffff:ffff",
       {"2001:db8::/48"}},
      {"unaligned ipv6 range",
       "2001:db8::1-2001:db8::4",
       {"2001:db8::1/128", "2001:db8::2/127", "2001:db8::4/128"}},
      {"ipv6 upper edge",
       "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
       {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127"}},
      {"whole ipv6 space", "::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", {"::/0"}},
      {"ipv6 cidr", "fc00:f853:ccd:e799::/124", {"fc00:f853:ccd:e799::/124"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Inputs in;
      in.pools = {pool("p", {c.address})};
      const Config cfg = parseOk(in);
      const Pool& p = cfg.pools.at("p");
      BOOST_TEST(cidrTexts(p.cidrs) == c.want, boost::test_tools::per_element());
      BOOST_REQUIRE(p.entries.size() == 1u);
      BOOST_TEST(cidrTexts(p.entries[0]) == c.want, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(entries_keep_spec_order_and_cidrs_concatenate_them) {
  Inputs in;
  in.pools = {pool("p", {"10.0.1.0/24", "10.0.0.1-10.0.0.2", "fc00::/64"})};
  const Config cfg = parseOk(in);
  const Pool& p = cfg.pools.at("p");
  BOOST_REQUIRE(p.entries.size() == 3u);
  BOOST_TEST(cidrTexts(p.entries[1]) == (std::vector<std::string>{"10.0.0.1/32", "10.0.0.2/32"}),
             boost::test_tools::per_element());
  BOOST_TEST(cidrTexts(p.cidrs) == (std::vector<std::string>{"10.0.1.0/24", "10.0.0.1/32",
                                                             "10.0.0.2/32", "fc00::/64"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(address_errors_name_pool_entry_and_reason) {
  auto two = [](api::IPAddressPool a, api::IPAddressPool b) {
    Inputs in;
    in.pools = {std::move(a), std::move(b)};
    return in;
  };
  auto one = [](api::IPAddressPool a) {
    Inputs in;
    in.pools = {std::move(a)};
    return in;
  };
  const std::vector<ErrorCase> cases = {
      {"adjacent pools do not overlap",
       two(pool("a", {"10.0.0.0/25"}), pool("b", {"10.0.0.128/25"})),
       {}},
      {"ipv4 and ipv6 with equal bits do not overlap",
       two(pool("a", {"0.0.0.0/0"}), pool("b", {"::/0"})),
       {}},
      {"a bare ip is not a cidr",
       one(pool("p", {"10.0.0.1"})),
       {{kPool, "p", "spec.addresses[0]",
         R"(invalid CIDR "10.0.0.1" in pool "p": invalid CIDR "10.0.0.1": missing prefix length)"}}},
      {"garbage entry",
       one(pool("p", {"10.0.0.0/24", "pool"})),
       {{kPool, "p", "spec.addresses[1]",
         R"(invalid CIDR "pool" in pool "p": invalid CIDR "pool": missing prefix length)"}}},
      {"prefix length too long",
       one(pool("p", {"10.0.0.0/33"})),
       {{kPool, "p", "spec.addresses[0]",
         R"(invalid CIDR "10.0.0.0/33" in pool "p": invalid CIDR "10.0.0.0/33": bad prefix length)"}}},
      {"reversed range",
       one(pool("p", {"10.0.0.5-10.0.0.1"})),
       {{kPool, "p", "spec.addresses[0]",
         R"(invalid CIDR "10.0.0.5-10.0.0.1" in pool "p": invalid IP range "10.0.0.5-10.0.0.1": )"
         "range start 10.0.0.5 is after range end 10.0.0.1"}}},
      {"range across families",
       one(pool("p", {"10.0.0.1-::1"})),
       {{kPool, "p", "spec.addresses[0]",
         R"(invalid CIDR "10.0.0.1-::1" in pool "p": invalid IP range "10.0.0.1-::1": )"
         "range boundaries 10.0.0.1 and ::1 are of different families"}}},
      {"range with a bad end",
       one(pool("p", {"10.0.0.1-10.0.0"})),
       {{kPool, "p", "spec.addresses[0]",
         R"(invalid CIDR "10.0.0.1-10.0.0" in pool "p": invalid IP range "10.0.0.1-10.0.0": )"
         R"(invalid end IP "10.0.0")"}}},
      {"no addresses",
       one(pool("p", {})),
       {{kPool, "p", "spec.addresses", "pool has no prefixes defined"}}},
      {"overlap across pools names the later pool by name order",
       two(pool("b", {"10.0.0.128/25"}), pool("a", {"10.0.0.0/24"})),
       {{kPool, "b", "spec.addresses[0]",
         R"(CIDR "10.0.0.128/25" in pool "b" overlaps with already defined CIDR "10.0.0.0/24")"}}},
      {"overlap inside one pool",
       one(pool("p", {"10.0.0.0/24", "10.0.0.7/24"})),
       {{kPool, "p", "spec.addresses[1]",
         R"(CIDR "10.0.0.0/24" in pool "p" overlaps with already defined CIDR "10.0.0.0/24")"}}},
      {"range block overlapping a cidr",
       two(pool("a", {"10.0.0.0/30"}), pool("b", {"10.0.0.3-10.0.0.4"})),
       {{kPool, "b", "spec.addresses[0]",
         R"(CIDR "10.0.0.3/32" in pool "b" overlaps with already defined CIDR "10.0.0.0/30")"}}},
      {"ipv6 overlap",
       two(pool("a", {"2001:db8::/64"}), pool("b", {"2001:db8::/48"})),
       {{kPool, "b", "spec.addresses[0]",
         R"(CIDR "2001:db8::/48" in pool "b" overlaps with already defined CIDR "2001:db8::/64")"}}},
      {"duplicate pool name",
       two(pool("p", {"10.0.0.0/24"}), pool("p", {"10.0.1.0/24"})),
       {{kPool, "p", "metadata.name", R"(duplicate definition of pool "p")"}}},
      {"missing pool name",
       one(pool("", {"10.0.0.0/24"})),
       {{kPool, "", "metadata.name", "missing pool name"}}},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(overlap_names_the_earliest_defined_cidr) {
  auto covering = [](std::vector<std::string> first_pool) {
    Inputs in;
    in.pools = {pool("a", std::move(first_pool)), pool("c", {"10.0.0.0/24"})};
    return in;
  };
  const std::string prefix =
      R"(CIDR "10.0.0.0/24" in pool "c" overlaps with already defined CIDR )";
  checkErrors({
      {"lower block defined first",
       covering({"10.0.0.0/26", "10.0.0.64/26"}),
       {{kPool, "c", "spec.addresses[0]", prefix + R"("10.0.0.0/26")"}}},
      {"higher block defined first",
       covering({"10.0.0.64/26", "10.0.0.0/26"}),
       {{kPool, "c", "spec.addresses[0]", prefix + R"("10.0.0.64/26")"}}},
      {"blocks around a gap",
       covering({"10.0.0.128/26", "10.0.0.8/29", "10.0.0.250/31"}),
       {{kPool, "c", "spec.addresses[0]", prefix + R"("10.0.0.128/26")"}}},
  });
}

BOOST_AUTO_TEST_CASE(every_bad_entry_of_every_pool_is_reported) {
  Inputs in;
  in.pools = {pool("a", {"bad", "10.0.0.0/24", "10.0.0.0/25"}), pool("b", {}),
              pool("c", {"10.0.0.8/29"})};
  checkErrors({{"three pools, four problems",
                in,
                {{kPool, "a", "spec.addresses[0]",
                  R"(invalid CIDR "bad" in pool "a": invalid CIDR "bad": missing prefix length)"},
                 {kPool, "a", "spec.addresses[2]",
                  R"(CIDR "10.0.0.0/25" in pool "a" overlaps with already defined CIDR )"
                  R"("10.0.0.0/24")"},
                 {kPool, "b", "spec.addresses", "pool has no prefixes defined"},
                 {kPool, "c", "spec.addresses[0]",
                  R"(CIDR "10.0.0.8/29" in pool "c" overlaps with already defined CIDR )"
                  R"("10.0.0.0/24")"}}}});
}

BOOST_AUTO_TEST_CASE(auto_assign_defaults_to_true_and_flags_are_copied) {
  Inputs in;
  in.pools = {pool("default", {"10.0.0.0/24"}),
              with(pool("manual", {"10.0.1.0/24"}, {{"tier", "gold"}}),
                   [](auto& p) {
                     p.spec.auto_assign = false;
                     p.spec.avoid_buggy_ips = true;
                   }),
              with(pool("explicit", {"10.0.2.0/24"}), [](auto& p) { p.spec.auto_assign = true; })};
  const Config cfg = parseOk(in);
  BOOST_TEST(cfg.pools.at("default").auto_assign);
  BOOST_TEST(!cfg.pools.at("default").avoid_buggy_ips);
  BOOST_TEST(!cfg.pools.at("default").allocation.has_value());
  BOOST_TEST(!cfg.pools.at("manual").auto_assign);
  BOOST_TEST(cfg.pools.at("manual").avoid_buggy_ips);
  BOOST_TEST(cfg.pools.at("manual").labels == (api::StringMap{{"tier", "gold"}}));
  BOOST_TEST(cfg.pools.at("explicit").auto_assign);
}

BOOST_AUTO_TEST_CASE(service_allocation_resolves_namespaces_against_labels) {
  struct Case {
    std::string desc;
    api::ServiceAllocation alloc;
    std::set<std::string> want_namespaces;
    bool want_constraint;
    size_t want_service_selectors;
  };
  const std::vector<Case> cases = {
      {"listed namespaces only", {5, {"a", "b"}, {}, {}}, {"a", "b"}, true, 0},
      {"selector matches by label",
       {0, {}, {sel({{"team", "red"}})}, {}},
       {"red1", "red2"},
       true,
       0},
      {"namespaces and selectors form a union",
       {0, {"z"}, {sel({{"team", "blue"}})}, {}},
       {"blue1", "z"},
       true,
       0},
      {"selectors are ORed",
       {0, {}, {sel({{"team", "blue"}}), expr("team", "In", {"red"})}, {}},
       {"blue1", "red1", "red2"},
       true,
       0},
      {"selector matching nothing still constrains",
       {0, {}, {sel({{"team", "green"}})}, {}},
       {},
       true,
       0},
      {"service selectors alone do not constrain namespaces",
       {1, {}, {}, {sel({{"app", "web"}}), sel({{"app", "db"}})}},
       {},
       false,
       2},
      {"priority only", {3, {}, {}, {}}, {}, false, 0},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Inputs in;
      in.pools = {
          with(pool("p", {"10.0.0.0/24"}), [&](auto& p) { p.spec.service_allocation = c.alloc; })};
      in.namespaces = {ns("red1", {{"team", "red"}}), ns("red2", {{"team", "red"}}),
                       ns("blue1", {{"team", "blue"}}), ns("plain")};
      const Config cfg = parseOk(in);
      const auto& alloc = cfg.pools.at("p").allocation;
      BOOST_REQUIRE(alloc.has_value());
      BOOST_TEST(alloc->priority == c.alloc.priority);
      BOOST_TEST(alloc->namespaces == c.want_namespaces, boost::test_tools::per_element());
      BOOST_TEST(alloc->has_namespace_constraint == c.want_constraint);
      BOOST_TEST(alloc->service_selectors.size() == c.want_service_selectors);
    }
  }
}

BOOST_AUTO_TEST_CASE(service_allocation_duplicates_and_bad_selectors_are_rejected) {
  auto with_alloc = [](api::ServiceAllocation a) {
    Inputs in;
    in.pools = {with(pool("p", {"10.0.0.0/24"}), [&](auto& p) { p.spec.service_allocation = a; })};
    return in;
  };
  const std::string ns_sel = "spec.serviceAllocation.namespaceSelectors";
  const std::string svc_sel = "spec.serviceAllocation.serviceSelectors";
  const std::vector<ErrorCase> cases = {
      {"duplicate namespace",
       with_alloc({0, {"a", "b", "a"}, {}, {}}),
       {{kPool, "p", "spec.serviceAllocation.namespaces[2]",
         "duplicate definition in namespaces field"}}},
      {"duplicate namespace selector",
       with_alloc({0, {}, {sel({{"a", "1"}}), sel({{"a", "1"}})}, {}}),
       {{kPool, "p", ns_sel + "[1]", R"(duplicate definition of namespaceSelectors "a=1")"}}},
      {"selectors equal up to value order are duplicates",
       with_alloc({0, {}, {}, {expr("app", "In", {"a", "b"}), expr("app", "In", {"b", "a"})}}),
       {{kPool, "p", svc_sel + "[1]",
         R"x(duplicate definition of serviceSelectors "app in (a,b)")x"}}},
      {"duplicate match expression",
       with_alloc(
           {0, {}, {}, {api::LabelSelector{{}, {{"k", "Exists", {}}, {"k", "Exists", {}}}}}}),
       {{kPool, "p", svc_sel + "[0].matchExpressions[1]",
         R"(duplicate definition of match expressions "k")"}}},
      {"duplicate value in one expression",
       with_alloc({0, {}, {expr("team", "In", {"x", "y", "x"})}, {}}),
       {{kPool, "p", ns_sel + "[0].matchExpressions[0].values[2]",
         R"(duplicate definition of match expression value in label selector "x")"}}},
      {"unknown operator",
       with_alloc({0, {}, {expr("team", "Like", {"x"})}, {}}),
       {{kPool, "p", ns_sel + "[0]",
         R"(invalid label selector: "Like" is not a valid label selector operator (key "team"))"}}},
      {"distinct selectors are fine",
       with_alloc({0,
                   {"a"},
                   {sel({{"a", "1"}}), sel({{"a", "2"}})},
                   {expr("k", "In", {"x"}), expr("k", "NotIn", {"x"})}}),
       {}},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config::testing
