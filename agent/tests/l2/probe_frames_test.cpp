// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/probe_frames.h"

#include <boost/test/unit_test.hpp>

#include "agent/l2/core/arp_codec.h"
#include "agent/tests/l2/fixtures.h"

namespace l2 = ingot::agent::l2;
namespace net = ingot::net;
using l2::test::ip;
using l2::test::kOwn;
using l2::test::kRogue;

namespace {

// RFC 5227 probe for 192.0.2.100 from 02:aa:00:00:00:01.
const l2::Bytes kArpProbe = l2::test::hex(
    "ffffffffffff 02aa00000001 0806"  // Ethernet: broadcast, from us, ARP
    "0001 0800 06 04 0001"            // Ethernet/IPv4, request
    "02aa00000001 00000000"           // sender: our MAC, 0.0.0.0
    "000000000000 c0000264");         // target: zero MAC, 192.0.2.100

// RFC 4862 DAD solicitation for fd00::64 from 02:aa:00:00:00:01.
const l2::Bytes kDad = l2::test::hex(
    "3333ff000064 02aa00000001 86dd"      // to the solicited-node group's MAC
    "60000000 0018 3a ff"                 // IPv6: 24 bytes of ICMPv6, hop limit 255
    "00000000000000000000000000000000"    // from ::
    "ff0200000000000000000001ff000064"    // to ff02::1:ff00:64
    "87 00 7cdf 00000000"                 // Neighbor Solicitation, checksum
    "fd000000000000000000000000000064");  // target, no options

// Linux's answer to a DAD probe: an NA to all nodes, Override, target link-layer 02:cc::03.
const l2::Bytes kAdvert = l2::test::hex(
    "333300000001 02cc00000003 86dd"
    "60000000 0020 3a ff"
    "fd000000000000000000000000000064"
    "ff020000000000000000000000000001"
    "88 00 5907 20000000"
    "fd000000000000000000000000000064"
    "02 01 02cc00000003");

// Linux's answer to an ARP probe: a reply from the owner of 192.0.2.100 to the prober, with
// target IP 0.0.0.0, then Ethernet padding.
const l2::Bytes kArpProbeReply = l2::test::hex(
    "02aa00000001 02cc00000003 0806"
    "0001 0800 06 04 0002"
    "02cc00000003 c0000264"
    "02aa00000001 00000000"
    "000000000000000000000000000000000000");

}  // namespace

BOOST_AUTO_TEST_SUITE(probe_frames)

BOOST_AUTO_TEST_CASE(arp_probe_is_byte_exact) {
  BOOST_TEST(l2::arpProbe(kOwn, {192, 0, 2, 100}) == kArpProbe, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(dad_solicit_is_byte_exact) {
  l2::Ip6 target{};
  target[0] = 0xfd;
  target[15] = 0x64;
  BOOST_TEST(l2::dadSolicit(kOwn, target) == kDad, boost::test_tools::per_element());
}

struct ClaimCase {
  const char* desc;
  l2::Bytes frame;
  bool arp;
  std::optional<l2::Claim> want;
};

BOOST_AUTO_TEST_CASE(claims_read_from_frames) {
  const std::vector<ClaimCase> cases = {
      {"arp reply from the owner", kArpProbeReply, true,
       l2::Claim{ip("192.0.2.100"), kRogue, false}},
      {"arp probe of another host", kArpProbe, true, l2::Claim{ip("192.0.2.100"), kOwn, true}},
      {"gratuitous arp", l2::gratuitousArp(kRogue, {192, 0, 2, 100}, l2::kArpRequest), true,
       l2::Claim{ip("192.0.2.100"), kRogue, false}},
      {"truncated arp", l2::Bytes(kArpProbe.begin(), kArpProbe.begin() + 30), true, std::nullopt},
      {"neighbor advertisement", kAdvert, false, l2::Claim{ip("fd00::64"), kRogue, false}},
      {"dad solicitation of another host", kDad, false, l2::Claim{ip("fd00::64"), kOwn, true}},
      {"ipv6 frame read as arp", kAdvert, true, std::nullopt},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto got = c.arp ? l2::arpClaim(c.frame) : l2::ndpClaim(c.frame);
      BOOST_TEST(got.has_value() == c.want.has_value());
      if (got && c.want) {
        BOOST_TEST((*got == *c.want));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(advert_without_option_claims_at_the_ethernet_source) {
  l2::Bytes frame = kAdvert;
  frame.resize(frame.size() - 8);  // drop the target link-layer option
  frame[19] = 0x18;                // IPv6 payload length: 24
  frame[56] = 0x5d;                // ICMPv6 checksum without the option
  frame[57] = 0xdf;
  const auto got = l2::ndpClaim(frame);
  BOOST_REQUIRE(got.has_value());
  BOOST_TEST((got->mac == kRogue));
}

BOOST_AUTO_TEST_SUITE_END()
