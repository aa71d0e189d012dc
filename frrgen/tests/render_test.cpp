// SPDX-License-Identifier: Apache-2.0
#include "frrgen/render.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include <boost/test/unit_test.hpp>

namespace ingot::frrgen {
namespace {

// workedExample is a hand-checked Model: an iBGP IPv4 neighbor with password, BFD, timers, a
// community and a local pref, and an eBGP IPv6 neighbor with nothing to send.
Model workedExample() {
  Model m;
  Router r;
  r.asn = 64512;
  r.prefixes_v4 = {"192.168.10.0/32"};
  Neighbor a;
  a.address = "172.18.0.5";
  a.remote_as = "64512";
  a.password = "s3cr3t";
  a.bfd_profile = "fastbfd";
  a.hold_time = 90;
  a.keepalive_time = 30;
  a.outgoing_v4 = {{"192.168.10.0/32", 200, {"64512:100"}, {}}};
  Neighbor b;
  b.address = "fd00:10::5";
  b.remote_as = "64520";
  b.family = NeighborFamily::V6;
  r.neighbors = {a, b};
  m.routers = {r};
  m.bfd_profiles = {{"fastbfd", 100, 100, 3, std::nullopt, false, false, std::nullopt}};
  return m;
}

std::string mustRender(const Model& m, const RenderOptions& o = {}) {
  auto r = render(m, o);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
  return *r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool hasLine(const std::string& text, const std::string& line) {
  auto all = lines(text);
  return std::find(all.begin(), all.end(), line) != all.end();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_suite)

BOOST_AUTO_TEST_CASE(worked_example_renders_the_frrk8s_stanzas) {
  const std::string text = mustRender(workedExample());
  const std::vector<std::string> want = {
      "ip nht resolve-via-default",
      "ipv6 nht resolve-via-default",
      "bgp route-map delay-timer 1",
      "ip prefix-list 172.18.0.5-200-ip-localpref-prefixes seq 1878533024 permit 192.168.10.0/32",
      " set local-preference 200",
      " set community 64512:100 additive",
      " on-match next",
      "route-map 172.18.0.5-out permit 65534",
      " match ip address prefix-list 172.18.0.5-allowed-ipv4",
      "route-map 172.18.0.5-out permit 65535",
      " match ipv6 address prefix-list 172.18.0.5-allowed-ipv6",
      "ip prefix-list 172.18.0.5-inpl-ipv4 seq 4294967295 deny any",
      "ipv6 prefix-list 172.18.0.5-inpl-ipv4 seq 4294967295 deny any",
      "route-map 172.18.0.5-in permit 1",
      "route-map 172.18.0.5-in permit 2",
      " match ipv6 address prefix-list 172.18.0.5-inpl-ipv4",
      "ip prefix-list fd00:10::5-allowed-ipv4 seq 4294967295 deny any",
      "ipv6 prefix-list fd00:10::5-inpl-ipv6 seq 4294967295 deny any",
      "router bgp 64512",
      " no bgp ebgp-requires-policy",
      " no bgp default ipv4-unicast",
      " bgp graceful-restart preserve-fw-state",
      " no bgp network import-check",
      " neighbor 172.18.0.5 remote-as 64512",
      " neighbor 172.18.0.5 timers 30 90",
      " neighbor 172.18.0.5 password s3cr3t",
      " neighbor 172.18.0.5 bfd",
      " neighbor 172.18.0.5 bfd profile fastbfd",
      " neighbor fd00:10::5 remote-as 64520",
      " neighbor fd00:10::5 disable-connected-check",
      " address-family ipv4 unicast",
      "  network 192.168.10.0/32",
      "  neighbor 172.18.0.5 activate",
      "  neighbor 172.18.0.5 route-map 172.18.0.5-in in",
      "  neighbor 172.18.0.5 route-map 172.18.0.5-out out",
      " address-family ipv6 unicast",
      "  neighbor fd00:10::5 activate",
      "  neighbor fd00:10::5 route-map fd00:10::5-out out",
      "bfd",
      " profile fastbfd",
      "  receive-interval 100",
      "  transmit-interval 100",
  };
  for (const auto& l : want) {
    BOOST_TEST_CONTEXT(l) {
      BOOST_TEST(hasLine(text, l));
    }
  }
  BOOST_TEST(!hasLine(text, "  detect-multiplier 3"));  // FRR's default is left out
  BOOST_TEST(text.find("bfd\n") < text.find("router bgp"));
  BOOST_TEST(text.find("\nip prefix-list") < text.find("\nroute-map"));
  BOOST_TEST(mustRender(workedExample()) == text);  // deterministic
}

BOOST_AUTO_TEST_CASE(header_follows_the_options) {
  struct Case {
    std::string desc;
    RenderOptions options;
    std::vector<std::string> present;
    std::vector<std::string> absent;
  };
  const std::vector<Case> cases = {
      {"defaults",
       {},
       {"log stdout informational", "bgp route-map delay-timer 1"},
       {"hostname node1"}},
      {"hostname and log level",
       {"debugging", "node1", 1},
       {"log stdout debugging", "hostname node1"},
       {}},
      {"FRR's default delay timer is not written",
       {"informational", "", 5},
       {},
       {"bgp route-map delay-timer 5"}},
      {"a zero delay timer is written",
       {"informational", "", 0},
       {"bgp route-map delay-timer 0"},
       {}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const std::string text = mustRender(Model{}, c.options);
      for (const auto& l : c.present) BOOST_TEST(hasLine(text, l), l);
      for (const auto& l : c.absent) BOOST_TEST(!hasLine(text, l), l);
      // Forwarding is the node's: no line of either polarity (zebra would write the sysctls).
      for (const char* l :
           {"no ip forwarding", "no ipv6 forwarding", "ip forwarding", "ipv6 forwarding"}) {
        BOOST_TEST(!hasLine(text, l), l);
      }
    }
  }
  auto bad = render(Model{}, {"informational", "", 601});
  BOOST_TEST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().message == "route-map delay timer 601 is out of range 0-600");
}

BOOST_AUTO_TEST_CASE(session_lines_follow_the_neighbor) {
  struct Case {
    std::string desc;
    std::function<void(Neighbor&)> edit;
    std::vector<std::string> present;
    std::vector<std::string> absent;
  };
  const std::string p = " neighbor fd00::1 ";
  const std::vector<Case> cases = {
      {"ipv6 eBGP single hop disables the connected check",
       [](Neighbor&) {},
       {p + "disable-connected-check"},
       {}},
      {"ipv6 iBGP keeps the connected check",
       [](Neighbor& n) { n.remote_as = "64512"; },
       {},
       {p + "disable-connected-check"}},
      {"dynamic internal keeps the connected check",
       [](Neighbor& n) { n.remote_as = "internal"; },
       {},
       {p + "disable-connected-check"}},
      {"dynamic external disables the connected check",
       [](Neighbor& n) { n.remote_as = "external"; },
       {p + "remote-as external", p + "disable-connected-check"},
       {}},
      {"multihop keeps the connected check",
       [](Neighbor& n) { n.ebgp_multi_hop = true; },
       {p + "ebgp-multihop 255"},
       {p + "disable-connected-check"}},
      {"dual stack keeps the connected check",
       [](Neighbor& n) { n.family = NeighborFamily::Dual; },
       {},
       {p + "disable-connected-check"}},
      {"port 179 is not written", [](Neighbor& n) { n.port = 179; }, {}, {p + "port 179"}},
      {"another port is written", [](Neighbor& n) { n.port = 1179; }, {p + "port 1179"}, {}},
      {"explicit default timers are written",
       [](Neighbor& n) {
         n.hold_time = 180;
         n.keepalive_time = 60;
         n.connect_time = 60;
       },
       {p + "timers 60 180", p + "timers connect 60"},
       {}},
      {"local AS, source and graceful restart",
       [](Neighbor& n) {
         n.local_asn = 65001;
         n.source_address = "fd00::11";
         n.graceful_restart = true;
       },
       {p + "local-as 65001 no-prepend replace-as", p + "update-source fd00::11",
        p + "graceful-restart"},
       {}},
      {"unnumbered uses the interface form",
       [](Neighbor& n) {
         n.address.clear();
         n.interface = "eth1";
         n.family = NeighborFamily::Dual;
       },
       {" neighbor eth1 interface remote-as 64513", "  neighbor eth1 route-map eth1-out out"},
       {}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Model m;
      Router r;
      r.asn = 64512;
      Neighbor n;
      n.address = "fd00::1";
      n.remote_as = "64513";
      n.family = NeighborFamily::V6;
      c.edit(n);
      r.neighbors = {n};
      m.routers = {r};
      const std::string text = mustRender(m);
      for (const auto& l : c.present) BOOST_TEST(hasLine(text, l), l);
      for (const auto& l : c.absent) BOOST_TEST(!hasLine(text, l), l);
    }
  }
}

BOOST_AUTO_TEST_CASE(bfd_lines_leave_out_frr_defaults) {
  Model m;
  m.bfd_profiles = {{"all", 10, 60000, 255, 10, true, true, 1},
                    {"defaults", 300, 300, 3, 50, false, false, 254}};
  const std::string text = mustRender(m);
  for (const auto& l :
       {"  receive-interval 10", "  transmit-interval 60000", "  detect-multiplier 255",
        "  echo-mode", "  echo transmit-interval 10", "  echo receive-interval 10",
        "  passive-mode", "  minimum-ttl 1", " profile defaults"}) {
    BOOST_TEST(hasLine(text, l), l);
  }
  const size_t defaults = text.find(" profile defaults");
  BOOST_TEST(text.substr(defaults, text.find(" exit", defaults) - defaults) ==
             " profile defaults\n");
}

BOOST_AUTO_TEST_CASE(vrf_router_and_imports) {
  Model m;
  Router def;
  def.asn = 64512;
  def.import_vrfs = {"red"};
  Router red;
  red.asn = 64512;
  red.vrf = "red";
  red.prefixes_v6 = {"fd00:7::/64"};
  m.routers = {def, red};
  const std::string text = mustRender(m);
  BOOST_TEST(hasLine(text, "router bgp 64512 vrf red"));
  BOOST_TEST(hasLine(text, "  import vrf red"));
  BOOST_TEST(hasLine(text, "  network fd00:7::/64"));
  BOOST_TEST(text.find("import vrf red") < text.find("router bgp 64512 vrf red"));
}

BOOST_AUTO_TEST_CASE(one_new_prefix_changes_two_lines) {
  Model m = workedExample();
  auto& a = m.routers[0].neighbors[0];
  for (int i = 1; i <= 50; ++i) {
    const std::string p = "192.168.20." + std::to_string(i) + "/32";
    m.routers[0].prefixes_v4.push_back(p);
    a.outgoing_v4.append({p, 0, {}, {}});
  }
  std::sort(m.routers[0].prefixes_v4.begin(), m.routers[0].prefixes_v4.end());
  auto before = lines(mustRender(m));
  m.routers[0].prefixes_v4.insert(m.routers[0].prefixes_v4.begin(), "192.168.0.1/32");
  a.outgoing_v4.insert(a.outgoing_v4.begin(), {"192.168.0.1/32", 0, {}, {}});
  auto after = lines(mustRender(m));
  std::multiset<std::string> b(before.begin(), before.end());
  std::multiset<std::string> f(after.begin(), after.end());
  std::vector<std::string> added;
  std::set_difference(f.begin(), f.end(), b.begin(), b.end(), std::back_inserter(added));
  std::vector<std::string> removed;
  std::set_difference(b.begin(), b.end(), f.begin(), f.end(), std::back_inserter(removed));
  BOOST_TEST(removed.empty());
  BOOST_TEST_REQUIRE(added.size() == 2u);
  BOOST_TEST(added[0] == "  network 192.168.0.1/32");
  BOOST_TEST(added[1].rfind("ip prefix-list 172.18.0.5-allowed-ipv4 seq ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(raw_config_is_appended_last) {
  Model m = workedExample();
  m.raw_config = "ip route 10.0.0.0/8 blackhole\n";
  const std::string text = mustRender(m);
  BOOST_TEST(text.size() > m.raw_config.size());
  BOOST_TEST(text.substr(text.size() - m.raw_config.size()) == m.raw_config);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
