// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/arp_codec.h"

#include <boost/test/unit_test.hpp>

#include "agent/tests/l2/fixtures.h"

namespace l2 = ingot::agent::l2;
using l2::DropReason;
using l2::test::kOwn;
using l2::test::kPeer;

namespace {

const l2::Ip4 kVip = {192, 0, 2, 100};
const l2::Ip4 kPeerIp = {192, 0, 2, 1};

bool ownsVip(const l2::Ip4& ip) {
  return ip == kVip;
}

// A broadcast who-has 192.0.2.100 tell 192.0.2.1 from 02:bb:00:00:00:02, as arping sends it,
// followed by 18 bytes of Ethernet padding.
const l2::Bytes kRequest = l2::test::hex(
    "ffffffffffff 02bb00000002 0806"  // Ethernet: broadcast, from the peer, ARP
    "0001 0800 06 04 0001"            // Ethernet/IPv4, request
    "02bb00000002 c0000201"           // sender: peer MAC, 192.0.2.1
    "000000000000 c0000264"           // target: unknown MAC, 192.0.2.100
    "000000000000000000000000000000000000");

}  // namespace

BOOST_AUTO_TEST_SUITE(arp_codec)

BOOST_AUTO_TEST_CASE(parses_a_request_ignoring_padding) {
  auto parsed = l2::parseArp(kRequest);
  BOOST_REQUIRE(std::holds_alternative<l2::ArpPacket>(parsed));
  const auto& p = std::get<l2::ArpPacket>(parsed);
  BOOST_TEST(p.op == l2::kArpRequest);
  BOOST_TEST((p.eth_dst == l2::kBroadcastMac));
  BOOST_TEST((p.sender_mac == kPeer));
  BOOST_TEST((p.sender_ip == kPeerIp));
  BOOST_TEST((p.target_ip == kVip));
}

BOOST_AUTO_TEST_CASE(answers_an_owned_address_with_the_interface_mac) {
  auto d = l2::processArpRequest(kRequest, kOwn, ownsVip);
  BOOST_REQUIRE(d.reply.has_value());
  const l2::Bytes want = l2::test::hex(
      "02bb00000002 02aa00000001 0806"  // to the requester, from our MAC
      "0001 0800 06 04 0002"            // reply
      "02aa00000001 c0000264"           // sender: our MAC, the VIP
      "02bb00000002 c0000201");         // target: the requester
  BOOST_TEST(*d.reply == want, boost::test_tools::per_element());
  BOOST_TEST((d.target == kVip));
}

