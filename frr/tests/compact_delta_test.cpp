// SPDX-License-Identifier: Apache-2.0
#include "frr/compact_delta.h"

#include <algorithm>
#include <functional>

#include <boost/test/unit_test.hpp>

#include "frrgen/tests/compact_fixtures.h"

namespace ingot::frr {
namespace {

using frrgen::testing::Send;
using frrgen::testing::threePeers;

frrgen::CompactModel model(const std::vector<Send>& sends) {
  auto c = frrgen::compact(threePeers(sends));
  BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
  return *c;
}

std::vector<Send> classA(int first, int last) {
  std::vector<Send> out;
  for (int i = first; i <= last; ++i) {
    out.push_back(
        {"10.1.0." + std::to_string(i) + "/32", {"10.0.0.1", "10.0.0.2"}, 0, {"64512:100"}});
  }
  return out;
}

std::string mapOf(const frrgen::CompactModel& m, const std::string& prefix) {
  return frrgen::kAdvMapPrefix + std::to_string(m.routers[0].networks_v4.at(prefix));
}

// indexOf is the position of the first command starting with text (or commands.size()).
size_t indexOf(const std::vector<std::string>& commands, const std::string& text) {
  auto it = std::find_if(commands.begin(), commands.end(),
                         [&](const std::string& c) { return c.rfind(text, 0) == 0; });
  return static_cast<size_t>(it - commands.begin());
}

std::string rendered(const frrgen::CompactModel& m) {
  auto t = frrgen::renderCompact(m, {});
  BOOST_TEST_REQUIRE(t.has_value());
  return *t;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compact_delta)

BOOST_AUTO_TEST_CASE(one_more_prefix_of_a_known_class_is_one_network_line_in_its_context) {
  const auto from = model(classA(1, 3));
  const auto to = model(classA(1, 4));
  const auto d = computeDelta(from, to);
  const std::vector<std::string> want = {
      "router bgp 64512", "address-family ipv4 unicast",
      "network 10.1.0.4/32 route-map " + mapOf(to, "10.1.0.4/32"), "exit-address-family", "exit"};
  BOOST_TEST(d.commands == want, boost::test_tools::per_element());
  BOOST_TEST(d.networks_added == 1u);
  BOOST_TEST(d.maps_changed == 0u);
}

BOOST_AUTO_TEST_CASE(a_new_class_sends_its_maps_before_the_networks_that_use_them) {
  auto sends = classA(1, 2);
  sends.push_back({"10.9.0.1/32", {"10.0.0.2"}, 300});
  const auto from = model(classA(1, 2));
  const auto to = model(sends);
  const auto d = computeDelta(from, to);
  const std::string adv = mapOf(to, "10.9.0.1/32");
  const size_t adv_at = indexOf(d.commands, "route-map " + adv + " permit 1");
  const size_t out_at = indexOf(d.commands, "route-map 10.0.0.2-out permit");
  const size_t net_at = indexOf(d.commands, "network 10.9.0.1/32 route-map " + adv);
  BOOST_TEST(adv_at < out_at);
  BOOST_TEST(out_at < net_at);
  BOOST_TEST(net_at < d.commands.size());
  BOOST_TEST(indexOf(d.commands, "route-map 10.0.0.1-out") == d.commands.size());
  BOOST_TEST(d.maps_changed == 2u);
}

BOOST_AUTO_TEST_CASE(withdrawing_a_class_removes_networks_before_the_maps) {
  auto sends = classA(1, 2);
  sends.push_back({"10.9.0.1/32", {"10.0.0.2"}, 300});
  const auto from = model(sends);
  const auto to = model(classA(1, 2));
  const auto d = computeDelta(from, to);
  const std::string adv = mapOf(from, "10.9.0.1/32");
  const size_t net_at = indexOf(d.commands, "no network 10.9.0.1/32");
  const size_t out_at = indexOf(d.commands, "no route-map 10.0.0.2-out permit");
  const size_t adv_at = indexOf(d.commands, "no route-map " + adv);
  BOOST_TEST(net_at < out_at);
  BOOST_TEST(out_at < adv_at);
  BOOST_TEST(adv_at < d.commands.size());
  BOOST_TEST(d.networks_removed == 1u);
}

BOOST_AUTO_TEST_CASE(a_changed_community_re_points_the_network_without_withdrawing_it) {
  auto changed = classA(1, 2);
  changed[1].communities = {"64512:200"};
  const auto from = model(classA(1, 2));
  const auto to = model(changed);
  const auto d = computeDelta(from, to);
  BOOST_TEST(indexOf(d.commands, "no network") == d.commands.size());
  BOOST_TEST(indexOf(d.commands, "network 10.1.0.2/32 route-map " + mapOf(to, "10.1.0.2/32")) <
             d.commands.size());
  BOOST_TEST(d.networks_changed == 1u);
  // The old class still has 10.1.0.1: its map stays.
  BOOST_TEST(indexOf(d.commands, "no route-map " + mapOf(from, "10.1.0.1/32")) ==
             d.commands.size());
}

BOOST_AUTO_TEST_CASE(anything_but_service_policy_asks_for_a_full_reload) {
  const auto base = model(classA(1, 2));
  struct Case {
    std::string desc;
    std::function<void(frrgen::CompactModel&)> edit;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"session", [](auto& m) { m.routers[0].neighbors[0].session.password = "x"; },
       "neighbor 10.0.0.1 changed"},
      {"bfd", [](auto& m) { m.bfd_profiles[0].detect_multiplier = 5; }, "BFD profiles changed"},
      {"router id", [](auto& m) { m.routers[0].router_id = "10.0.0.200"; },
       "router bgp 64512 changed"},
      {"raw", [](auto& m) { m.raw_config = "ip nht resolve-via-default\n"; },
       "raw configuration changed"},
      {"class content under a kept tag", [](auto& m) { m.classes[0].attributes.local_pref = 5; },
       "changed its attributes"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto to = base;
      c.edit(to);
      const auto d = computeDelta(base, to);
      BOOST_TEST(d.reload_reason.find(c.reason) != std::string::npos, d.reload_reason);
      BOOST_TEST(d.commands.empty());
    }
  }
  BOOST_TEST(computeDelta(base, base).empty());
}

BOOST_AUTO_TEST_CASE(running_config_as_frr_prints_it_projects_like_the_rendered_file) {
  const auto m = model({{"10.1.0.1/32", {"10.0.0.1"}, 120, {"64512:100", "65535:65281"}}});
  const std::string adv = mapOf(m, "10.1.0.1/32");
  const std::string tag = adv.substr(std::string(frrgen::kAdvMapPrefix).size());
  const std::string seq = std::to_string(m.routers[0].neighbors[0].out[0].seq);
  // FRR prints set lines in its own order and closes each entry with a top-level "exit".
  const std::string running = "frr version 8.4.4\n!\nroute-map " + adv + " permit 1\n set tag " +
                              tag + "\nexit\n!\nroute-map 10.0.0.1-out permit " + seq +
                              "\n match tag " + tag +
                              "\n set community 64512:100 no-export additive\n"
                              " set local-preference 120\nexit\n!\n"
                              "route-map 10.0.0.1-out deny 65535\nexit\n!\n"
                              "route-map 10.0.0.2-out deny 65535\nexit\n!\n"
                              "route-map fd00::1-out deny 65535\nexit\n!\n"
                              "route-map other permit 5\n set tag 1\nexit\n!\n"
                              "router bgp 64512\n address-family ipv4 unicast\n  network "
                              "10.1.0.1/32 route-map " +
                              adv + "\n exit-address-family\nexit\n!\nend\n";
  const auto names = outMapNames(m);
  const auto expected = projectPolicy(rendered(m), names);
  const auto actual = projectPolicy(running, names);
  BOOST_TEST(describeDrift(expected, actual) == "");
  BOOST_TEST((expected == actual));
  BOOST_TEST(expected.networks.size() == 1u);
  BOOST_TEST(expected.entries.size() == 5u);
}

BOOST_AUTO_TEST_CASE(a_hand_edit_shows_up_as_drift) {
  const auto m = model(classA(1, 2));
  const auto names = outMapNames(m);
  const std::string text = rendered(m);
  const auto expected = projectPolicy(text, names);
  std::string edited = text;
  const std::string line = "  network 10.1.0.2/32 route-map " + mapOf(m, "10.1.0.2/32") + "\n";
  edited.erase(edited.find(line), line.size());
  edited.insert(edited.find(" exit-address-family"), "  network 10.7.7.7/32\n");
  const std::string drift = describeDrift(expected, projectPolicy(edited, names));
  BOOST_TEST(drift.find("-router bgp 64512|ipv4|network 10.1.0.2/32") != std::string::npos, drift);
  BOOST_TEST(drift.find("+router bgp 64512|ipv4|network 10.7.7.7/32") != std::string::npos, drift);
}

// Weighted ECMP: a node's endpoint count changes (3 → 1 → 0:… → 2). Each change re-points the
// prefix at the route-map of its new class (`network P route-map`, no `no network`): the route is
// updated in place, never withdrawn, and nothing asks for a reload (which could reset a session).
BOOST_AUTO_TEST_CASE(a_weight_change_re_points_the_network_without_withdrawing_it) {
  const std::vector<uint32_t> weights = {3, 1, 2, 25600, 3};
  for (size_t i = 0; i + 1 < weights.size(); ++i) {
    BOOST_TEST_CONTEXT(weights[i] << " -> " << weights[i + 1]) {
      const auto from = model({{"10.1.0.1/32", {"10.0.0.1", "10.0.0.2"}, 0, {}, {}, weights[i]}});
      const auto to = model({{"10.1.0.1/32", {"10.0.0.1", "10.0.0.2"}, 0, {}, {}, weights[i + 1]}});
      const auto d = computeDelta(from, to);
      BOOST_TEST_REQUIRE(!d.needsReload(), d.reload_reason);
      BOOST_TEST(d.networks_changed == 1U);
      BOOST_TEST(d.networks_removed == 0U);
      BOOST_TEST(d.networks_added == 0U);
      const std::string repoint = "network 10.1.0.1/32 route-map " + mapOf(to, "10.1.0.1/32");
      const size_t at = indexOf(d.commands, repoint);
      BOOST_TEST_REQUIRE(at < d.commands.size());
      // The new class's route-map, with the new value, exists before the network points at it.
      const std::string set = " set extcommunity bandwidth " + std::to_string(weights[i + 1]);
      BOOST_TEST(indexOf(d.commands, set) < at);
      BOOST_TEST(indexOf(d.commands, "no network") == d.commands.size());
      // The old class's route-map goes after the network left it.
      BOOST_TEST(indexOf(d.commands, "no route-map " + mapOf(from, "10.1.0.1/32")) > at);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frr
