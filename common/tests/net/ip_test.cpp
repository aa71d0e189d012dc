// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_net
#include "common/net/ip.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

using ingot::net::Cidr;
using ingot::net::IpAddress;
using ingot::net::U128;

namespace {

std::vector<std::string> toStrings(const std::vector<Cidr>& cidrs) {
  std::vector<std::string> out;
  out.reserve(cidrs.size());
  for (const auto& c : cidrs) {
    out.push_back(c.toString());
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ip)

BOOST_AUTO_TEST_CASE(formats_addresses_as_go_net_ip_string) {
  struct Case {
    std::string in;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"192.168.1.10", "192.168.1.10"},
      {"0.0.0.0", "0.0.0.0"},
      {"255.255.255.255", "255.255.255.255"},
      {"::", "::"},
      {"::1", "::1"},
      {"2001:DB8::1", "2001:db8::1"},
      {"2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"},       // longest run wins
      {"2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},     // first run wins a tie
      {"2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"},  // a single zero group stays
      {"::192.0.2.1", "::c000:201"},                     // no dotted tail, unlike inet_ntop
      {"::ffff:1.2.3.4", "1.2.3.4"},                     // IPv4-mapped is IPv4
      {"fd00:0:0:0:0:0:0:0", "fd00::"},
      {"1:0:0:0:0:0:0:0", "1::"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.in) {
      auto ip = IpAddress::parse(c.in);
      BOOST_TEST_REQUIRE(ip.has_value());
      BOOST_TEST(ip->toString() == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_malformed_addresses) {
  for (const std::string bad : {"", "1.2.3", "1.2.3.256", "01.2.3.4", "1.2.3.4/32", "::g", "1:2",
                                " 1.2.3.4", "fe80::1%eth0", "1.2.3.4.5", "abc"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!IpAddress::parse(bad).has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(orders_ipv4_before_ipv6) {
  auto v4 = IpAddress::parse("255.255.255.255").value();
  auto v6 = IpAddress::parse("::").value();
  BOOST_TEST((v4 < v6));
  BOOST_TEST((IpAddress::parse("10.0.0.1").value() < IpAddress::parse("10.0.0.2").value()));
}

BOOST_AUTO_TEST_CASE(cidr_masks_host_bits_and_checks_length) {
  auto c = Cidr::parse("10.0.0.7/24").value();
  BOOST_TEST(c.toString() == "10.0.0.0/24");
  BOOST_TEST(c.last().toString() == "10.0.0.255");
  BOOST_TEST((c.size() == U128{256}));
  BOOST_TEST(c.contains(IpAddress::parse("10.0.0.255").value()));
  BOOST_TEST(!c.contains(IpAddress::parse("10.0.1.0").value()));
  BOOST_TEST(!c.contains(IpAddress::parse("::a00:1").value()));
  BOOST_TEST((Cidr::parse("::/0").value().size() == ~U128{0}));
  BOOST_TEST(Cidr::parse("2001:db8::/48").value().last().toString() ==
             "2001:db8:0:ffff:ffff:ffff:ffff:ffff");
  for (const std::string bad :
       {"10.0.0.0", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/a", "10.0.0.0/08", "x/24"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!Cidr::parse(bad).has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(cidr_overlap) {
  auto a = Cidr::parse("10.0.0.0/24").value();
  BOOST_TEST(a.overlaps(Cidr::parse("10.0.0.128/25").value()));
  BOOST_TEST(a.overlaps(Cidr::parse("10.0.0.0/8").value()));
  BOOST_TEST(!a.overlaps(Cidr::parse("10.0.1.0/24").value()));
  BOOST_TEST(!a.overlaps(Cidr::parse("::/0").value()));
}

BOOST_AUTO_TEST_CASE(summarizes_ranges_minimally) {
  struct Case {
    std::string in;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"192.168.1.0-192.168.1.255", {"192.168.1.0/24"}},
      {"192.168.1.1-192.168.1.1", {"192.168.1.1/32"}},
      {"10.0.0.1 - 10.0.0.6", {"10.0.0.1/32", "10.0.0.2/31", "10.0.0.4/31", "10.0.0.6/32"}},
      {"0.0.0.0-255.255.255.255", {"0.0.0.0/0"}},
      {"255.255.255.254-255.255.255.255", {"255.255.255.254/31"}},
      {"::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", {"::/0"}},
      {"fc00::-fc00::ffff", {"fc00::/112"}},
      {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
       {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127"}},
      {"2001:db8::1-2001:db8::2", {"2001:db8::1/128", "2001:db8::2/128"}},
      {"10.0.0.0/8", {"10.0.0.0/8"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.in) {
      auto got = ingot::net::parseCidrOrRange(c.in);
      BOOST_TEST_REQUIRE(got.has_value(), (got ? "" : got.error().message));
      BOOST_TEST(toStrings(*got) == c.want, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_bad_ranges) {
  for (const std::string bad : {"10.0.0.9-10.0.0.1", "10.0.0.1-fc00::1", "10.0.0.1-", "-10.0.0.1",
                                "10.0.0.1-10.0.0.x", "10.0.0.1"}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_TEST(!ingot::net::parseCidrOrRange(bad).has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(formats_u128) {
  BOOST_TEST(ingot::net::u128ToString(0) == "0");
  BOOST_TEST(ingot::net::u128ToString(~U128{0}) == "340282366920938463463374607431768211455");
}

BOOST_AUTO_TEST_SUITE_END()
