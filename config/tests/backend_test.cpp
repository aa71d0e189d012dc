// SPDX-License-Identifier: Apache-2.0
#include <boost/test/unit_test.hpp>

#include "config/tests/fixtures.h"

namespace ingot::config::testing {
namespace {

constexpr char kPeerKind[] = "BGPPeer";

Inputs onePeer(api::BGPPeer p) {
  Inputs in;
  in.peers = {std::move(p)};
  return in;
}

api::BGPPeer basePeer() {
  return peer("p", 64500, 64501, "10.0.0.1");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(backends)

BOOST_AUTO_TEST_CASE(native_rejects_frr_only_peer_fields) {
  struct Case {
    std::string desc;
    void (*set)(api::BGPPeer&);
    std::string field;
    std::string what;
  };
  const std::vector<Case> cases = {
      {"bfd profile", [](api::BGPPeer& p) { p.spec.bfd_profile = "fast"; }, "spec.bfdProfile",
       "bfd-profile"},
      {"keepalive", [](api::BGPPeer& p) { p.spec.keepalive_time = dur("10s", 10000); },
       "spec.keepaliveTime", "keepalive-time"},
      {"vrf", [](api::BGPPeer& p) { p.spec.vrf = "red"; }, "spec.vrf", "vrf"},
      {"connect time", [](api::BGPPeer& p) { p.spec.connect_time = dur("5s", 5000); },
       "spec.connectTime", "connect time"},
      {"graceful restart", [](api::BGPPeer& p) { p.spec.enable_graceful_restart = true; },
       "spec.enableGracefulRestart", "EnableGracefulRestart flag"},
      {"disable mp", [](api::BGPPeer& p) { p.spec.disable_mp = true; }, "spec.disableMP",
       "disable MP flag"},
      {"dual stack address family",
       [](api::BGPPeer& p) { p.spec.dual_stack_address_family = true; },
       "spec.dualStackAddressFamily", "dualStackAddressFamily"},
      {"dynamic asn",
       [](api::BGPPeer& p) {
         p.spec.peer_asn = 0;
         p.spec.dynamic_asn = "external";
       },
       "spec.dynamicASN", "dynamicASN"},
      {"local asn", [](api::BGPPeer& p) { p.spec.local_asn = 65000; }, "spec.localASN", "localASN"},
  };
  for (const auto& c : cases) {
    Inputs in = onePeer(basePeer());
    c.set(in.peers[0]);
    Inputs frr = in;
    frr.bfd_profiles = {bfd("fast")};  // native rejects the profile object itself
    checkErrors(
        {{"native: " + c.desc,
          in,
          {{kPeerKind, "p", c.field, "peer 10.0.0.1 has " + c.what + " set on native bgp mode"}},
          Backend::Native},
         {"frr-k8s accepts " + c.desc, frr, {}, Backend::FrrK8s}});
  }
  Inputs iface = onePeer(with(basePeer(), [](auto& p) {
    p.spec.peer_address.clear();
    p.spec.interface = "eth0";
  }));
  checkErrors({{"native: interface peers are named by object",
                iface,
                {{kPeerKind, "p", "spec.interface", "peer p has interface set on native bgp mode"}},
                Backend::Native},
               {"native: hold time alone is fine",
                onePeer(with(basePeer(), [](auto& p) { p.spec.hold_time = dur("90s", 90000); })),
                {},
                Backend::Native},
               {"native: zero keepalive is fine",
                onePeer(with(basePeer(), [](auto& p) { p.spec.keepalive_time = dur("0s", 0); })),
                {},
                Backend::Native}});
}

BOOST_AUTO_TEST_CASE(native_rejects_bfd_profiles_bgp_ipv6_pools_and_large_communities) {
  auto bgp_on = [](std::vector<api::IPAddressPool> pools, std::vector<api::BGPAdvertisement> ads) {
    Inputs in;
    in.pools = std::move(pools);
    in.bgp_advertisements = std::move(ads);
    return in;
  };
  Inputs profiles;
  profiles.bfd_profiles = {bfd("a"), bfd("b")};
  Inputs l2_only;
  l2_only.pools = {pool("v6", {"fc00::/64"})};
  l2_only.l2_advertisements = {l2("ad")};
  Inputs large_alias = bgp_on({pool("p", {"10.0.0.0/24"})},
                              {with(bgp("ad"), [](auto& a) { a.spec.communities = {"big"}; })});
  large_alias.communities = {community("c", {{"big", "large:1:2:3"}})};
  const std::vector<ErrorCase> cases = {
      {"bfd profiles section",
       profiles,
       {{"BFDProfile", "a", "spec", "bfd profiles section set"},
        {"BFDProfile", "b", "spec", "bfd profiles section set"}},
       Backend::Native},
      {"bfd profiles are fine with frr", profiles, {}, Backend::Frr},
      {"ipv6 pool advertised over bgp (all pools)",
       bgp_on({pool("v4", {"10.0.0.0/24"}), pool("v6", {"10.0.1.0/24", "fc00::1-fc00::2"})},
              {bgp("ad")}),
       {{"IPAddressPool", "v6", "spec.addresses[1]",
         R"(pool "v6" has ipv6 CIDR fc00::1/128, native bgp mode does not support ipv6)"}},
       Backend::Native},
      {"ipv6 pool selected by label",
       bgp_on({pool("v6", {"fc00::/64"}, {{"bgp", "yes"}})},
              {with(bgp("ad"),
                    [](auto& a) {
                      a.spec.ip_address_pool_selectors = {sel({{"bgp", "yes"}})};
                    })}),
       {{"IPAddressPool", "v6", "spec.addresses[0]",
         R"(pool "v6" has ipv6 CIDR fc00::/64, native bgp mode does not support ipv6)"}},
       Backend::Native},
      {"ipv6 pool not selected by any bgp advertisement",
       bgp_on({pool("v4", {"10.0.0.0/24"}), pool("v6", {"fc00::/64"})}, {bgp("ad", {"v4"})}),
       {},
       Backend::Native},
      {"ipv6 pool with l2 only", l2_only, {}, Backend::Native},
      {"ipv6 pool over bgp with frr",
       bgp_on({pool("v6", {"fc00::/64"})}, {bgp("ad")}),
       {},
       Backend::Frr},
      {"large community literal",
       bgp_on({pool("p", {"10.0.0.0/24"})}, {with(bgp("ad"),
                                                  [](auto& a) {
                                                    a.spec.communities = {"1:2", "large:1:2:3"};
                                                  })}),
       {{"BGPAdvertisement", "ad", "spec.communities[1]",
         R"(native BGP mode only supports legacy communities, BGP advertisement "ad" has non )"
         R"(legacy community "large:1:2:3")"}},
       Backend::Native},
      {"large community alias is rejected at its definition and its use",
       large_alias,
       {{"Community", "c", "spec.communities[0].value",
         R"(native BGP mode only supports legacy communities, BGP community CR "c" has non )"
         R"(legacy community "large:1:2:3")"},
        {"BGPAdvertisement", "ad", "spec.communities[0]",
         R"(native BGP mode only supports legacy communities, BGP advertisement "ad" has non )"
         R"(legacy community "big")"}},
       Backend::Native},
      {"large community alias with frr", large_alias, {}, Backend::FrrK8s},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(frr_peers_meeting_on_a_node_must_share_router_and_asn) {
  auto pair = [](auto fa, auto fb, bool with_nodes) {
    Inputs in;
    in.peers = {with(peer("a", 64500, 64501, "10.0.0.1"), fa),
                with(peer("b", 64500, 64502, "10.0.0.2"), fb)};
    if (with_nodes) {
      in.nodes = {node("n1", {{"rack", "1"}}), node("n2", {{"rack", "2"}})};
    }
    return in;
  };
  const auto none = [](auto&) {};
  auto rid = [](std::string id) { return [=](auto& p) { p.spec.router_id = id; }; };
  auto rack = [](std::string r) {
    return [=](auto& p) { p.spec.node_selectors = {sel({{"rack", r}})}; };
  };
  auto addr = [](std::string a, std::string vrf) {
    return [=](auto& p) {
      p.spec.peer_address = a;
      p.spec.vrf = vrf;
    };
  };
  auto asn = [](uint32_t my, std::string vrf) {
    return [=](auto& p) {
      p.spec.my_asn = my;
      p.spec.vrf = vrf;
    };
  };
  const std::string rid_msg = R"(peer b has RouterID "10.0.0.9" different from "10.0.0.8" of )"
                              "peer a, in FRR mode all RouterID must be equal";
  const std::string dup_msg =
      "peer 10.0.0.1 already exists, FRR mode doesn't support duplicate "
      "BGPPeers selecting the same node (BGPPeer a)";
  const std::string asn_msg =
      "peer b has myAsn different from a, in FRR mode all myAsn must be "
      "equal for the same VRF";
  const std::vector<ErrorCase> cases = {
      {"distinct peers on all nodes", pair(none, none, true), {}},
      {"different router ids on a shared node",
       pair(rid("10.0.0.8"), rid("10.0.0.9"), true),
       {{kPeerKind, "b", "spec.routerID", rid_msg}}},
      {"router id set on one peer only",
       pair(rid("10.0.0.8"), none, true),
       {{kPeerKind, "b", "spec.routerID",
         R"(peer b has RouterID "" different from "10.0.0.8" of peer a, in FRR mode all )"
         "RouterID must be equal"}}},
      {"different router ids on disjoint nodes",
       pair(
           [&](auto& p) {
             rid("10.0.0.8")(p);
             rack("1")(p);
           },
           [&](auto& p) {
             rid("10.0.0.9")(p);
             rack("2")(p);
           },
           true),
       {}},
      {"different router ids without any node",
       pair(rid("10.0.0.8"), rid("10.0.0.9"), false),
       {{kPeerKind, "b", "spec.routerID", rid_msg}}},
      {"same address twice",
       pair(none, addr("10.0.0.1", ""), true),
       {{kPeerKind, "b", "spec.peerAddress", dup_msg}}},
      {"same address in different vrfs", pair(none, addr("10.0.0.1", "red"), true), {}},
      {"same address on disjoint nodes",
       pair(
           rack("1"),
           [&](auto& p) {
             addr("10.0.0.1", "")(p);
             rack("2")(p);
           },
           true),
       {}},
      {"same interface twice",
       pair(
           [](auto& p) {
             p.spec.peer_address.clear();
             p.spec.interface = "eth0";
           },
           [](auto& p) {
             p.spec.peer_address.clear();
             p.spec.interface = "eth0";
           },
           true),
       {{kPeerKind, "b", "spec.interface",
         "peer eth0 already exists, FRR mode doesn't support duplicate BGPPeers selecting the "
         "same node (BGPPeer a)"}}},
      {"different my asn in one vrf",
       pair(none, asn(64999, ""), true),
       {{kPeerKind, "b", "spec.myASN", asn_msg}}},
      {"different my asn in different vrfs", pair(none, asn(64999, "red"), true), {}},
      {"different my asn on disjoint nodes",
       pair(
           rack("1"),
           [&](auto& p) {
             asn(64999, "")(p);
             rack("2")(p);
           },
           true),
       {}},
      {"native ignores frr pair rules",
       pair(rid("10.0.0.8"), rid("10.0.0.9"), true),
       {},
       Backend::Native},
      {"frr applies the same rules",
       pair(none, asn(64999, ""), true),
       {{kPeerKind, "b", "spec.myASN", asn_msg}},
       Backend::Frr},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(bfd_profile_ranges_are_rechecked) {
  struct Case {
    std::string desc;
    void (*set)(api::BFDProfileSpec&);
    std::string field;  ///< empty = valid
    std::string message;
  };
  const std::vector<Case> cases = {
      {"all at minimum",
       [](api::BFDProfileSpec& s) {
         s.receive_interval = 10;
         s.transmit_interval = 10;
         s.detect_multiplier = 2;
         s.echo_interval = 10;
         s.minimum_ttl = 1;
       },
       "", ""},
      {"all at maximum",
       [](api::BFDProfileSpec& s) {
         s.receive_interval = 60000;
         s.transmit_interval = 60000;
         s.detect_multiplier = 255;
         s.echo_interval = 60000;
         s.minimum_ttl = 254;
       },
       "", ""},
      {"receive interval low", [](api::BFDProfileSpec& s) { s.receive_interval = 9; },
       "spec.receiveInterval", "invalid value 9, must be in 10-60000 range"},
      {"transmit interval high", [](api::BFDProfileSpec& s) { s.transmit_interval = 60001; },
       "spec.transmitInterval", "invalid value 60001, must be in 10-60000 range"},
      {"detect multiplier low", [](api::BFDProfileSpec& s) { s.detect_multiplier = 1; },
       "spec.detectMultiplier", "invalid value 1, must be in 2-255 range"},
      {"detect multiplier high", [](api::BFDProfileSpec& s) { s.detect_multiplier = 256; },
       "spec.detectMultiplier", "invalid value 256, must be in 2-255 range"},
      {"echo interval low", [](api::BFDProfileSpec& s) { s.echo_interval = 0; },
       "spec.echoInterval", "invalid value 0, must be in 10-60000 range"},
      {"minimum ttl zero", [](api::BFDProfileSpec& s) { s.minimum_ttl = 0; }, "spec.minimumTtl",
       "invalid value 0, must be in 1-254 range"},
      {"minimum ttl 255", [](api::BFDProfileSpec& s) { s.minimum_ttl = 255; }, "spec.minimumTtl",
       "invalid value 255, must be in 1-254 range"},
  };
  for (const auto& c : cases) {
    Inputs in;
    in.bfd_profiles = {bfd("prof")};
    c.set(in.bfd_profiles[0].spec);
    std::vector<Want> want;
    if (!c.field.empty()) {
      want.push_back({"BFDProfile", "prof", c.field, c.message});
    }
    checkErrors({{c.desc, in, want}});
  }
  for (const auto& [name, want] : std::vector<std::pair<std::string, std::string>>{
           {std::string(64, 'b'), ""},
           {std::string(65, 'b'), "BFD profile name is 65 bytes long; FRR takes at most 64"}}) {
    Inputs in;
    in.bfd_profiles = {bfd(name)};
    std::vector<Want> wants;
    if (!want.empty()) {
      wants.push_back({"BFDProfile", name, "metadata.name", want});
    }
    checkErrors({{"profile name of " + std::to_string(name.size()) + " bytes", in, wants}});
  }
  Inputs dup;
  dup.bfd_profiles = {bfd("x"), bfd("x")};
  checkErrors({{"duplicate profile name",
                dup,
                {{"BFDProfile", "x", "metadata.name", "found duplicate bfd profile name x"}}}});
}

BOOST_AUTO_TEST_CASE(bfd_profile_values_are_copied) {
  Inputs in;
  in.bfd_profiles = {with(bfd("full"),
                          [](auto& b) {
                            b.spec.receive_interval = 300;
                            b.spec.transmit_interval = 200;
                            b.spec.detect_multiplier = 5;
                            b.spec.echo_interval = 50;
                            b.spec.echo_mode = true;
                            b.spec.passive_mode = true;
                            b.spec.minimum_ttl = 10;
                          }),
                     bfd("empty")};
  const Config cfg = parseOk(in);
  const BfdProfile& full = cfg.bfd_profiles.at("full");
  BOOST_TEST(full.receive_interval.value_or(0) == 300u);
  BOOST_TEST(full.transmit_interval.value_or(0) == 200u);
  BOOST_TEST(full.detect_multiplier.value_or(0) == 5u);
  BOOST_TEST(full.echo_interval.value_or(0) == 50u);
  BOOST_TEST(full.echo_mode);
  BOOST_TEST(full.passive_mode);
  BOOST_TEST(full.minimum_ttl.value_or(0) == 10u);
  const BfdProfile& empty = cfg.bfd_profiles.at("empty");
  BOOST_TEST(!empty.receive_interval.has_value());
  BOOST_TEST(!empty.echo_mode);
  BOOST_TEST(!empty.passive_mode);
}

BOOST_AUTO_TEST_CASE(bfd_echo_cannot_serve_ipv6_pools) {
  auto setup = [](std::vector<std::string> addresses, std::vector<std::string> ad_peers,
                  bool echo) {
    Inputs in;
    in.bfd_profiles = {with(bfd("echo"), [&](auto& b) { b.spec.echo_mode = echo; })};
    in.peers = {
        with(peer("r1", 64500, 64501, "10.0.0.1"), [](auto& p) { p.spec.bfd_profile = "echo"; }),
        peer("r2", 64500, 64502, "10.0.0.2")};
    in.pools = {pool("p", std::move(addresses))};
    in.bgp_advertisements = {with(bgp("ad"), [&](auto& a) { a.spec.peers = ad_peers; })};
    return in;
  };
  const std::string msg =
      "pool p has bgpadvertisement ad which references peer r1 which has bfd echo enabled, which "
      "is not possible";
  checkErrors({
      {"ipv6 pool to all peers",
       setup({"fc00::/64"}, {}, true),
       {{"BGPAdvertisement", "ad", "spec.peers", msg}}},
      {"dual-stack pool to the echo peer",
       setup({"10.0.0.0/24", "fc00::/64"}, {"r1"}, true),
       {{"BGPAdvertisement", "ad", "spec.peers", msg}}},
      {"ipv6 pool to another peer", setup({"fc00::/64"}, {"r2"}, true), {}},
      {"ipv4 pool to the echo peer", setup({"10.0.0.0/24"}, {"r1"}, true), {}},
      {"ipv6 pool without echo", setup({"fc00::/64"}, {}, false), {}},
      {"unknown peer names are ignored", setup({"fc00::/64"}, {"r9"}, true), {}},
  });
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config::testing
