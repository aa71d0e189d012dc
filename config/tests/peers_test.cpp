// SPDX-License-Identifier: Apache-2.0
#include <boost/test/unit_test.hpp>

#include "config/internal.h"
#include "config/tests/fixtures.h"

namespace ingot::config::testing {
namespace {

constexpr char kPeer[] = "BGPPeer";
constexpr char kBasicAuth[] = "kubernetes.io/basic-auth";

Inputs peersIn(std::vector<api::BGPPeer> list) {
  Inputs in;
  in.peers = std::move(list);
  return in;
}

api::BGPPeer base() {
  return peer("p", 64500, 64501, "10.0.0.1");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(peers)

BOOST_AUTO_TEST_CASE(peer_fields_are_copied_with_defaults) {
  Inputs in = peersIn({with(peer("full", 64500, 64501, "10.0.0.1"),
                            [](auto& p) {
                              p.spec.source_address = "10.0.0.2";
                              p.spec.router_id = "10.0.0.3";
                              p.spec.peer_port = 1179;
                              p.spec.hold_time = dur("90s", 90000);
                              p.spec.connect_time = dur("5s", 5000);
                              p.spec.password = "secret";
                              p.spec.enable_graceful_restart = true;
                              p.spec.ebgp_multi_hop = true;
                              p.spec.vrf = "red";
                              p.spec.dual_stack_address_family = true;
                              p.spec.local_asn = 65000;
                            }),
                       peer("minimal", 64500, 0, "fc00::1")});
  in.peers[1].spec.dynamic_asn = "external";
  // Different router IDs are only allowed for peers that never meet on a node.
  in.nodes = {node("n1", {{"rack", "1"}}), node("n2", {{"rack", "2"}})};
  in.peers[0].spec.node_selectors = {sel({{"rack", "1"}})};
  in.peers[1].spec.node_selectors = {sel({{"rack", "2"}})};
  const Config cfg = parseOk(in);
  const Peer& full = cfg.peers.at("full");
  BOOST_TEST(full.my_asn == 64500u);
  BOOST_TEST(full.peer_asn == 64501u);
  BOOST_TEST(full.address->toString() == "10.0.0.1");
  BOOST_TEST(full.source_address->toString() == "10.0.0.2");
  BOOST_TEST(full.router_id->toString() == "10.0.0.3");
  BOOST_TEST(full.port == 1179);
  BOOST_TEST(full.hold_time->count() == ms(90000).count());
  BOOST_TEST(full.keepalive_time->count() == ms(30000).count());
  BOOST_TEST(full.connect_time->count() == ms(5000).count());
  BOOST_TEST(full.password == "secret");
  BOOST_TEST(full.enable_graceful_restart);
  BOOST_TEST(full.ebgp_multi_hop);
  BOOST_TEST(full.vrf == "red");
  BOOST_TEST(full.dual_stack_address_family);
  BOOST_TEST(full.local_asn.value_or(0) == 65000u);
  const Peer& minimal = cfg.peers.at("minimal");
  BOOST_TEST(minimal.port == 179);
  BOOST_TEST((minimal.dynamic_asn == DynamicAsn::External));
  BOOST_TEST(minimal.peer_asn == 0u);
  BOOST_TEST(minimal.address->toString() == "fc00::1");
  BOOST_TEST(!minimal.hold_time.has_value());
  BOOST_TEST(!minimal.keepalive_time.has_value());
  BOOST_TEST(!minimal.source_address.has_value());
  BOOST_TEST(!minimal.router_id.has_value());
}

BOOST_AUTO_TEST_CASE(timers_are_derived_as_metallb_does) {
  struct Case {
    std::string desc;
    std::optional<api::Duration> hold;
    std::optional<api::Duration> keepalive;
    std::optional<int64_t> want_hold_ms;  ///< unset with want_keepalive_ms unset = no timers
    std::optional<int64_t> want_keepalive_ms;
    std::string want_error;  ///< non-empty = rejected with this message
  };
  const std::vector<Case> cases = {
      {"neither given", {}, {}, {}, {}, ""},
      {"hold only: keepalive is a third", dur("90s", 90000), {}, 90000, 30000, ""},
      {"keepalive only: hold is three times", {}, dur("10s", 10000), 30000, 10000, ""},
      {"both given are kept", dur("90s", 90000), dur("20s", 20000), 90000, 20000, ""},
      {"hold zero disables keepalives", dur("0s", 0), {}, 0, 0, ""},
      {"hold 3s is the minimum", dur("3s", 3000), {}, 3000, 1000, ""},
      {"hold rounds down before the check", dur("3.9s", 3900), {}, 3900, 1300, ""},
      {"keepalive 1s gives hold 3s", {}, dur("1s", 1000), 3000, 1000, ""},
      {"keepalive equal to hold", dur("30s", 30000), dur("30s", 30000), 30000, 30000, ""},
      {"hold 2s is too short",
       dur("2s", 2000),
       {},
       {},
       {},
       R"(invalid hold time "2s": must be 0 or >=3s)"},
      {"hold 2.999s rounds down to 2s",
       dur("2.999s", 2999),
       {},
       {},
       {},
       R"(invalid hold time "2.999s": must be 0 or >=3s)"},
      {"derived hold names the derived value",
       {},
       dur("500ms", 500),
       {},
       {},
       R"(invalid hold time "1.5s": must be 0 or >=3s)"},
      {"keepalive above hold",
       dur("90s", 90000),
       dur("100s", 100000),
       {},
       {},
       R"(invalid keepaliveTime "100s", must be lower than holdTime "90s")"},
      {"negative hold",
       dur("-3s", -3000),
       {},
       {},
       {},
       R"(invalid hold time "-3s": must be 0 or >=3s)"},
      {"negative keepalive",
       dur("90s", 90000),
       dur("-1s", -1000),
       {},
       {},
       R"(invalid keepaliveTime "-1s", must not be negative)"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto got = detail::deriveTimers(c.hold, c.keepalive);
      BOOST_TEST(got.has_value() == c.want_error.empty());
      if (!got) {
        BOOST_TEST(got.error().message == c.want_error);
        continue;
      }
      BOOST_TEST(got->hold.has_value() == c.want_hold_ms.has_value());
      BOOST_TEST(got->keepalive.has_value() == c.want_keepalive_ms.has_value());
      if (got->hold && c.want_hold_ms) {
        BOOST_TEST(got->hold->count() == ms(*c.want_hold_ms).count());
        BOOST_TEST(got->keepalive->count() == ms(*c.want_keepalive_ms).count());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(timer_errors_name_the_field_given) {
  checkErrors({
      {"hold given",
       peersIn({with(base(), [](auto& p) { p.spec.hold_time = dur("1s", 1000); })}),
       {{kPeer, "p", "spec.holdTime",
         R"(invalid BGPPeer timers: invalid hold time "1s": must be 0 or >=3s)"}}},
      {"keepalive only",
       peersIn({with(base(), [](auto& p) { p.spec.keepalive_time = dur("500ms", 500); })}),
       {{kPeer, "p", "spec.keepaliveTime",
         R"(invalid BGPPeer timers: invalid hold time "1.5s": must be 0 or >=3s)"}}},
      {"derived hold below a second rounds to zero and is allowed",
       peersIn({with(base(), [](auto& p) { p.spec.keepalive_time = dur("100ms", 100); })}),
       {}},
  });
}

BOOST_AUTO_TEST_CASE(peer_rules_reject_with_metallb_messages) {
  auto one = [](auto f) { return peersIn({with(base(), f)}); };
  const std::vector<ErrorCase> cases = {
      {"plain ebgp peer is valid", one([](auto&) {}), {}},
      {"ebgp multihop on ebgp is valid", one([](auto& p) { p.spec.ebgp_multi_hop = true; }), {}},
      {"missing my asn",
       one([](auto& p) { p.spec.my_asn = 0; }),
       {{kPeer, "p", "spec.myASN", "missing local ASN"}}},
      {"missing peer asn and dynamic asn",
       one([](auto& p) { p.spec.peer_asn = 0; }),
       {{kPeer, "p", "spec.peerASN", "missing peer ASN and dynamicASN"}}},
      {"both peer asn and dynamic asn",
       one([](auto& p) { p.spec.dynamic_asn = "external"; }),
       {{kPeer, "p", "spec.dynamicASN", "both peer ASN and dynamicASN specified"}}},
      {"unknown dynamic asn mode",
       one([](auto& p) {
         p.spec.peer_asn = 0;
         p.spec.dynamic_asn = "sometimes";
       }),
       {{kPeer, "p", "spec.dynamicASN", "invalid dynamicASN sometimes"}}},
      {"ebgp multihop on ibgp",
       one([](auto& p) {
         p.spec.peer_asn = p.spec.my_asn;
         p.spec.ebgp_multi_hop = true;
       }),
       {{kPeer, "p", "spec.ebgpMultiHop", "invalid ebgp-multihop parameter set for an ibgp peer"}}},
      {"ebgp multihop on dynamic internal",
       one([](auto& p) {
         p.spec.peer_asn = 0;
         p.spec.dynamic_asn = "internal";
         p.spec.ebgp_multi_hop = true;
       }),
       {{kPeer, "p", "spec.ebgpMultiHop", "invalid ebgp-multihop parameter set for an ibgp peer"}}},
      {"local asn zero",
       one([](auto& p) { p.spec.local_asn = 0; }),
       {{kPeer, "p", "spec.localASN", "invalid localASN 0, must be in 1-4294967295 range"}}},
      {"local asn on ibgp",
       one([](auto& p) {
         p.spec.peer_asn = p.spec.my_asn;
         p.spec.local_asn = 65000;
       }),
       {{kPeer, "p", "spec.localASN", "invalid localASN parameter set for an ibgp peer"}}},
      {"neither address nor interface",
       one([](auto& p) { p.spec.peer_address.clear(); }),
       {{kPeer, "p", "spec.peerAddress", "peer must have either peerAddress or interface set"}}},
      {"both address and interface",
       one([](auto& p) { p.spec.interface = "eth0"; }),
       {{kPeer, "p", "spec.interface", "peer can't have both peerAddress and interface set"}}},
      {"interface only is valid",
       one([](auto& p) {
         p.spec.peer_address.clear();
         p.spec.interface = "eth0";
       }),
       {}},
      {"bad peer address",
       one([](auto& p) { p.spec.peer_address = "10.0.0.300"; }),
       {{kPeer, "p", "spec.peerAddress", R"(invalid BGPPeer address "10.0.0.300")"}}},
      {"bad source address",
       one([](auto& p) { p.spec.source_address = "eth0"; }),
       {{kPeer, "p", "spec.sourceAddress", R"(invalid source IP "eth0")"}}},
      {"bad router id",
       one([](auto& p) { p.spec.router_id = "1.2.3"; }),
       {{kPeer, "p", "spec.routerID", R"(invalid router ID "1.2.3")"}}},
      {"port zero",
       one([](auto& p) { p.spec.peer_port = 0; }),
       {{kPeer, "p", "spec.peerPort", "invalid peerPort 0, must be in 1-16384 range"}}},
      {"port above the crd maximum",
       one([](auto& p) { p.spec.peer_port = 16385; }),
       {{kPeer, "p", "spec.peerPort", "invalid peerPort 16385, must be in 1-16384 range"}}},
      {"connect time below a second",
       one([](auto& p) { p.spec.connect_time = dur("500ms", 500); }),
       {{kPeer, "p", "spec.connectTime",
         R"(invalid connectTime "500ms": connect time should be between 1 seconds to 65535)"}}},
      {"connect time above 65535s",
       one([](auto& p) { p.spec.connect_time = dur("65536s", 65536000); }),
       {{kPeer, "p", "spec.connectTime",
         R"(invalid connectTime "65536s": connect time should be between 1 seconds to 65535)"}}},
      {"connect time with a fraction",
       one([](auto& p) { p.spec.connect_time = dur("1.5s", 1500); }),
       {{kPeer, "p", "spec.connectTime",
         R"(invalid connectTime "1.5s": connect time should contain a whole number of seconds)"}}},
      {"duplicate node selectors",
       one([](auto& p) {
         p.spec.node_selectors = {sel({{"a", "b"}}), sel({{"a", "b"}})};
       }),
       {{kPeer, "p", "spec.nodeSelectors[1]", R"(duplicate definition of nodeSelectors "a=b")"}}},
      {"invalid node selector",
       one([](auto& p) { p.spec.node_selectors = {expr("a", "In", {})}; }),
       {{kPeer, "p", "spec.nodeSelectors[0]",
         "invalid label selector: values: Required value: must be specified when `operator` is "
         R"('In' or 'NotIn' (key "a"))"}}},
      {"password and secret",
       one([](auto& p) {
         p.spec.password = "x";
         p.spec.password_secret = api::SecretReference{"s", kNs};
       }),
       {{kPeer, "p", "spec.password",
         R"(can not have both password and secret ref set in peer config "metallb-system"/"p")"}}},
      {"duplicate peer name",
       peersIn({base(), base()}),
       {{kPeer, "p", "metadata.name", R"(duplicate definition of peer "p")"}}},
      {"every problem of one peer is reported",
       one([](auto& p) {
         p.spec.my_asn = 0;
         p.spec.peer_address = "nope";
         p.spec.hold_time = dur("1s", 1000);
       }),
       {{kPeer, "p", "spec.myASN", "missing local ASN"},
        {kPeer, "p", "spec.peerAddress", R"(invalid BGPPeer address "nope")"},
        {kPeer, "p", "spec.holdTime",
         R"(invalid BGPPeer timers: invalid hold time "1s": must be 0 or >=3s)"}}},
  };
  checkErrors(cases);
}

// Every value FRR 8.4 or the kernel refuses once rendered is refused by the parser, at its field,
// with the reason; the boundary values FRR takes still parse.
BOOST_AUTO_TEST_CASE(values_frr_refuses_are_refused_at_their_field) {
  auto one = [](auto f) { return peersIn({with(base(), f)}); };
  const std::string who = R"("metallb-system"/"p")";
  const std::string p80(80, 'a');
  const std::string p81(81, 'a');
  const std::string tcp_md5 =
      "; TCP-MD5 keys are at most 80 bytes (Linux TCP_MD5SIG_MAXKEYLEN, FRR refuses longer ones)";
  const std::vector<ErrorCase> cases = {
      {"password of 80 bytes", one([&](auto& p) { p.spec.password = p80; }), {}},
      {"password of 81 bytes",
       one([&](auto& p) { p.spec.password = p81; }),
       {{kPeer, "p", "spec.password", "password for peer " + who + " is 81 bytes long" + tcp_md5}}},
      {"password of 65536 bytes",
       one([](auto& p) { p.spec.password = std::string(65536, 'x'); }),
       {{kPeer, "p", "spec.password",
         "password for peer " + who + " is 65536 bytes long" + tcp_md5}}},
      {"password with a space",
       one([](auto& p) { p.spec.password = "a b"; }),
       {{kPeer, "p", "spec.password",
         "password for peer " + who +
             " contains whitespace, which FRR's `neighbor X password` does not accept"}}},
      {"password with a tab",
       one([](auto& p) { p.spec.password = "a\tb"; }),
       {{kPeer, "p", "spec.password",
         "password for peer " + who +
             " contains whitespace, which FRR's `neighbor X password` does not accept"}}},
      {"password with a control character",
       one([](auto& p) { p.spec.password = "a\x01z"; }),
       {{kPeer, "p", "spec.password",
         "password for peer " + who + " contains control characters"}}},
      {"password with punctuation and UTF-8",
       one([](auto& p) { p.spec.password = "a!b#\"?ä"; }),
       {}},
      {"hold time 65535s", one([](auto& p) { p.spec.hold_time = dur("65535s", 65535000); }), {}},
      {"hold time 65536s",
       one([](auto& p) { p.spec.hold_time = dur("65536s", 65536000); }),
       {{kPeer, "p", "spec.holdTime",
         "invalid BGPPeer timers: hold time 65536s is above FRR's limit of 65535s"}}},
      {"hold time derived from keepalive above 65535s",
       one([](auto& p) { p.spec.keepalive_time = dur("30000s", 30000000); }),
       {{kPeer, "p", "spec.keepaliveTime",
         "invalid BGPPeer timers: hold time 90000s is above FRR's limit of 65535s"}}},
      {"VRF of 15 bytes", one([](auto& p) { p.spec.vrf = std::string(15, 'v'); }), {}},
      {"VRF of 16 bytes",
       one([](auto& p) { p.spec.vrf = std::string(16, 'v'); }),
       {{kPeer, "p", "spec.vrf",
         "VRF name vvvvvvvvvvvvvvvv is 16 bytes long; Linux device names are at most 15 bytes"}}},
      {"VRF with a space",
       one([](auto& p) { p.spec.vrf = "red blue"; }),
       {{kPeer, "p", "spec.vrf",
         "VRF name red blue is not a valid device name (no whitespace, control characters, '/' "
         "or ':', not . or ..)"}}},
      {"interface of 16 bytes",
       one([](auto& p) {
         p.spec.peer_address.clear();
         p.spec.interface = "eth0123456789012";
       }),
       {{kPeer, "p", "spec.interface",
         "interface name eth0123456789012 is 16 bytes long; Linux device names are at most 15 "
         "bytes"}}},
      {"interface with a slash",
       one([](auto& p) {
         p.spec.peer_address.clear();
         p.spec.interface = "eth0/1";
       }),
       {{kPeer, "p", "spec.interface",
         "interface name eth0/1 is not a valid device name (no whitespace, control characters, "
         "'/' or ':', not . or ..)"}}},
      {"IPv6 router ID",
       one([](auto& p) { p.spec.router_id = "fd00::1"; }),
       {{kPeer, "p", "spec.routerID",
         "router ID fd00::1 is an IPv6 address; FRR's bgp router-id takes an IPv4 address"}}},
      {"local ASN equal to my ASN",
       one([](auto& p) { p.spec.local_asn = p.spec.my_asn; }),
       {{kPeer, "p", "spec.localASN",
         "localASN 64500 equals myASN; FRR refuses a local-as equal to the router's ASN"}}},
      {"local ASN equal to peer ASN",
       one([](auto& p) { p.spec.local_asn = p.spec.peer_asn; }),
       {{kPeer, "p", "spec.localASN",
         "localASN 64501 equals peerASN; FRR refuses a local-as equal to the peer's ASN"}}},
      {"another local ASN", one([](auto& p) { p.spec.local_asn = 65010; }), {}},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(a_secret_password_frr_refuses_is_refused) {
  Inputs in = peersIn({with(base(), [](auto& p) {
    p.spec.password_secret = api::SecretReference{"bgp-auth", kNs};
  })});
  std::string encoded;  // base64 of 81 × 'a': "aaa" is "YWFh"
  for (int i = 0; i < 27; ++i) {
    encoded += "YWFh";
  }
  in.secrets = {secret("bgp-auth", kBasicAuth, {{"password", encoded}})};
  checkErrors({{"81-byte password in the Secret",
                in,
                {{kPeer, "p", "spec.passwordSecret",
                  R"(password for peer "metallb-system"/"p" is 81 bytes long; TCP-MD5 keys are )"
                  "at most 80 bytes (Linux TCP_MD5SIG_MAXKEYLEN, FRR refuses longer ones)"}}}});
}

BOOST_AUTO_TEST_CASE(password_secret_must_exist_be_basic_auth_and_hold_password) {
  auto with_secret = [](std::vector<api::Secret> secrets) {
    Inputs in = peersIn({with(base(), [](auto& p) {
      p.spec.password_secret = api::SecretReference{"bgp-auth", kNs};
    })});
    in.secrets = std::move(secrets);
    return in;
  };
  const std::string ref = R"("metallb-system"/"bgp-auth")";
  const std::vector<ErrorCase> cases = {
      {"missing secret is transient",
       with_secret({}),
       {{kPeer, "p", "spec.passwordSecret",
         R"(secret ref not found for peer config "metallb-system"/"p")", true}}},
      {"other secrets do not count",
       with_secret({secret("other", kBasicAuth, {})}),
       {{kPeer, "p", "spec.passwordSecret",
         R"(secret ref not found for peer config "metallb-system"/"p")", true}}},
      {"wrong secret type",
       with_secret({secret("bgp-auth", "Opaque", {{"password", "eA=="}})}),
       {{kPeer, "p", "spec.passwordSecret",
         "secret type mismatch on " + ref + R"(, type "kubernetes.io/basic-auth" is expected)"}}},
      {"no password key",
       with_secret({secret("bgp-auth", kBasicAuth, {{"username", "eA=="}})}),
       {{kPeer, "p", "spec.passwordSecret", "password not specified in the secret " + ref}}},
      {"password not base64",
       with_secret({secret("bgp-auth", kBasicAuth, {{"password", "a*b"}})}),
       {{kPeer, "p", "spec.passwordSecret",
         "invalid value of key password in the secret " + ref +
             ": illegal base64 data at input byte 1"}}},
      {"valid secret",
       with_secret({secret("bgp-auth", kBasicAuth, {{"password", "czNjcjN0"}})}),
       {}},
  };
  checkErrors(cases);
}

BOOST_AUTO_TEST_CASE(secret_password_is_decoded_and_string_data_wins) {
  struct Case {
    std::string desc;
    api::StringMap data;
    api::StringMap string_data;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"base64 data", {{"password", "czNjcjN0"}}, {}, "s3cr3t"},
      {"padded base64", {{"password", "czNjcjN0IQ=="}}, {}, "s3cr3t!"},
      {"string data only", {}, {{"password", "plain"}}, "plain"},
      {"string data overrides data", {{"password", "czNjcjN0"}}, {{"password", "plain"}}, "plain"},
      {"empty password", {{"password", ""}}, {}, ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Inputs in = peersIn({with(base(), [](auto& p) {
        p.spec.password_secret = api::SecretReference{"bgp-auth", kNs};
      })});
      in.secrets = {with(secret("bgp-auth", kBasicAuth, c.data),
                         [&](auto& s) { s.string_data = c.string_data; })};
      const Config cfg = parseOk(in);
      const Peer& p = cfg.peers.at("p");
      BOOST_TEST(p.secret_password == c.want);
      BOOST_TEST(p.password.empty());
      BOOST_TEST(p.password_secret->name == "bgp-auth");
    }
  }
}

BOOST_AUTO_TEST_CASE(bfd_profile_must_exist_or_the_error_is_transient) {
  auto with_profile = [](std::string profile, std::vector<api::BFDProfile> profiles) {
    Inputs in = peersIn({with(base(), [&](auto& p) { p.spec.bfd_profile = profile; })});
    in.bfd_profiles = std::move(profiles);
    return in;
  };
  checkErrors({
      {"existing profile", with_profile("fast", {bfd("fast")}), {}},
      {"missing profile",
       with_profile("fast", {bfd("slow")}),
       {{kPeer, "p", "spec.bfdProfile", "peer p referencing non existing bfd profile fast", true}}},
      {"profile that exists but is invalid is not reported as missing",
       with_profile("fast", {with(bfd("fast"), [](auto& b) { b.spec.detect_multiplier = 1; })}),
       {{"BFDProfile", "fast", "spec.detectMultiplier",
         "invalid value 1, must be in 2-255 range"}}},
  });
  const Config cfg = parseOk(with_profile("fast", {bfd("fast")}));
  BOOST_TEST(cfg.peers.at("p").bfd_profile == "fast");
}

BOOST_AUTO_TEST_CASE(node_selectors_resolve_to_node_names) {
  struct Case {
    std::string desc;
    std::vector<api::LabelSelector> selectors;
    std::set<std::string> want;
  };
  const std::vector<Case> cases = {
      {"no selector selects every node", {}, {"a", "b", "c"}},
      {"match labels", {sel({{"rack", "1"}})}, {"a", "b"}},
      {"selectors are ORed", {sel({{"rack", "2"}}), sel({{"role", "edge"}})}, {"a", "c"}},
      {"expressions", {expr("rack", "NotIn", {"1"})}, {"c"}},
      {"nothing matches", {sel({{"rack", "9"}})}, {}},
      {"empty selector matches all", {api::LabelSelector{}}, {"a", "b", "c"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Inputs in = peersIn({with(base(), [&](auto& p) { p.spec.node_selectors = c.selectors; })});
      in.nodes = {node("a", {{"rack", "1"}, {"role", "edge"}}), node("b", {{"rack", "1"}}),
                  node("c", {{"rack", "2"}})};
      const Config cfg = parseOk(in);
      BOOST_TEST(cfg.peers.at("p").nodes == c.want, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config::testing
