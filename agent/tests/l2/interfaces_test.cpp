// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/interfaces.h"

#include <net/if.h>

#include <boost/test/unit_test.hpp>

namespace l2 = ingot::agent::l2;

namespace {

// The default list MetalLB's chart ships in its excludel2 ConfigMap.
constexpr const char* kDefaultExclude = R"(announcedInterfacesToExclude:
- ^docker.*
- ^cbr.*
- ^dummy.*
- ^virbr.*
- ^lxcbr.*
- ^veth.*
- ^lo$
- ^cali.*
- ^tunl.*
- ^flannel.*
- ^kube-ipvs.*
- ^cni.*
- ^nodelocaldns.*
- ^lxc.*
)";

constexpr unsigned kEther = IFF_UP | IFF_BROADCAST | IFF_MULTICAST;
const l2::Ip6 kLinkLocal = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};

l2::InterfaceFacts link(const std::string& name,
                        unsigned flags,
                        bool link_local = true,
                        bool enslaved = false) {
  static int next_index = 1;
  l2::InterfaceFacts f;
  f.name = name;
  f.index = next_index++;
  f.flags = flags;
  f.enslaved = enslaved;
  f.mac = {2, 0, 0, 0, 0, static_cast<uint8_t>(f.index)};
  if (link_local) {
    f.link_local = kLinkLocal;
  }
  return f;
}

l2::ExcludeList parse(const std::string& text) {
  auto r = l2::ExcludeList::parse(text, "excludel2.yaml");
  BOOST_REQUIRE_MESSAGE(r.has_value(), (r ? std::string() : r.error().message));
  return r.value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(interfaces)

BOOST_AUTO_TEST_CASE(scan_filter) {
  struct Case {
    l2::InterfaceFacts facts;
    bool kept;
    bool arp;
    bool ndp;
  };
  const std::vector<Case> cases = {
      {link("eth0", kEther), true, true, true},
      {link("eth1", kEther, false), true, true, false},            // no link-local: ARP only
      {link("wg0", IFF_UP | IFF_POINTOPOINT), true, false, true},  // no BROADCAST: NDP only
      {link("tun0", IFF_UP | IFF_POINTOPOINT, false), false, false, false},  // neither
      {link("eth2", kEther & ~IFF_UP), false, false, false},                 // down
      {link("eth3", kEther, true, true), false, false, false},               // enslaved
      {link("eth4", kEther | IFF_NOARP), false, false, false},               // NOARP
      {link("docker0", kEther), false, false, false},                        // excluded
      {link("veth1234", kEther), false, false, false},                       // excluded
      {link("lo", IFF_UP | IFF_LOOPBACK), false, false, false},              // excluded
      {link("lo0", kEther), true, true, true},                               // ^lo$ is anchored
  };
  std::vector<l2::InterfaceFacts> facts;
  facts.reserve(cases.size());
  for (const auto& c : cases) {
    facts.push_back(c.facts);
  }
  const auto got = l2::selectInterfaces(facts, parse(kDefaultExclude));
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.facts.name) {
      auto it = std::find_if(got.begin(), got.end(),
                             [&](const auto& a) { return a.name == c.facts.name; });
      BOOST_TEST((it != got.end()) == c.kept);
      if (it != got.end()) {
        BOOST_TEST(it->arp == c.arp);
        BOOST_TEST(it->ndp == c.ndp);
        BOOST_TEST(it->index == c.facts.index);
        BOOST_TEST((it->mac == c.facts.mac));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(without_a_file_nothing_is_excluded) {
  auto list = l2::ExcludeList::load("/nonexistent/excludel2.yaml");
  BOOST_REQUIRE(list.has_value());
  BOOST_TEST(list.value().size() == 0u);
  const auto got =
      l2::selectInterfaces({link("veth0", kEther), link("docker0", kEther)}, list.value());
  BOOST_TEST(got.size() == 2u);
}

BOOST_AUTO_TEST_CASE(exclude_file_errors_name_the_field) {
  struct Case {
    const char* text;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"announcedInterfacesToExclude: eth0",
       "excludel2.yaml: announcedInterfacesToExclude: must be a list"},
      {"announcedInterfacesToExclude: [\"^eth(\"]",
       "excludel2.yaml: announcedInterfacesToExclude[0]: invalid regex \"^eth(\""},
      {"announcedInterfacesToExclude: [ok, {a: b}]",
       "excludel2.yaml: announcedInterfacesToExclude[1]: must be a string"},
      {"[1, 2]", "excludel2.yaml: announcedInterfacesToExclude: must be a list"},
      {"a: [", "excludel2.yaml: not YAML"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.text) {
      auto r = l2::ExcludeList::parse(c.text, "excludel2.yaml");
      BOOST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error().message.rfind(c.want, 0) == 0u, r.error().message);
    }
  }
  BOOST_TEST(parse("").size() == 0u);
  BOOST_TEST(parse("other: 1").size() == 0u);
  BOOST_TEST(parse(kDefaultExclude).size() == 14u);
}

BOOST_AUTO_TEST_CASE(advertisement_interfaces_restrict) {
  const auto usable =
      l2::selectInterfaces({link("eth0", kEther), link("eth1", kEther)}, l2::ExcludeList{});
  auto all = l2::restrictInterfaces(usable, std::nullopt);
  BOOST_TEST(all.selected.size() == 2u);
  BOOST_TEST(!all.noneExist());

  auto one = l2::restrictInterfaces(usable, std::set<std::string>{"eth1", "bond0"});
  BOOST_REQUIRE(one.selected.size() == 1u);
  BOOST_TEST(one.selected[0].name == "eth1");
  BOOST_TEST(one.missing == std::vector<std::string>{"bond0"});
  BOOST_TEST(!one.noneExist());

  auto none = l2::restrictInterfaces(usable, std::set<std::string>{"bond0", "eth9"});
  BOOST_TEST(none.selected.empty());
  BOOST_TEST((none.missing == std::vector<std::string>{"bond0", "eth9"}));
  BOOST_TEST(none.noneExist());
}

BOOST_AUTO_TEST_SUITE_END()