BOOST_AUTO_TEST_CASE(every_unanswered_path_has_its_reason) {
  struct Case {
    const char* name;
    l2::Bytes frame;
    DropReason want;
    l2::Delivery delivery = l2::Delivery::ForUs;
  };
  auto edit = [](size_t at, std::initializer_list<uint8_t> bytes) {
    l2::Bytes f = kRequest;
    std::copy(bytes.begin(), bytes.end(), f.begin() + static_cast<std::ptrdiff_t>(at));
    return f;
  };
  const std::vector<Case> cases = {
      {"short ethernet", l2::Bytes(kRequest.begin(), kRequest.begin() + 10), DropReason::Truncated},
      {"short arp", l2::Bytes(kRequest.begin(), kRequest.begin() + 41), DropReason::Truncated},
      {"ipv4 ethertype", edit(12, {0x08, 0x00}), DropReason::NotArp},
      {"token ring hardware", edit(14, {0x00, 0x06}), DropReason::UnsupportedArp},
      {"ipv6 protocol", edit(16, {0x86, 0xdd}), DropReason::UnsupportedArp},
      {"hardware length 8", edit(18, {8}), DropReason::UnsupportedArp},
      {"protocol length 16", edit(19, {16}), DropReason::UnsupportedArp},
      {"reply", edit(20, {0, 2}), DropReason::NotRequest},
      {"rarp opcode", edit(20, {0, 3}), DropReason::NotRequest},
      {"unicast to someone else", edit(0, {2, 0xcc, 0, 0, 0, 3}), DropReason::BadTarget},
      {"from our MAC", edit(6, {2, 0xaa, 0, 0, 0, 1}), DropReason::FromSelf},
      {"sender is our MAC", edit(22, {2, 0xaa, 0, 0, 0, 1}), DropReason::FromSelf},
      {"broadcast sender MAC", edit(22, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
       DropReason::BadSender},
      {"multicast sender MAC", edit(22, {0x01, 0, 0x5e, 0, 0, 1}), DropReason::BadSender},
      {"zero sender MAC", edit(22, {0, 0, 0, 0, 0, 0}), DropReason::BadSender},
      {"broadcast Ethernet source", edit(6, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
       DropReason::BadSender},
      {"multicast Ethernet source", edit(6, {0x33, 0x33, 0, 0, 0, 1}), DropReason::BadSender},
      {"zero Ethernet source", edit(6, {0, 0, 0, 0, 0, 0}), DropReason::BadSender},
      {"tagged with a VLAN this host is not on", kRequest, DropReason::ForeignVlan,
       l2::Delivery::OtherHost},
      {"unicast to someone else seen promiscuously", edit(0, {2, 0xcc, 0, 0, 0, 3}),
       DropReason::BadTarget, l2::Delivery::OtherHost},
      {"other address", edit(38, {192, 0, 2, 101}), DropReason::NotAnnounced},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto d = l2::processArpRequest(c.frame, kOwn, ownsVip, c.delivery);
      BOOST_TEST(!d.reply.has_value());
      BOOST_TEST(l2::dropReasonName(d.reason) == l2::dropReasonName(c.want));
    }
  }
}

// An ARP probe (RFC 5227: sender IP 0.0.0.0) for an owned address is answered like any request,
// to the prober's MAC, which defends the address.
BOOST_AUTO_TEST_CASE(an_arp_probe_for_an_owned_address_is_answered) {
  l2::Bytes probe = kRequest;
  std::fill(probe.begin() + 28, probe.begin() + 32, 0);
  auto d = l2::processArpRequest(probe, kOwn, ownsVip);
  BOOST_REQUIRE(d.reply.has_value());
  const auto reply = std::get<l2::ArpPacket>(l2::parseArp(*d.reply));
  BOOST_TEST((reply.eth_dst == kPeer && reply.target_mac == kPeer));
  BOOST_TEST((reply.sender_mac == kOwn && reply.sender_ip == kVip));
}

BOOST_AUTO_TEST_CASE(unicast_request_to_us_is_answered) {
  l2::Bytes f = kRequest;
  std::copy(kOwn.begin(), kOwn.end(), f.begin());
  BOOST_TEST(l2::processArpRequest(f, kOwn, ownsVip).reply.has_value());
}

BOOST_AUTO_TEST_CASE(gratuitous_request_and_reply) {
  BOOST_TEST(l2::gratuitousArp(kOwn, kVip, l2::kArpRequest) ==
                 l2::test::hex("ffffffffffff 02aa00000001 0806 0001 0800 06 04 0001"
                               "02aa00000001 c0000264 000000000000 c0000264"),
             boost::test_tools::per_element());
  BOOST_TEST(l2::gratuitousArp(kOwn, kVip, l2::kArpReply) ==
                 l2::test::hex("ffffffffffff 02aa00000001 0806 0001 0800 06 04 0002"
                               "02aa00000001 c0000264 ffffffffffff c0000264"),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(round_trip) {
  std::mt19937 rng(7);
  for (int i = 0; i < 200; ++i) {
    l2::ArpPacket p;
    l2::test::fill(rng, p.eth_dst);
    l2::test::fill(rng, p.eth_src);
    p.op = static_cast<uint16_t>(rng());
    l2::test::fill(rng, p.sender_mac);
    l2::test::fill(rng, p.sender_ip);
    l2::test::fill(rng, p.target_mac);
    l2::test::fill(rng, p.target_ip);
    const auto bytes = l2::encodeArp(p);
    BOOST_REQUIRE(bytes.size() == l2::kArpFrameLen);
    auto back = l2::parseArp(bytes);
    BOOST_REQUIRE(std::holds_alternative<l2::ArpPacket>(back));
    BOOST_TEST((std::get<l2::ArpPacket>(back) == p));
  }
}

// Mutations of the fixture (byte flips, truncation, extension) never crash the parser, and
// whatever parses re-encodes to the frame's first 42 bytes.
BOOST_AUTO_TEST_CASE(fuzz_parser) {
  std::mt19937 rng(13);
  for (int i = 0; i < 300000; ++i) {
    const l2::Bytes frame = l2::test::mutate(rng, kRequest);
    auto parsed = l2::parseArp(frame);
    if (const auto* p = std::get_if<l2::ArpPacket>(&parsed)) {
      const auto again = l2::encodeArp(*p);
      BOOST_REQUIRE(std::equal(again.begin(), again.end(), frame.begin()));
    }
    (void)l2::processArpRequest(frame, kOwn, ownsVip);
  }
}

BOOST_AUTO_TEST_SUITE_END()
