// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/ndp_codec.h"

#include <boost/test/unit_test.hpp>

#include "agent/tests/l2/fixtures.h"

namespace l2 = ingot::agent::l2;
using l2::DropReason;
using l2::test::kOwn;
using l2::test::kPeer;

namespace {

const l2::Ip6 kOwnLinkLocal = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x2};
const l2::Ip6 kPeerIp6 = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1};
const l2::Ip6 kVip6 = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1, 0x00};

bool ownsVip6(const l2::Ip6& ip) {
  return ip == kVip6;
}

// NS from fe80::1 (02:bb:00:00:00:02) for fd00::100 to its solicited-node group ff02::1:ff00:100,
// with a source link-layer option. Checksum 0x795f computed independently (Python).
const l2::Bytes kSolicit = l2::test::hex(
    "3333ff000100 02bb00000002 86dd"                                     // Ethernet
    "60000000 0020 3a ff"                                                // IPv6: 32 bytes ICMPv6
    "fe800000000000000000000000000001 ff0200000000000000000001ff000100"  // src, dst
    "87 00 795f 00000000"                                                // NS, checksum
    "fd000000000000000000000000000100"                                   // target
    "01 01 02bb00000002");                                               // source link-layer

// withChecksum recomputes the ICMPv6 checksum so a test edit changes only what it means to.
l2::Bytes withChecksum(l2::Bytes f) {
  f[56] = f[57] = 0;
  const l2::Ip6 src = l2::readArray<16>(f, 22);
  const l2::Ip6 dst = l2::readArray<16>(f, 38);
  const uint16_t sum = l2::icmpv6Checksum(src, dst, l2::ByteView(f).subspan(54));
  f[56] = static_cast<uint8_t>(sum >> 8);
  f[57] = static_cast<uint8_t>(sum & 0xff);
  return f;
}

const l2::Ip6 kAllNodes = {0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
const l2::Bytes kAllNodesBytes(kAllNodes.begin(), kAllNodes.end());
const l2::Ip6 kOtherVip6 = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1, 0x01};

// dadProbe is another host's duplicate address detection NS for target (RFC 4862 5.4.2): from
// the unspecified address, without a source link-layer option, to `to` (by default the target's
// solicited-node group).
l2::Bytes dadProbe(const l2::Mac& from, const l2::Ip6& target, std::optional<l2::Ip6> to = {}) {
  const l2::Ip6 dst = to.value_or(l2::solicitedNodeAddress(target));
  return l2::encodeNeighborMessage(l2::NeighborMessage{l2::multicastMac(dst), from, l2::Ip6{}, dst,
                                                       255, l2::kIcmpv6NeighborSolicit, false,
                                                       false, false, target, std::nullopt});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ndp_codec)

BOOST_AUTO_TEST_CASE(parses_a_solicitation) {
  auto parsed = l2::parseNeighborMessage(kSolicit);
  BOOST_REQUIRE(std::holds_alternative<l2::NeighborMessage>(parsed));
  const auto& m = std::get<l2::NeighborMessage>(parsed);
  BOOST_TEST(m.type == l2::kIcmpv6NeighborSolicit);
  BOOST_TEST((m.target == kVip6));
  BOOST_TEST((m.ip_src == kPeerIp6));
  BOOST_TEST((m.ip_dst == l2::solicitedNodeAddress(kVip6)));
  BOOST_TEST((m.eth_dst == l2::multicastMac(l2::solicitedNodeAddress(kVip6))));
  BOOST_REQUIRE(m.link_layer.has_value());
  BOOST_TEST((*m.link_layer == kPeer));
}

