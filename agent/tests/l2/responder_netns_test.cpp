// SPDX-License-Identifier: Apache-2.0
// The responder against real kernels: a veth pair between two namespaces this test creates.
#define BOOST_TEST_MODULE ingot_agent_l2_netns
#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "agent/l2/core/arp_codec.h"
#include "agent/l2/core/ndp_codec.h"
#include "agent/l2/responder.h"
#include "agent/tests/l2/netns.h"

namespace l2 = ingot::agent::l2;
namespace net = ingot::net;
using l2::test::count;
using l2::test::InNetns;
using l2::test::lower;
using l2::test::VethLab;

namespace {

boost::test_tools::assertion_result canRun(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result ok(geteuid() == 0);
  if (!ok) {
    ok.message() << "skipped: creating network namespaces needs root";
    return ok;
  }
  ok = boost::test_tools::assertion_result(l2::test::sh("command -v arping", false).size() > 0);
  ok.message() << "skipped: arping is not installed";
  return ok;
}

net::IpAddress ip(const std::string& s) {
  return *net::IpAddress::parse(s);
}

// waitFor polls a condition until it holds or a generous bound passes.
bool waitFor(const std::function<bool()>& cond) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < until) {
    if (cond()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return cond();
}

// Lab is the namespaces plus a responder running in `node`.
struct Lab {
  VethLab lab;
  std::unique_ptr<l2::Responder> responder;
  std::string mac;  // n0's MAC, lower case

  explicit Lab(l2::ResponderOptions options = {}) {
    {
      InNetns in(lab.node);
      auto r = l2::Responder::start(std::move(options));
      BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
      responder = std::move(r.value());
    }
    BOOST_REQUIRE(waitFor([&] {
      auto links = responder->interfaces();
      return links.size() == 1 && links[0].name == "n0" && links[0].arp && links[0].ndp;
    }));
    mac = l2::formatMac(responder->interfaces()[0].mac);
    BOOST_REQUIRE(lower(lab.in(lab.node, "ip link show n0")).find(mac) != std::string::npos);
  }
  ~Lab() { responder.reset(); }  // stop the loop before the namespaces go

  std::string peer(const std::string& cmd, int* status = nullptr) const {
    return lab.in(lab.peer, cmd, false, status);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(netns, *boost::unit_test::precondition(canRun))

BOOST_AUTO_TEST_CASE(arping_gets_one_reply_for_owned_and_none_for_unowned) {
  Lab t;
  t.responder->announce("default/web", ip("192.0.2.100"), std::nullopt);
  const auto owned = lower(t.peer("arping -c 2 -w 10 -I p0 192.0.2.100"));
  BOOST_TEST(count(owned, "reply from 192.0.2.100 [" + t.mac + "]") == 2u, owned);
  BOOST_TEST(count(owned, "reply from") == 2u, owned);

  int status = 0;
  const auto unowned = lower(t.peer("arping -c 1 -w 2 -I p0 192.0.2.101", &status));
  BOOST_TEST(count(unowned, "reply from") == 0u, unowned);
  BOOST_TEST(status != 0);

  // A second owner of the same address keeps it answered when the first withdraws.
  t.responder->announce("default/web2", ip("192.0.2.100"), std::nullopt);
  t.responder->withdraw("default/web", ip("192.0.2.100"));
  BOOST_TEST(count(lower(t.peer("arping -c 1 -w 10 -I p0 192.0.2.100")), "reply from") == 1u);
  t.responder->withdraw("default/web2", ip("192.0.2.100"));
  BOOST_TEST(count(lower(t.peer("arping -c 1 -w 2 -I p0 192.0.2.100")), "reply from") == 0u);

  const auto stats = t.responder->stats();
  BOOST_TEST(stats.per_ip.at(ip("192.0.2.100")).responses_sent == 3u);
  BOOST_TEST(stats.drops[static_cast<size_t>(l2::DropReason::NotAnnounced)] >= 2u);
}

BOOST_AUTO_TEST_CASE(interface_restriction_excludes_other_interfaces) {
  Lab t;
  t.responder->announce("default/web", ip("192.0.2.110"), std::set<std::string>{"eth9"});
  BOOST_TEST(count(lower(t.peer("arping -c 1 -w 2 -I p0 192.0.2.110")), "reply from") == 0u);
  t.responder->announce("default/web", ip("192.0.2.110"), std::set<std::string>{"n0"});
  BOOST_TEST(count(lower(t.peer("arping -c 1 -w 10 -I p0 192.0.2.110")), "reply from") == 1u);
}

BOOST_AUTO_TEST_CASE(gratuitous_arp_updates_the_peer) {
  Lab t;
  t.responder->announce("default/web", ip("192.0.2.102"), std::nullopt);
  BOOST_TEST(waitFor([&] {
    return lower(t.peer("ip neigh show 192.0.2.102 dev p0")).find(t.mac) != std::string::npos;
  }));
  // A burst is one request and one reply per step; more steps follow within the window.
  BOOST_TEST(
      waitFor([&] { return t.responder->stats().per_ip[ip("192.0.2.102")].gratuitous_sent >= 4; }));
}

BOOST_AUTO_TEST_CASE(ndp_answers_owned_and_joins_the_solicited_node_group) {
  Lab t;
  t.responder->announce("default/web6", ip("fd00::100"), std::nullopt);
  BOOST_TEST(waitFor([&] {
    return t.lab.in(t.lab.node, "ip -6 maddr show dev n0").find("ff02::1:ff00:100") !=
           std::string::npos;
  }));
  // The peer's kernel resolves the address: our NA passed its checksum and option checks.
  t.peer("ping -6 -c 1 -W 1 fd00::100");
  BOOST_TEST(waitFor([&] {
    return lower(t.peer("ip -6 neigh show fd00::100 dev p0")).find("lladdr " + t.mac) !=
           std::string::npos;
  }));
  t.peer("ping -6 -c 1 -W 1 fd00::101");
  BOOST_TEST(t.peer("ip -6 neigh show fd00::101 dev p0").find("lladdr") == std::string::npos);
  BOOST_TEST(t.responder->stats().per_ip[ip("fd00::100")].responses_sent >= 1u);

  t.responder->withdraw("default/web6", ip("fd00::100"));
  BOOST_TEST(waitFor([&] {
    return t.lab.in(t.lab.node, "ip -6 maddr show dev n0").find("ff02::1:ff00:100") ==
           std::string::npos;
  }));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// Tagged requests: the sender MAC is 02:00:00:<kind>:<round>, so a reply names its request.
constexpr uint8_t kOwnedKind = 0x0a;
constexpr uint8_t kUnownedKind = 0x0b;
constexpr uint8_t kMarkerKind = 0x0c;

l2::Mac tagMac(uint8_t kind, int round) {
  return l2::Mac{2, 0, 0, kind, static_cast<uint8_t>(round >> 8), static_cast<uint8_t>(round)};
}

// PeerSocket sends and receives ARP on p0 in the peer namespace.
struct PeerSocket {
  int fd = -1;
  int ifindex = 0;

  explicit PeerSocket(const std::string& ns) {
    InNetns in(ns);
    fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ARP));
    ifindex = static_cast<int>(if_nametoindex("p0"));
    BOOST_REQUIRE(fd >= 0 && ifindex > 0);
    sockaddr_ll addr{};
    addr.sll_family = AF_PACKET;
    addr.sll_protocol = htons(ETH_P_ARP);
    addr.sll_ifindex = ifindex;
    BOOST_REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    packet_mreq promisc{};
    promisc.mr_ifindex = ifindex;
    promisc.mr_type = PACKET_MR_PROMISC;
    BOOST_REQUIRE(setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &promisc, sizeof promisc) == 0);
    // Everything is read after the rounds: room for the requests, replies and gratuitous bursts.
    const int rcvbuf = 8 << 20;
    BOOST_REQUIRE(setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) == 0);
    timeval tv{0, 200000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~PeerSocket() { close(fd); }

  void request(const l2::Mac& from, const l2::Ip4& target) const {
    send(l2::encodeArp(l2::ArpPacket{l2::kBroadcastMac, from, l2::kArpRequest, from,
                                     l2::Ip4{192, 0, 2, 2}, l2::Mac{}, target}));
  }

  // send transmits any frame on p0 (ARP, IPv6, VLAN-tagged: whatever the bytes say).
  void send(const l2::Bytes& f) const {
    sockaddr_ll to{};
    to.sll_family = AF_PACKET;
    to.sll_ifindex = ifindex;
    to.sll_halen = 6;
    std::copy(l2::kBroadcastMac.begin(), l2::kBroadcastMac.end(), to.sll_addr);
    BOOST_REQUIRE(sendto(fd, f.data(), f.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) ==
                  static_cast<ssize_t>(f.size()));
  }

  // nextReply returns the next ARP reply's target MAC, or nullopt on a quiet receive timeout.
  std::optional<l2::Mac> nextReply() const {
    l2::Bytes buf(2048);
    for (;;) {
      const ssize_t n = recv(fd, buf.data(), buf.size(), 0);
      if (n < 0) {
        return std::nullopt;
      }
      auto p = l2::parseArp(l2::ByteView(buf.data(), static_cast<size_t>(n)));
      if (const auto* a = std::get_if<l2::ArpPacket>(&p); a != nullptr && a->op == l2::kArpReply) {
        return a->target_mac;
      }
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(netns_flap, *boost::unit_test::precondition(canRun))

// Ownership flips between requests, and each request is handled (counted by the responder)
// before the next flip: requests handled while withdrawn are never answered, the others always.
BOOST_AUTO_TEST_CASE(never_answers_while_withdrawn) {
  Lab t;
  PeerSocket peer(t.lab.peer);
  const auto vip = ip("192.0.2.120");
  const l2::Ip4 vip4{192, 0, 2, 120};
  constexpr int kRounds = 100;
  auto handled = [&] {
    const auto s = t.responder->stats();
    auto it = s.per_ip.find(vip);
    return s.drops[static_cast<size_t>(l2::DropReason::NotAnnounced)] +
           (it == s.per_ip.end() ? 0 : it->second.requests_received);
  };
  for (int round = 0; round < kRounds; ++round) {
    t.responder->withdraw("default/web", vip);
    uint64_t before = handled();
    peer.request(tagMac(kUnownedKind, round), vip4);
    BOOST_REQUIRE(waitFor([&] { return handled() > before; }));
    t.responder->announce("default/web", vip, std::nullopt);
    before = handled();
    peer.request(tagMac(kOwnedKind, round), vip4);
    BOOST_REQUIRE(waitFor([&] { return handled() > before; }));
  }
  peer.request(tagMac(kMarkerKind, 0), vip4);  // answered last: every earlier frame is handled
  int owned_replies = 0;
  int unowned_replies = 0;
  bool marker = false;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  // veth delivery may reorder frames across CPUs, so read until everything expected arrived;
  // responses_sent below proves nothing else was sent.
  while (!(marker && owned_replies == kRounds) && std::chrono::steady_clock::now() < until) {
    auto tag = peer.nextReply();
    if (!tag) {
      continue;
    }
    owned_replies += (*tag)[3] == kOwnedKind;
    unowned_replies += (*tag)[3] == kUnownedKind;
    marker = marker || (*tag)[3] == kMarkerKind;
  }
  BOOST_TEST(marker);
  BOOST_TEST(unowned_replies == 0);
  BOOST_TEST(owned_replies == kRounds);
  BOOST_TEST(t.responder->stats().send_errors == 0u);
  BOOST_TEST(t.responder->stats().per_ip[vip].responses_sent == uint64_t{kRounds} + 1);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// peerMac returns p0's MAC in the peer namespace.
l2::Mac peerMac(const Lab& t) {
  const auto text = lower(t.peer("cat /sys/class/net/p0/address"));
  l2::Mac mac{};
  BOOST_REQUIRE(std::sscanf(text.c_str(), "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
                            &mac[2], &mac[3], &mac[4], &mac[5]) == 6);
  return mac;
}

std::optional<l2::Conflict> conflictOf(const Lab& t, const net::IpAddress& addr) {
  const auto s = t.responder->stats();
  auto it = s.probes.find(addr);
  return it == s.probes.end() ? std::nullopt : it->second.conflict;
}

// probeUntilFree announces an address the peer's kernel owns with a probe, checks the conflict
// (named by the peer's MAC, not answered, listener called), then frees it on the peer.
void probeUntilFree(Lab& t, const std::string& addr, const std::string& peer_del) {
  // The peer's kernel answers for its address once p0 is up and joined the address's groups.
  BOOST_REQUIRE(waitFor([&] {
    return t.peer("ip -6 maddr show dev p0").find("ff02::1:ff00:2") != std::string::npos &&
           t.peer("ip link show p0").find("state UP") != std::string::npos;
  }));
  std::atomic<int> notified{0};
  t.responder->setProbeListener([&notified] { ++notified; });
  const auto vip = ip(addr);
  t.responder->announce("default/web", vip, std::nullopt, true);
  BOOST_REQUIRE(waitFor([&] { return conflictOf(t, vip).has_value(); }));
  const auto conflict = *conflictOf(t, vip);
  BOOST_TEST((conflict.mac == peerMac(t)));
  BOOST_TEST(conflict.interface == "n0");
  BOOST_TEST(!t.responder->owned(vip));
  BOOST_TEST(waitFor([&] { return notified.load() >= 1; }));
  BOOST_TEST(t.responder->stats().conflicts_detected == 1u);

  t.peer(peer_del);
  BOOST_TEST(waitFor([&] { return t.responder->owned(vip); }));
  BOOST_TEST(t.responder->stats().probes.empty());
  BOOST_TEST(notified.load() >= 2);
  t.responder->setProbeListener(nullptr);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(netns_probe, *boost::unit_test::precondition(canRun))

BOOST_AUTO_TEST_CASE(free_address_is_answered_after_the_probes) {
  Lab t;
  t.responder->announce("default/web", ip("192.0.2.130"), std::nullopt, true);
  BOOST_TEST(waitFor([&] { return t.responder->owned(ip("192.0.2.130")); }));
  const auto s = t.responder->stats();
  BOOST_TEST(s.probes_sent == 3u);
  BOOST_TEST(s.conflicts_detected == 0u);
  BOOST_TEST(count(lower(t.peer("arping -c 1 -w 10 -I p0 192.0.2.130")), "reply from") == 1u);
}

BOOST_AUTO_TEST_CASE(arp_conflict_until_the_owner_lets_go) {
  Lab t;
  probeUntilFree(t, "192.0.2.2", "ip addr del 192.0.2.2/24 dev p0");
}

BOOST_AUTO_TEST_CASE(dad_conflict_until_the_owner_lets_go) {
  Lab t;
  probeUntilFree(t, "fd00::2", "ip addr del fd00::2/64 dev p0");
}

BOOST_AUTO_TEST_CASE(a_members_answer_is_no_conflict) {
  Lab t;
  t.responder->setMemberMacs({peerMac(t)});
  t.responder->announce("default/web", ip("192.0.2.2"), std::nullopt, true);
  BOOST_TEST(waitFor([&] { return t.responder->owned(ip("192.0.2.2")); }));
  BOOST_TEST(t.responder->stats().conflicts_detected == 0u);
}

BOOST_AUTO_TEST_CASE(an_announce_without_probe_ends_the_probe) {
  Lab t;
  const auto vip = ip("192.0.2.2");
  t.responder->announce("default/web", vip, std::nullopt, true);
  BOOST_REQUIRE(waitFor([&] { return conflictOf(t, vip).has_value(); }));
  t.responder->announce("default/other", vip, std::nullopt);  // e.g. a failover: answered at once
  BOOST_TEST(t.responder->owned(vip));
  BOOST_TEST(t.responder->stats().probes.empty());
  t.responder->withdraw("default/web", vip);
  t.responder->withdraw("default/other", vip);
  BOOST_TEST(!t.responder->owned(vip));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

uint64_t dropped(const Lab& t, l2::DropReason reason) {
  return t.responder->stats().drops[static_cast<size_t>(reason)];
}

uint64_t responses(const Lab& t, const net::IpAddress& addr) {
  const auto s = t.responder->stats();
  auto it = s.per_ip.find(addr);
  return it == s.per_ip.end() ? 0 : it->second.responses_sent;
}

// tagged inserts an 802.1Q tag for vlan after the Ethernet addresses of an untagged frame.
l2::Bytes tagged(const l2::Bytes& frame, uint16_t vlan) {
  l2::Bytes out;
  out.reserve(frame.size() + 4);
  for (size_t i = 0; i < frame.size(); ++i) {
    if (i == 12) {
      l2::putU16(out, 0x8100);
      l2::putU16(out, vlan);
    }
    out.push_back(frame[i]);
  }
  return out;
}

// waitJoined waits until the node's kernel joined the solicited-node group of the address.
void waitJoined(const Lab& t, const std::string& group) {
  BOOST_REQUIRE(waitFor([&] {
    return t.lab.in(t.lab.node, "ip -6 maddr show dev n0").find(group) != std::string::npos;
  }));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(netns_bad_input, *boost::unit_test::precondition(canRun))

// Requests that must not be answered reach the responder through the real kernel path and are
// dropped with their reason; the same address is still answered to a well-formed request.
BOOST_AUTO_TEST_CASE(malformed_senders_vlan_tags_and_multicast_sources_get_no_reply) {
  Lab t;
  PeerSocket peer(t.lab.peer);
  const auto vip = ip("192.0.2.140");
  const auto vip6 = ip("fd00::140");
  const l2::Ip4 vip4{192, 0, 2, 140};
  const l2::Ip6 target6{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x40};
  t.responder->announce("default/web", vip, std::nullopt);
  t.responder->announce("default/web6", vip6, std::nullopt);
  waitJoined(t, "ff02::1:ff00:140");

  const l2::Mac from = tagMac(kUnownedKind, 1);
  auto arp = [&](const l2::Mac& eth_src, const l2::Mac& sender) {
    return l2::encodeArp(l2::ArpPacket{l2::kBroadcastMac, eth_src, l2::kArpRequest, sender,
                                       l2::Ip4{192, 0, 2, 2}, l2::Mac{}, vip4});
  };
  const l2::Ip6 all_nodes{0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  const l2::Ip6 group = l2::solicitedNodeAddress(target6);
  const l2::Bytes ns_from_all_nodes = l2::encodeNeighborMessage(
      l2::NeighborMessage{l2::multicastMac(group), from, all_nodes, group, 255,
                          l2::kIcmpv6NeighborSolicit, false, false, false, target6, from});
  peer.send(tagged(arp(from, from), 5));                  // a VLAN the node has no interface on
  peer.send(arp(from, l2::kBroadcastMac));                // reply would go to broadcast
  peer.send(arp(from, l2::Mac{}));                        // ... to nobody
  peer.send(arp(from, l2::Mac{0x01, 0, 0x5e, 0, 0, 1}));  // ... to a multicast group
  peer.send(ns_from_all_nodes);                           // RFC 4291: never a source
  peer.send(tagged(l2::encodeNeighborMessage(l2::NeighborMessage{
                       l2::multicastMac(group), from,
                       l2::Ip6{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}, group, 255,
                       l2::kIcmpv6NeighborSolicit, false, false, false, target6, from}),
                   7));
  BOOST_TEST(waitFor([&] {
    return dropped(t, l2::DropReason::ForeignVlan) >= 2 &&
           dropped(t, l2::DropReason::BadSender) >= 3 && dropped(t, l2::DropReason::BadSource) >= 1;
  }));
  BOOST_TEST(responses(t, vip) == 0u);
  BOOST_TEST(responses(t, vip6) == 0u);

  // Well-formed requests for the same addresses are answered.
  BOOST_TEST(count(lower(t.peer("arping -c 1 -w 10 -I p0 192.0.2.140")), "reply from") == 1u);
  t.peer("ping -6 -c 1 -W 1 fd00::140");
  BOOST_TEST(waitFor([&] { return responses(t, vip6) >= 1; }));
  BOOST_TEST(responses(t, vip) == 1u);
}

// Another host that adds an address this node answers for runs duplicate address detection and
// finds it taken: the responder defends the address with an NA to all nodes (the gratuitous
// burst is over before the peer probes, so only the defence can fail the peer's DAD).
BOOST_AUTO_TEST_CASE(another_hosts_dad_probe_for_an_owned_address_fails) {
  l2::ResponderOptions options;
  options.gratuitous_window = std::chrono::milliseconds(0);
  Lab t(options);
  const auto vip6 = ip("fd00::150");
  t.responder->announce("default/web6", vip6, std::nullopt);
  waitJoined(t, "ff02::1:ff00:150");
  BOOST_REQUIRE(waitFor([&] { return t.responder->stats().per_ip[vip6].gratuitous_sent >= 1; }));
  t.peer("sysctl -qw net.ipv6.conf.p0.accept_dad=1");
  t.peer("ip addr add fd00::150/64 dev p0");
  BOOST_TEST(waitFor(
      [&] { return t.peer("ip -6 addr show dev p0").find("dadfailed") != std::string::npos; }));
  BOOST_TEST(responses(t, vip6) >= 1u);
  BOOST_TEST(t.responder->stats().per_ip[vip6].gratuitous_sent == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
