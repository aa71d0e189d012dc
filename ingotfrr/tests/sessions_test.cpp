// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/sessions.h"

#include <boost/test/unit_test.hpp>

namespace ingot::ingotfrr {

BOOST_AUTO_TEST_SUITE(sessions)

// The shape of FRR 8.4's `show bgp vrf all neighbors json`, trimmed to what is read.
BOOST_AUTO_TEST_CASE(bgp_neighbors_per_vrf) {
  const std::string text = R"({
    "default": {"vrfId": 0, "vrfName": "default",
      "192.168.1.1": {"remoteAs": 64512, "bgpState": "Established",
        "messageStats": {"updatesSent": 7, "updatesRecv": 2},
        "addressFamilyInfo": {"ipv4Unicast": {"acceptedPrefixCounter": 3, "sentPrefixCounter": 5},
                              "ipv6Unicast": {"acceptedPrefixCounter": 1, "sentPrefixCounter": 2}}},
      "fd00::1": {"bgpState": "Active", "addressFamilyInfo": {}}},
    "red": {"vrfId": 5, "vrfName": "red",
      "10.0.0.1": {"bgpState": "Connect"}}})";
  const std::vector<BgpSession> want{{"192.168.1.1", "default", true, 7, 4, 7},
                                     {"fd00::1", "default", false, 0, 0, 0},
                                     {"10.0.0.1", "red", false, 0, 0, 0}};
  auto got = parseBgpNeighbors(text);
  BOOST_TEST_REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    BOOST_TEST_CONTEXT(want[i].peer) {
      BOOST_TEST(got[i].peer == want[i].peer);
      BOOST_TEST(got[i].vrf == want[i].vrf);
      BOOST_TEST(got[i].established == want[i].established);
      BOOST_TEST(got[i].announced == want[i].announced);
      BOOST_TEST(got[i].received == want[i].received);
      BOOST_TEST(got[i].updates_sent == want[i].updates_sent);
    }
  }
}

BOOST_AUTO_TEST_CASE(bfd_peers_and_garbage) {
  auto got = parseBfdPeers(
      R"([{"peer": "192.168.1.1", "vrf": "default", "status": "up"},
          {"peer": "192.168.1.2", "vrf": "default", "status": "down"}])");
  BOOST_TEST_REQUIRE(got.size() == 2u);
  BOOST_TEST(got[0].up);
  BOOST_TEST(!got[1].up);
  BOOST_TEST(parseBfdPeers("% Unknown command").empty());
  BOOST_TEST(parseBgpNeighbors("{").empty());
}

BOOST_AUTO_TEST_CASE(families_use_frr_k8s_names_and_labels) {
  auto families = sessionFamilies({{"192.168.1.1", "default", true, 5, 4, 7}},
                                  {{"192.168.1.1", "default", false}});
  std::vector<std::string> names;
  names.reserve(families.size());
  for (const auto& f : families) {
    names.push_back(f.name);
  }
  BOOST_TEST(names == (std::vector<std::string>{
                          "frrk8s_bgp_session_up", "frrk8s_bgp_announced_prefixes_total",
                          "frrk8s_bgp_received_prefixes_total", "frrk8s_bgp_updates_total",
                          "frrk8s_bfd_session_up"}),
             boost::test_tools::per_element());
  BOOST_TEST(families[0].samples.at(0).value == 1);
  BOOST_TEST(families[1].samples.at(0).value == 5);
  BOOST_TEST(families[4].samples.at(0).value == 0);
  BOOST_TEST(families[0].samples.at(0).labels.at(0).second == "192.168.1.1");
  BOOST_TEST(families[0].samples.at(0).labels.at(1).second == "default");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::ingotfrr