BOOST_AUTO_TEST_CASE(encode_reproduces_the_fixture) {
  auto parsed = l2::parseNeighborMessage(kSolicit);
  BOOST_REQUIRE(std::holds_alternative<l2::NeighborMessage>(parsed));
  BOOST_TEST(l2::encodeNeighborMessage(std::get<l2::NeighborMessage>(parsed)) == kSolicit,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(answers_with_a_solicited_override_advert) {
  auto d = l2::processNeighborSolicit(kSolicit, kOwn, kOwnLinkLocal, ownsVip6);
  BOOST_REQUIRE(d.reply.has_value());
  const auto& r = *d.reply;
  // Ethernet to the solicitor's link-layer address, IPv6 from our link-local to its source.
  auto parsed = l2::parseNeighborMessage(r);  // also verifies the checksum
  BOOST_REQUIRE(std::holds_alternative<l2::NeighborMessage>(parsed));
  const auto& na = std::get<l2::NeighborMessage>(parsed);
  BOOST_TEST((na.eth_dst == kPeer));
  BOOST_TEST((na.eth_src == kOwn));
  BOOST_TEST((na.ip_src == kOwnLinkLocal));
  BOOST_TEST((na.ip_dst == kPeerIp6));
  BOOST_TEST(na.type == l2::kIcmpv6NeighborAdvert);
  BOOST_TEST((!na.router && na.solicited && na.override_flag));
  BOOST_TEST((na.target == kVip6));
  BOOST_TEST((na.link_layer == std::optional<l2::Mac>(kOwn)));
  BOOST_TEST(r[54 + 4] == 0x60);  // flags byte: S and O
  BOOST_TEST(r.size() == 14u + 40u + 32u);
}

BOOST_AUTO_TEST_CASE(every_unanswered_path_has_its_reason) {
  struct Case {
    const char* name;
    l2::Bytes frame;
    DropReason want;
    l2::Delivery delivery = l2::Delivery::ForUs;
  };
  // edit changes bytes and, unless told not to, repairs the checksum so only the edit matters.
  auto edit = [](size_t at, const l2::Bytes& bytes, bool fix_sum = true) {
    l2::Bytes f = kSolicit;
    std::copy(bytes.begin(), bytes.end(), f.begin() + static_cast<std::ptrdiff_t>(at));
    return fix_sum ? withChecksum(f) : f;
  };
  l2::Bytes no_option(kSolicit.begin(), kSolicit.end() - 8);
  no_option[19] = 24;
  no_option = withChecksum(no_option);
  const std::vector<Case> cases = {
      {"short ethernet", l2::Bytes(kSolicit.begin(), kSolicit.begin() + 13), DropReason::Truncated},
      {"short ipv6", l2::Bytes(kSolicit.begin(), kSolicit.begin() + 40), DropReason::Truncated},
      {"payload past the end", l2::Bytes(kSolicit.begin(), kSolicit.end() - 1),
       DropReason::Truncated},
      {"arp ethertype", edit(12, {0x08, 0x06}), DropReason::NotIpv6},
      {"ip version 4", edit(14, {0x45}), DropReason::NotIpv6},
      {"udp", edit(20, {17}), DropReason::NotNeighborSolicit},
      {"echo request", edit(54, {128}), DropReason::NotNeighborSolicit},
      {"advert instead", edit(54, {136}), DropReason::NotNeighborSolicit},
      {"hop limit 254", edit(21, {254}), DropReason::BadIcmp},
      {"code 1", edit(55, {1}), DropReason::BadIcmp},
      {"bad checksum", edit(56, {0x79, 0x60}, false), DropReason::BadIcmp},
      {"payload 16", edit(18, {0, 16}), DropReason::BadIcmp},
      {"option length 0", edit(79, {0}), DropReason::BadOption},
      {"option past the end", edit(79, {2}), DropReason::BadOption},
      {"no source option", edit(78, {3}), DropReason::NoSourceLinkLayer},
      {"no options at all", no_option, DropReason::NoSourceLinkLayer},
      {"multicast target", edit(62, {0xff, 0x02}), DropReason::BadTarget},
      {"unicast to someone else", edit(0, {2, 0xcc, 0, 0, 0, 3}), DropReason::BadTarget},
      {"unspecified source (DAD) with option", edit(22, l2::Bytes(16, 0)), DropReason::BadOption},
      {"from our MAC", edit(6, {2, 0xaa, 0, 0, 0, 1}), DropReason::FromSelf},
      {"option is our MAC", edit(80, {2, 0xaa, 0, 0, 0, 1}), DropReason::FromSelf},
      {"other target", edit(77, {0x01}), DropReason::NotAnnounced},
      {"from all nodes (ff02::1)", edit(22, kAllNodesBytes), DropReason::BadSource},
      {"from the solicited-node group",
       edit(22, l2::Bytes(kSolicit.begin() + 38, kSolicit.begin() + 54)), DropReason::BadSource},
      {"broadcast link-layer option", edit(80, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
       DropReason::BadSender},
      {"multicast link-layer option", edit(80, {0x33, 0x33, 0, 0, 0, 1}), DropReason::BadSender},
      {"zero link-layer option", edit(80, {0, 0, 0, 0, 0, 0}), DropReason::BadSender},
      {"multicast Ethernet source", edit(6, {0x01, 0, 0x5e, 0, 0, 1}), DropReason::BadSender},
      {"zero Ethernet source", edit(6, {0, 0, 0, 0, 0, 0}), DropReason::BadSender},
      {"tagged with a VLAN this host is not on", kSolicit, DropReason::ForeignVlan,
       l2::Delivery::OtherHost},
      {"DAD probe for another address", dadProbe(kPeer, kOtherVip6), DropReason::NotAnnounced},
      {"DAD probe to all nodes instead of the solicited-node group",
       dadProbe(kPeer, kVip6, kAllNodes), DropReason::BadTarget},
      {"DAD probe from a multicast MAC", dadProbe({0x33, 0x33, 0, 0, 0, 1}, kVip6),
       DropReason::BadSender},
      {"DAD probe from our MAC", dadProbe(kOwn, kVip6), DropReason::FromSelf},
      {"DAD probe tagged with a VLAN this host is not on", dadProbe(kPeer, kVip6),
       DropReason::ForeignVlan, l2::Delivery::OtherHost},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto d = l2::processNeighborSolicit(c.frame, kOwn, kOwnLinkLocal, ownsVip6, c.delivery);
      BOOST_TEST(!d.reply.has_value());
      BOOST_TEST(l2::dropReasonName(d.reason) == l2::dropReasonName(c.want));
    }
  }
}

// Another host probing (DAD) an owned address gets the defence RFC 4861 7.2.4 prescribes for a
// solicitation from the unspecified address: an NA to all nodes, Solicited=0, Override=1, naming
// our MAC, so the prober sees the address is taken.
BOOST_AUTO_TEST_CASE(a_dad_probe_for_an_owned_address_is_defended_to_all_nodes) {
  auto d = l2::processNeighborSolicit(dadProbe(kPeer, kVip6), kOwn, kOwnLinkLocal, ownsVip6);
  BOOST_REQUIRE(d.reply.has_value());
  BOOST_TEST((d.target == kVip6));
  auto parsed = l2::parseNeighborMessage(*d.reply);
  BOOST_REQUIRE(std::holds_alternative<l2::NeighborMessage>(parsed));
  const auto& na = std::get<l2::NeighborMessage>(parsed);
  BOOST_TEST((na.eth_dst == l2::Mac{0x33, 0x33, 0, 0, 0, 1}));
  BOOST_TEST((na.eth_src == kOwn));
  BOOST_TEST((na.ip_src == kOwnLinkLocal));
  BOOST_TEST((na.ip_dst == kAllNodes));
  BOOST_TEST(
      (na.type == l2::kIcmpv6NeighborAdvert && !na.router && !na.solicited && na.override_flag));
  BOOST_TEST((na.target == kVip6));
  BOOST_TEST((na.link_layer == std::optional<l2::Mac>(kOwn)));
}

BOOST_AUTO_TEST_CASE(unsolicited_advert_to_all_nodes) {
  auto parsed = l2::parseNeighborMessage(l2::unsolicitedAdvert(kOwn, kOwnLinkLocal, kVip6));
  BOOST_REQUIRE(std::holds_alternative<l2::NeighborMessage>(parsed));
  const auto& na = std::get<l2::NeighborMessage>(parsed);
  const l2::Ip6 all_nodes = {0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  BOOST_TEST((na.ip_dst == all_nodes));
  BOOST_TEST((na.eth_dst == l2::Mac{0x33, 0x33, 0, 0, 0, 1}));
  BOOST_TEST((na.type == l2::kIcmpv6NeighborAdvert && !na.solicited && na.override_flag));
  BOOST_TEST((na.target == kVip6));
  BOOST_TEST((na.link_layer == std::optional<l2::Mac>(kOwn)));
}

BOOST_AUTO_TEST_CASE(round_trip) {
  std::mt19937 rng(5);
  for (int i = 0; i < 200; ++i) {
    l2::NeighborMessage m;
    l2::test::fill(rng, m.eth_dst);
    l2::test::fill(rng, m.eth_src);
    l2::test::fill(rng, m.ip_src);
    l2::test::fill(rng, m.ip_dst);
    l2::test::fill(rng, m.target);
    m.type = rng() % 2 ? l2::kIcmpv6NeighborSolicit : l2::kIcmpv6NeighborAdvert;
    m.router = rng() % 2;
    m.solicited = rng() % 2;
    m.override_flag = rng() % 2;
    if (rng() % 2) {
      m.link_layer = l2::Mac{};
      l2::test::fill(rng, *m.link_layer);
    }
    auto back = l2::parseNeighborMessage(l2::encodeNeighborMessage(m));
    BOOST_REQUIRE(std::holds_alternative<l2::NeighborMessage>(back));
    BOOST_TEST((std::get<l2::NeighborMessage>(back) == m));
  }
}

BOOST_AUTO_TEST_CASE(solicited_node_group) {
  BOOST_TEST((l2::solicitedNodeAddress(kVip6) ==
              l2::Ip6{0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0, 1, 0}));
  BOOST_TEST(
      (l2::multicastMac(l2::solicitedNodeAddress(kVip6)) == l2::Mac{0x33, 0x33, 0xff, 0, 1, 0}));
}

// Mutations never crash the parser; whatever parses has a correct checksum.
BOOST_AUTO_TEST_CASE(fuzz_parser) {
  std::mt19937 rng(17);
  for (int i = 0; i < 300000; ++i) {
    const l2::Bytes frame = l2::test::mutate(rng, kSolicit);
    auto parsed = l2::parseNeighborMessage(frame);
    if (const auto* m = std::get_if<l2::NeighborMessage>(&parsed)) {
      const size_t len = l2::readU16(frame, 18);
      BOOST_REQUIRE(
          l2::icmpv6Checksum(m->ip_src, m->ip_dst, l2::ByteView(frame).subspan(54, len)) == 0);
    }
    (void)l2::processNeighborSolicit(frame, kOwn, kOwnLinkLocal, ownsVip6);
  }
}

BOOST_AUTO_TEST_SUITE_END()
