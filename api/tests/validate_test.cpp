// SPDX-License-Identifier: Apache-2.0
#include "api/validate.h"

#include <functional>

#include <boost/test/unit_test.hpp>

#include "api/tests/fixtures.h"

namespace api = ingot::api;
namespace fx = ingot::api::testing;

namespace {

/// Case: an object and the error expected from it (field empty = valid).
struct Case {
  std::string desc;
  api::AnyObject object;
  std::string field;
  std::string message;  // exact message, or a prefix when it ends with "..."
};

template <typename T>
api::AnyObject with(T object, const std::function<void(T&)>& edit) {
  edit(object);
  return object;
}

void runCases(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto errors = api::validateObject(c.object);
      if (c.field.empty()) {
        BOOST_TEST(errors.empty(),
                   (errors.empty() ? "" : errors[0].field + ": " + errors[0].message));
        continue;
      }
      BOOST_REQUIRE_MESSAGE(!errors.empty(), "expected an error at " + c.field);
      BOOST_TEST(errors[0].field == c.field);
      if (c.message.size() > 3 && c.message.ends_with("...")) {
        const std::string prefix = c.message.substr(0, c.message.size() - 3);
        BOOST_TEST(errors[0].message.rfind(prefix, 0) == 0u, errors[0].message);
      } else {
        BOOST_TEST(errors[0].message == c.message);
      }
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(validate)

BOOST_AUTO_TEST_CASE(every_fixture_is_valid) {
  for (const auto& object : fx::allObjects()) {
    BOOST_TEST_CONTEXT(api::kindOf(object)) {
      const auto errors = api::validateObject(object);
      BOOST_TEST(errors.empty(),
                 (errors.empty() ? "" : errors[0].field + ": " + errors[0].message));
    }
  }
}

BOOST_AUTO_TEST_CASE(ip_address_pool_rules) {
  using P = api::IPAddressPool;
  const std::vector<Case> cases = {
      {"missing name", with<P>(fx::pool(), [](P& p) { p.metadata.name.clear(); }), "metadata.name",
       "Required value: name is required"},
      {"no addresses", with<P>(fx::pool(), [](P& p) { p.spec.addresses.clear(); }),
       "spec.addresses", "pool has no prefixes defined"},
      {"bare IP", with<P>(fx::pool(), [](P& p) { p.spec.addresses = {"10.0.0.1"}; }),
       "spec.addresses[0]", "invalid CIDR \"10.0.0.1\" in pool \"production\": ..."},
      {"range start after end",
       with<P>(fx::pool(),
               [](P& p) {
                 p.spec.addresses = {"10.0.0.0/8", "10.0.0.9-10.0.0.1"};
               }),
       "spec.addresses[1]", "invalid CIDR \"10.0.0.9-10.0.0.1\" in pool \"production\": ..."},
      {"host bits set is fine",
       with<P>(fx::pool(), [](P& p) { p.spec.addresses = {"10.0.0.7/24"}; }), "", ""},
      {"range with spaces is fine",
       with<P>(fx::pool(), [](P& p) { p.spec.addresses = {"10.0.0.1 - 10.0.0.9"}; }), "", ""},
      {"duplicate namespace",
       with<P>(fx::pool(),
               [](P& p) {
                 p.spec.service_allocation->namespaces = {"a", "b", "a"};
               }),
       "spec.serviceAllocation.namespaces[2]", "duplicate definition in namespaces field"},
      {"duplicate namespace selector",
       with<P>(fx::pool(),
               [](P& p) {
                 auto& s = p.spec.service_allocation->namespace_selectors;
                 s.push_back(s[0]);
               }),
       "spec.serviceAllocation.namespaceSelectors[1]",
       "duplicate definition of namespaceSelectors ..."},
      {"invalid service selector",
       with<P>(fx::pool(),
               [](P& p) {
                 p.spec.service_allocation->service_selectors = {{{{"a", "b c"}}, {}}};
               }),
       "spec.serviceAllocation.serviceSelectors[0]", "invalid label value ..."},
      {"empty service allocation is fine",
       with<P>(fx::pool(), [](P& p) { p.spec.service_allocation = api::ServiceAllocation{}; }), "",
       ""},
  };
  runCases(cases);
}

BOOST_AUTO_TEST_CASE(l2_advertisement_rules) {
  using A = api::L2Advertisement;
  const std::vector<Case> cases = {
      {"empty spec is fine", with<A>(fx::l2Advertisement(), [](A& a) { a.spec = {}; }), "", ""},
      {"duplicate pool",
       with<A>(fx::l2Advertisement(),
               [](A& a) {
                 a.spec.ip_address_pools = {"x", "x"};
               }),
       "spec.ipAddressPools[1]", "duplicate definition of ipAddressPools \"x\""},
      {"duplicate node selector with reordered values",
       with<A>(fx::l2Advertisement(),
               [](A& a) {
                 a.spec.node_selectors = {{{}, {{"k", "In", {"a", "b"}}}},
                                          {{}, {{"k", "In", {"b", "a"}}}}};
               }),
       "spec.nodeSelectors[1]", "duplicate definition of nodeSelectors \"k in (a,b)\""},
      {"duplicate values in an expression",
       with<A>(fx::l2Advertisement(),
               [](A& a) {
                 a.spec.service_selectors = {{{}, {{"k", "In", {"a", "a"}}}}};
               }),
       "spec.serviceSelectors[0].matchExpressions[0].values[1]",
       "duplicate definition of match expression value in label selector \"a\""},
      {"duplicate expressions",
       with<A>(
           fx::l2Advertisement(),
           [](A& a) {
             a.spec.ip_address_pool_selectors = {{{}, {{"k", "Exists", {}}, {"k", "Exists", {}}}}};
           }),
       "spec.ipAddressPoolSelectors[0].matchExpressions[1]",
       "duplicate definition of match expressions \"k\""},
      {"bad operator",
       with<A>(fx::l2Advertisement(),
               [](A& a) {
                 a.spec.node_selectors = {{{}, {{"k", "Equals", {"x"}}}}};
               }),
       "spec.nodeSelectors[0]", "\"Equals\" is not a valid label selector operator (key \"k\")"},
      {"weight 0",
       with<A>(fx::l2Advertisement(), [](A& a) { a.spec.preferred_node_selectors[0].weight = 0; }),
       "spec.preferredNodeSelectors[0].weight",
       "Invalid value: 0: spec.preferredNodeSelectors[0].weight in body should be greater than or "
       "equal to 1"},
      {"weight 101",
       with<A>(fx::l2Advertisement(),
               [](A& a) { a.spec.preferred_node_selectors[1].weight = 101; }),
       "spec.preferredNodeSelectors[1].weight",
       "Invalid value: 101: spec.preferredNodeSelectors[1].weight in body should be less than or "
       "equal to 100"},
      {"bad preference",
       with<A>(fx::l2Advertisement(),
               [](A& a) {
                 a.spec.preferred_node_selectors[0].preference = {{}, {{"k", "In", {}}}};
               }),
       "spec.preferredNodeSelectors[0].preference", "values: Required value: ..."},
  };
  runCases(cases);
}

BOOST_AUTO_TEST_CASE(bgp_advertisement_rules) {
  using A = api::BGPAdvertisement;
  const std::string cel =
      "serviceSelectors and aggregationLength are mutually exclusive, can only be used together "
      "with default aggregationLength (32) and aggregationLengthV6 (128)";
  const std::vector<Case> cases = {
      {"aggregation 33",
       with<A>(fx::bgpAdvertisement(), [](A& a) { a.spec.aggregation_length = 33; }),
       "spec.aggregationLength", "invalid aggregation length 33 for IPv4"},
      {"aggregation 0",
       with<A>(fx::bgpAdvertisement(), [](A& a) { a.spec.aggregation_length = 0; }),
       "spec.aggregationLength",
       "Invalid value: 0: spec.aggregationLength in body should be greater than or equal to 1"},
      {"aggregation 1",
       with<A>(fx::bgpAdvertisement(), [](A& a) { a.spec.aggregation_length = 1; }), "", ""},
      {"aggregation v6 129",
       with<A>(fx::bgpAdvertisement(), [](A& a) { a.spec.aggregation_length_v6 = 129; }),
       "spec.aggregationLengthV6", "invalid aggregation length 129 for IPv6"},
      {"aggregation v6 0",
       with<A>(fx::bgpAdvertisement(), [](A& a) { a.spec.aggregation_length_v6 = 0; }), "", ""},
      {"aggregation v6 negative: the CRD has no minimum (pools decide, in config/)",
       with<A>(fx::bgpAdvertisement(), [](A& a) { a.spec.aggregation_length_v6 = -1; }), "", ""},
      {"service selectors with custom aggregation",
       with<A>(fx::bgpAdvertisement(),
               [](A& a) { a.spec.service_selectors = {fx::selector("a", "b")}; }),
       "spec", cel},
      {"service selectors with custom v6 aggregation only",
       with<A>(fx::bgpAdvertisement(),
               [](A& a) {
                 a.spec.aggregation_length = 32;
                 a.spec.service_selectors = {fx::selector("a", "b")};
               }),
       "spec", cel},
      {"service selectors with explicit default aggregation",
       with<A>(fx::bgpAdvertisement(),
               [](A& a) {
                 a.spec.aggregation_length = 32;
                 a.spec.aggregation_length_v6 = 128;
                 a.spec.service_selectors = {fx::selector("a", "b")};
               }),
       "", ""},
      {"duplicate community",
       with<A>(fx::bgpAdvertisement(),
               [](A& a) {
                 a.spec.communities = {"1:1", "1:1"};
               }),
       "spec.communities[1]", "duplicate definition of community \"1:1\""},
      {"community section out of range",
       with<A>(fx::bgpAdvertisement(), [](A& a) { a.spec.communities = {"65536:1"}; }),
       "spec.communities[0]",
       "invalid community \"65536:1\" in BGP advertisement: invalid community value: invalid "
       "section \"65536\" of community \"65536:1\""},
      {"large community without marker",
       with<A>(fx::bgpAdvertisement(), [](A& a) { a.spec.communities = {"big:1:2:3"}; }),
       "spec.communities[0]", "invalid community \"big:1:2:3\" in BGP advertisement: ..."},
      {"alias names are left to config",
       with<A>(fx::bgpAdvertisement(),
               [](A& a) {
                 a.spec.communities = {"my-alias", "a:b:c"};
               }),
       "", ""},
      {"duplicate peer",
       with<A>(fx::bgpAdvertisement(),
               [](A& a) {
                 a.spec.peers = {"p", "p"};
               }),
       "spec.peers[1]", "duplicate definition of peers \"p\""},
      {"duplicate pool",
       with<A>(fx::bgpAdvertisement(),
               [](A& a) {
                 a.spec.ip_address_pools = {"p", "p"};
               }),
       "spec.ipAddressPools[1]", "duplicate definition of ipAddressPools \"p\""},
  };
  runCases(cases);
}

BOOST_AUTO_TEST_CASE(bgp_peer_rules) {
  using P = api::BGPPeer;
  auto d = [](int64_t ns) { return api::Duration{ns, ""}; };
  constexpr int64_t kS = 1000000000;
  const std::vector<Case> cases = {
      {"missing myASN", with<P>(fx::bgpPeer(), [](P& p) { p.spec.my_asn = 0; }), "spec.myASN",
       "missing local ASN"},
      {"missing peer ASN", with<P>(fx::bgpPeer(), [](P& p) { p.spec.peer_asn = 0; }),
       "spec.peerASN", "missing peer ASN and dynamicASN"},
      {"dynamic ASN instead of peer ASN",
       with<P>(fx::bgpPeer(),
               [](P& p) {
                 p.spec.peer_asn = 0;
                 p.spec.dynamic_asn = "external";
               }),
       "", ""},
      {"both ASNs", with<P>(fx::bgpPeer(), [](P& p) { p.spec.dynamic_asn = "internal"; }),
       "spec.dynamicASN", "both peer ASN and dynamicASN specified"},
      {"bad dynamic ASN",
       with<P>(fx::bgpPeer(),
               [](P& p) {
                 p.spec.peer_asn = 0;
                 p.spec.dynamic_asn = "both";
               }),
       "spec.dynamicASN", "invalid dynamicASN both"},
      {"local ASN 0", with<P>(fx::bgpPeer(), [](P& p) { p.spec.local_asn = 0u; }), "spec.localASN",
       "Invalid value: 0: spec.localASN in body should be greater than or equal to 1"},
      {"ibgp multihop", with<P>(fx::bgpPeer(), [](P& p) { p.spec.peer_asn = p.spec.my_asn; }),
       "spec.ebgpMultiHop", "invalid ebgp-multihop parameter set for an ibgp peer"},
      {"neither address nor interface",
       with<P>(fx::bgpPeer(), [](P& p) { p.spec.peer_address.clear(); }), "spec.peerAddress",
       "peer has no Address or Interface specified"},
      {"interface instead of address",
       with<P>(fx::bgpPeer(),
               [](P& p) {
                 p.spec.peer_address.clear();
                 p.spec.interface = "eth1";
               }),
       "", ""},
      {"address and interface", with<P>(fx::bgpPeer(), [](P& p) { p.spec.interface = "eth1"; }),
       "spec.interface", "peer has both Address and Interface specified"},
      {"interface with newline",
       with<P>(fx::bgpPeer(),
               [](P& p) {
                 p.spec.peer_address.clear();
                 p.spec.interface = "eth1\nrouter bgp 1";
               }),
       "spec.interface",
       "interface for peer \"metallb-system\"/\"tor-a\" contains invalid characters"},
      {"bad peer address", with<P>(fx::bgpPeer(), [](P& p) { p.spec.peer_address = "10.0.0.300"; }),
       "spec.peerAddress", "invalid BGPPeer address \"10.0.0.300\""},
      {"bad router ID", with<P>(fx::bgpPeer(), [](P& p) { p.spec.router_id = "router-1"; }),
       "spec.routerID", "invalid router ID \"router-1\""},
      {"bad source address", with<P>(fx::bgpPeer(), [](P& p) { p.spec.source_address = "eth0"; }),
       "spec.sourceAddress", "invalid source IP \"eth0\""},
      {"port 0", with<P>(fx::bgpPeer(), [](P& p) { p.spec.peer_port = uint16_t{0}; }),
       "spec.peerPort",
       "Invalid value: 0: spec.peerPort in body should be greater than or equal to 1"},
      {"port 16385", with<P>(fx::bgpPeer(), [](P& p) { p.spec.peer_port = uint16_t{16385}; }),
       "spec.peerPort",
       "Invalid value: 16385: spec.peerPort in body should be less than or equal to 16384"},
      {"port 16384", with<P>(fx::bgpPeer(), [](P& p) { p.spec.peer_port = uint16_t{16384}; }), "",
       ""},
      {"hold 2s",
       with<P>(fx::bgpPeer(),
               [](P& p) {
                 p.spec.hold_time = api::Duration{2 * kS, "2s"};
               }),
       "spec.holdTime", "invalid BGPPeer timers: invalid hold time \"2s\": must be 0 or >=3s"},
      {"hold 0 keepalive 0",
       with<P>(fx::bgpPeer(),
               [&](P& p) {
                 p.spec.hold_time = d(0);
                 p.spec.keepalive_time = d(0);
               }),
       "", ""},
      {"hold 3.9s rounds down to 3s",
       with<P>(fx::bgpPeer(),
               [&](P& p) {
                 p.spec.hold_time = d(3900000000);
                 p.spec.keepalive_time = d(kS);
               }),
       "", ""},
      {"hold 999ms rounds down to 0",
       with<P>(fx::bgpPeer(),
               [&](P& p) {
                 p.spec.hold_time = d(999000000);
                 p.spec.keepalive_time.reset();
               }),
       "", ""},
      {"keepalive above hold",
       with<P>(fx::bgpPeer(), [&](P& p) { p.spec.keepalive_time = d(91 * kS); }),
       "spec.keepaliveTime",
       "invalid BGPPeer timers: invalid keepaliveTime \"1m31s\", must be lower than holdTime "
       "\"1m30s\""},
      {"keepalive only derives hold",
       with<P>(fx::bgpPeer(),
               [&](P& p) {
                 p.spec.hold_time.reset();
                 p.spec.keepalive_time = d(500000000);
               }),
       "spec.keepaliveTime",
       "invalid BGPPeer timers: invalid hold time \"1.5s\": must be 0 or >=3s"},
      {"hold only derives keepalive",
       with<P>(fx::bgpPeer(),
               [&](P& p) {
                 p.spec.hold_time = d(9 * kS);
                 p.spec.keepalive_time.reset();
               }),
       "", ""},
      {"connect time 0", with<P>(fx::bgpPeer(), [&](P& p) { p.spec.connect_time = d(0); }),
       "spec.connectTime", "connect time should be between 1 seconds to 65535"},
      {"connect time 65536s",
       with<P>(fx::bgpPeer(), [&](P& p) { p.spec.connect_time = d(65536 * kS); }),
       "spec.connectTime", "connect time should be between 1 seconds to 65535"},
      {"connect time 65535s",
       with<P>(fx::bgpPeer(), [&](P& p) { p.spec.connect_time = d(65535 * kS); }), "", ""},
      {"connect time 1.5s",
       with<P>(fx::bgpPeer(), [&](P& p) { p.spec.connect_time = d(1500000000); }),
       "spec.connectTime", "connect time should contain a whole number of seconds"},
      {"password and secret", with<P>(fx::bgpPeer(), [](P& p) { p.spec.password = "x"; }),
       "spec.passwordSecret",
       "can not have both password and secret ref set in peer config \"metallb-system\"/\"tor-a\""},
      {"password and empty secret ref",
       with<P>(fx::bgpPeer(),
               [](P& p) {
                 p.spec.password = "x";
                 p.spec.password_secret = api::SecretReference{};
               }),
       "", ""},
      {"password with newline",
       with<P>(fx::bgpPeer(),
               [](P& p) {
                 p.spec.password_secret.reset();
                 p.spec.password = "a\rb";
               }),
       "spec.password",
       "password for peer \"metallb-system\"/\"tor-a\" contains invalid characters"},
      {"vrf with newline", with<P>(fx::bgpPeer(), [](P& p) { p.spec.vrf = "red\n"; }), "spec.vrf",
       "VRF name for peer \"metallb-system\"/\"tor-a\" contains invalid characters"},
      {"duplicate node selectors",
       with<P>(fx::bgpPeer(),
               [](P& p) { p.spec.node_selectors.push_back(p.spec.node_selectors[0]); }),
       "spec.nodeSelectors[1]", "duplicate definition of nodeSelectors ..."},
  };
  runCases(cases);
}

BOOST_AUTO_TEST_CASE(bgp_peer_v1beta1_is_validated_as_converted_with_port_0_allowed) {
  using P = api::BGPPeerV1beta1;
  const std::vector<Case> cases = {
      {"port 0 allowed",
       with<P>(fx::bgpPeerV1beta1(), [](P& p) { p.spec.peer_port = uint16_t{0}; }), "", ""},
      {"port 16385",
       with<P>(fx::bgpPeerV1beta1(), [](P& p) { p.spec.peer_port = uint16_t{16385}; }),
       "spec.peerPort", "Invalid value: 16385: ..."},
      {"missing address", with<P>(fx::bgpPeerV1beta1(), [](P& p) { p.spec.peer_address.clear(); }),
       "spec.peerAddress", "peer has no Address or Interface specified"},
      {"missing peer ASN", with<P>(fx::bgpPeerV1beta1(), [](P& p) { p.spec.peer_asn = 0; }),
       "spec.peerASN", "missing peer ASN and dynamicASN"},
  };
  runCases(cases);
}

// What FRR 8.4 or the kernel refuses once rendered is refused at admission, naming the field and
// the reason; the boundary values FRR takes are admitted.
BOOST_AUTO_TEST_CASE(bgp_peer_values_frr_refuses) {
  using P = api::BGPPeer;
  constexpr int64_t kS = 1000000000;
  const std::string who = R"(peer "metallb-system"/"tor-a")";
  auto with_password = [](std::string password) {
    return with<P>(fx::bgpPeer(), [&](P& p) {
      p.spec.password_secret.reset();
      p.spec.password = password;
    });
  };
  const std::vector<Case> cases = {
      {"password of 80 bytes", with_password(std::string(80, 'k')), "", ""},
      {"password of 81 bytes", with_password(std::string(81, 'k')), "spec.password",
       "password for " + who +
           " is 81 bytes long; TCP-MD5 keys are at most 80 bytes (Linux TCP_MD5SIG_MAXKEYLEN, FRR "
           "refuses longer ones)"},
      {"password of 65536 bytes", with_password(std::string(65536, 'k')), "spec.password",
       "password for " + who + " is 65536 bytes long..."},
      {"password with a space", with_password("two words"), "spec.password",
       "password for " + who +
           " contains whitespace, which FRR's `neighbor X password` does not accept"},
      {"password with DEL", with_password("a\x7f"), "spec.password",
       "password for " + who + " contains control characters"},
      {"hold time 65535s",
       with<P>(fx::bgpPeer(),
               [&](P& p) {
                 p.spec.hold_time = api::Duration{65535 * kS, ""};
               }),
       "", ""},
      {"hold time 65536s",
       with<P>(fx::bgpPeer(),
               [&](P& p) {
                 p.spec.hold_time = api::Duration{65536 * kS, ""};
               }),
       "spec.holdTime", "invalid BGPPeer timers: hold time 65536s is above FRR's limit of 65535s"},
      {"VRF of 16 bytes", with<P>(fx::bgpPeer(), [](P& p) { p.spec.vrf = "vrf-0123456789ab"; }),
       "spec.vrf",
       who + ": VRF name vrf-0123456789ab is 16 bytes long; Linux device names are at most 15 "
             "bytes"},
      {"VRF with a tab", with<P>(fx::bgpPeer(), [](P& p) { p.spec.vrf = "a\tb"; }), "spec.vrf",
       who + ": VRF name a\tb is not a valid device name..."},
      {"interface of 16 bytes",
       with<P>(fx::bgpPeer(),
               [](P& p) {
                 p.spec.peer_address.clear();
                 p.spec.interface = "enp0s31f6xxxxxxx";
               }),
       "spec.interface", who + ": interface name enp0s31f6xxxxxxx is 16 bytes long..."},
      {"IPv6 router ID", with<P>(fx::bgpPeer(), [](P& p) { p.spec.router_id = "fd00::1"; }),
       "spec.routerID",
       who + ": router ID fd00::1 is an IPv6 address; FRR's bgp router-id takes an IPv4 address"},
      {"local ASN equal to my ASN",
       with<P>(fx::bgpPeer(), [](P& p) { p.spec.local_asn = p.spec.my_asn; }), "spec.localASN",
       who + ": localASN 4200000000 equals myASN; FRR refuses a local-as equal to the router's "
             "ASN"},
      {"local ASN equal to peer ASN",
       with<P>(fx::bgpPeer(), [](P& p) { p.spec.local_asn = p.spec.peer_asn; }), "spec.localASN",
       who + ": localASN 4294967295 equals peerASN; FRR refuses a local-as equal to the peer's "
             "ASN"},
  };
  runCases(cases);
}

BOOST_AUTO_TEST_CASE(bfd_profile_name_frr_refuses) {
  using B = api::BFDProfile;
  runCases({
      {"64 bytes", with<B>(fx::bfdProfile(), [](B& b) { b.metadata.name = std::string(64, 'f'); }),
       "", ""},
      {"65 bytes", with<B>(fx::bfdProfile(), [](B& b) { b.metadata.name = std::string(65, 'f'); }),
       "metadata.name", "BFD profile name is 65 bytes long; FRR takes at most 64"},
  });
}

BOOST_AUTO_TEST_CASE(bfd_profile_rules) {
  using B = api::BFDProfile;
  struct Range {
    std::string field;
    std::string what;
    std::function<std::optional<uint32_t>&(B&)> slot;
    uint32_t min;
    uint32_t max;
  };
  const std::vector<Range> ranges = {{"spec.receiveInterval", "receive interval",
                                      [](B & b) -> auto& {return b.spec.receive_interval;
}
, 10, 60000
}
, {"spec.transmitInterval", "transmit interval", [](B& b) -> auto& {return b.spec.transmit_interval;
}
, 10, 60000
}
, {"spec.echoInterval", "echo interval", [](B& b) -> auto& {return b.spec.echo_interval;
}
, 10, 60000
}
, {"spec.detectMultiplier", "detect multiplier", [](B& b) -> auto& {return b.spec.detect_multiplier;
}
, 2, 255
}
, {"spec.minimumTtl", "minimum ttl", [](B& b) -> auto& {return b.spec.minimum_ttl;
}
, 1, 254
}
,
}
;
std::vector<Case> cases;
for (const auto& r : ranges) {
  const std::string tail = " range";
  auto make = [&](uint32_t v) { return with<B>(fx::bfdProfile(), [&](B& b) { r.slot(b) = v; }); };
  const std::string bounds = std::to_string(r.min) + "-" + std::to_string(r.max);
  cases.push_back({r.field + " at min", make(r.min), "", ""});
  cases.push_back({r.field + " at max", make(r.max), "", ""});
  cases.push_back({r.field + " below min", make(r.min - 1), r.field,
                   "invalid " + r.what + " value: invalid value " + std::to_string(r.min - 1) +
                       ", must be in " + bounds + tail});
  cases.push_back({r.field + " above max", make(r.max + 1), r.field,
                   "invalid " + r.what + " value: invalid value " + std::to_string(r.max + 1) +
                       ", must be in " + bounds + tail});
}
cases.push_back({"all unset", with<B>(fx::bfdProfile(), [](B& b) { b.spec = {}; }), "", ""});
runCases(cases);
}

BOOST_AUTO_TEST_CASE(community_rules) {
  using C = api::Community;
  const std::vector<Case> cases = {
      {"bad value", with<C>(fx::community(), [](C& c) { c.communities[0].value = "1:2:3"; }),
       "spec.communities[0].value",
       "parsing community \"no-export\": invalid community format: 1:2:3"},
      {"alias as value", with<C>(fx::community(), [](C& c) { c.communities[0].value = "vpn"; }),
       "spec.communities[0].value",
       "parsing community \"no-export\": invalid community format: vpn"},
      {"large out of range",
       with<C>(fx::community(), [](C& c) { c.communities[1].value = "large:1:2:4294967296"; }),
       "spec.communities[1].value", "parsing community \"vpn\": invalid community value: ..."},
      {"duplicate alias",
       with<C>(fx::community(), [](C& c) { c.communities[1].name = "no-export"; }),
       "spec.communities[1].name", "duplicate definition of community \"no-export\""},
  };
  runCases(cases);
}

BOOST_AUTO_TEST_CASE(status_and_core_kind_rules) {
  const std::vector<Case> cases = {
      {"L2 status with generateName only", fx::serviceL2Status(), "", ""},
      {"L2 status without any name",
       with<api::ServiceL2Status>(fx::serviceL2Status(),
                                  [](auto& s) { s.metadata.generate_name.clear(); }),
       "metadata.name", "Required value: name or generateName is required"},
      {"bad result",
       with<api::ConfigurationState>(fx::configurationState(),
                                     [](auto& s) { s.status.result = "Broken"; }),
       "status.result",
       "Unsupported value: \"Broken\": supported values: \"Valid\", \"Invalid\", \"Unknown\""},
      {"bad condition status",
       with<api::ConfigurationState>(fx::configurationState(),
                                     [](auto& s) { s.status.conditions[0].status = "Yes"; }),
       "status.conditions[0].status", "Unsupported value: \"Yes\": ..."},
      {"service without name",
       with<api::Service>(fx::service(), [](auto& s) { s.metadata.name.clear(); }), "metadata.name",
       "Required value: name is required"},
      {"service bad protocol",
       with<api::Service>(fx::service(), [](auto& s) { s.spec.ports[0].protocol = "tcp"; }),
       "spec.ports[0].protocol", "Unsupported value: \"tcp\": ..."},
      {"service port 0",
       with<api::Service>(fx::service(), [](auto& s) { s.spec.ports[0].port = 0; }),
       "spec.ports[0].port", "Invalid value: 0: ..."},
      {"service bad ingress IP",
       with<api::Service>(fx::service(), [](auto& s) { s.status.ingress[0].ip = "1.2.3"; }),
       "status.loadBalancer.ingress[0].ip", "invalid IP \"1.2.3\""},
      {"slice bad address type",
       with<api::EndpointSlice>(fx::endpointSlice(), [](auto& e) { e.address_type = "ipv4"; }),
       "addressType", "Unsupported value: \"ipv4\": ..."},
      {"secret bad base64",
       with<api::Secret>(fx::secret(), [](auto& s) { s.data["password"] = "not base64!"; }),
       "data[password]", "illegal base64 data at input byte 3"},
      {"node without name", with<api::Node>(fx::node(), [](auto& n) { n.metadata.name.clear(); }),
       "metadata.name", "Required value: name is required"},
      {"namespace without name",
       with<api::Namespace>(fx::namespaceObject(), [](auto& n) { n.metadata.name.clear(); }),
       "metadata.name", "Required value: name is required"},
  };
  runCases(cases);
}

BOOST_AUTO_TEST_CASE(go_quote_escapes_like_percent_q) {
  BOOST_TEST(api::goQuote("a\"b\\c\n\t\x01\xc3\xa9") == "\"a\\\"b\\\\c\\n\\t\\x01\xc3\xa9\"");
}

BOOST_AUTO_TEST_SUITE_END()
