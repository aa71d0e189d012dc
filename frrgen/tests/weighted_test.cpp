// SPDX-License-Identifier: Apache-2.0
// Endpoint-weighted ECMP (docs/weighted-ecmp.md) through frrgen: an announcement's bandwidth
// reaches the merged model and renders as `set extcommunity bandwidth N` in both FRR shapes (the
// compact one of the incremental apply, the per-prefix one of a full reload).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "frrgen/build.h"
#include "frrgen/compact.h"
#include "frrgen/merge.h"
#include "frrgen/render.h"
#include "frrgen/served.h"
#include "frrgen/tests/compact_fixtures.h"
#include "frrgen/tests/fixtures.h"
#include "frrgen/tests/golden.h"
#include "frrgen/weight_raw.h"
#include "frrgen/yang_validate.h"

namespace ingot::frrgen {
namespace {

using namespace ingot::frrgen::testing;

config::Announcement weighted(const std::string& prefix, uint32_t bandwidth) {
  config::Announcement a;
  a.prefix = cidr(prefix);
  a.peers = {"tor"};
  a.bandwidth = bandwidth;
  return a;
}

config::Config oneTor() {
  config::Config cfg;
  cfg.peers = {{"tor", peer("tor", "10.0.0.1", 64512, 64500)}};
  return cfg;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string compactText(const Model& m) {
  auto c = compact(m);
  BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
  auto t = renderCompact(*c, {});
  BOOST_TEST_REQUIRE(t.has_value());
  return *t;
}

std::string perPrefixText(const Model& m) {
  auto t = render(m, {});
  BOOST_TEST_REQUIRE(t.has_value(), (t ? "" : t.error().message));
  return *t;
}

/// frrk8sConfig is the agent's FRRConfiguration for announcements, as written in frr-k8s mode.
api::FRRConfiguration frrk8sConfig(const std::vector<config::Announcement>& announcements) {
  auto built = build(oneTor(), "node1", announcements, {});
  BOOST_TEST_REQUIRE(built.has_value(), (built ? "" : built.error().message));
  auto written = forFrrK8s(*built);
  BOOST_TEST_REQUIRE(written.has_value(), (written ? "" : written.error().message));
  return *written;
}

/// frrk8sFile is the frr.conf frr-k8s (and ingot-frr) render for the written configuration.
std::string frrk8sFile(const std::vector<config::Announcement>& announcements) {
  auto m = merge({frrk8sConfig(announcements)}, {});
  BOOST_TEST_REQUIRE(m.has_value(), (m ? "" : m.error().message));
  return perPrefixText(*m);
}

config::Announcement withCommunity(const std::string& prefix) {
  config::Announcement a = weighted(prefix, 0);
  a.communities = {community(64512, 100)};
  return a;
}

/// linesOnlyIn returns the lines of a that b lacks.
std::vector<std::string> linesOnlyIn(const std::string& a, const std::string& b) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < a.size()) {
    size_t end = a.find('\n', start);
    if (end == std::string::npos) end = a.size();
    std::string line = a.substr(start, end - start + 1);
    if (!contains(b, line.back() == '\n' ? line : line + "\n")) out.push_back(line);
    start = end + 1;
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(weighted_ecmp)

// frr-k8s mode: the weights travel in spec.raw, which extends frr-k8s' allowed entries of the
// neighbor's outbound map (numbered after its local-pref and community entries).
BOOST_AUTO_TEST_CASE(frrk8s_mode_carries_the_weights_in_spec_raw) {
  struct Case {
    std::string desc;
    std::vector<config::Announcement> announcements;
    std::string raw;  ///< "" = no spec.raw
  };
  const std::string closing =
      "route-map 10.0.0.1-out permit 65534\n"
      " match ip address prefix-list 10.0.0.1-allowed-ipv4\nexit\n"
      "route-map 10.0.0.1-out permit 65535\n"
      " match ipv6 address prefix-list 10.0.0.1-allowed-ipv6\nexit\n";
  const std::vector<Case> cases = {
      {"unweighted: no raw", {weighted("192.168.10.5/32", 0)}, ""},
      {"one weight: frr-k8s' allowed entries are 1 and 2",
       {weighted("192.168.10.5/32", 3), weighted("192.168.10.6/32", 0)},
       "ip prefix-list 10.0.0.1-3-ip-bandwidth-prefixes seq 1398997407 permit 192.168.10.5/32\n"
       "route-map 10.0.0.1-out permit 1\n on-match next\nexit\n"
       "route-map 10.0.0.1-out permit 2\n on-match next\nexit\n"
       "route-map 10.0.0.1-out permit 60000\n"
       " match ip address prefix-list 10.0.0.1-3-ip-bandwidth-prefixes\n"
       " set extcommunity bandwidth 3\nexit\n" +
           closing},
      {"a community entry comes first: the allowed entries are 2 and 3",
       {weighted("192.168.10.5/32", 1), withCommunity("192.168.10.9/32")},
       "ip prefix-list 10.0.0.1-1-ip-bandwidth-prefixes seq 1398997407 permit 192.168.10.5/32\n"
       "route-map 10.0.0.1-out permit 2\n on-match next\nexit\n"
       "route-map 10.0.0.1-out permit 3\n on-match next\nexit\n"
       "route-map 10.0.0.1-out permit 60000\n"
       " match ip address prefix-list 10.0.0.1-1-ip-bandwidth-prefixes\n"
       " set extcommunity bandwidth 1\nexit\n" +
           closing},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const api::FRRConfiguration got = frrk8sConfig(c.announcements);
      for (const auto& n : got.spec.routers.at(0).neighbors) {
        BOOST_TEST(n.to_advertise.with_bandwidth.empty());
      }
      if (c.raw.empty()) {
        BOOST_TEST(!got.spec.raw.has_value());
        continue;
      }
      BOOST_TEST_REQUIRE(got.spec.raw.has_value());
      BOOST_TEST(got.spec.raw->priority == kWeightRawPriority);
      BOOST_TEST(got.spec.raw->raw_config == c.raw);
    }
  }
}

// The file frr-k8s renders for it (ingot-frr renders the same): frr-k8s' entry numbers, the raw
// text last. The golden also goes through FRR's own parser (frr_check_test.cpp).
BOOST_AUTO_TEST_CASE(the_frrk8s_file_numbers_entries_as_frrk8s_and_appends_the_raw) {
  const std::string before =
      frrk8sFile({weighted("192.168.10.5/32", 3), weighted("192.168.10.6/32", 1),
                  withCommunity("192.168.10.9/32")});
  checkGolden("render", "weighted_frrk8s_before", before);
  BOOST_TEST(contains(before,
                      "route-map 10.0.0.1-out permit 2\n"
                      " match ip address prefix-list 10.0.0.1-allowed-ipv4\nexit\n"));
  BOOST_TEST(contains(before, "route-map 10.0.0.1-in permit 4\n"));
  BOOST_TEST(contains(before, "route-map 10.0.0.1-out permit 2\n on-match next\nexit\n"));
  // 3:1 becomes 1:1: only link-bandwidth lines change, no network, no neighbor line.
  const std::string after =
      frrk8sFile({weighted("192.168.10.5/32", 1), weighted("192.168.10.6/32", 1),
                  withCommunity("192.168.10.9/32")});
  checkGolden("render", "weighted_frrk8s_after", after);
  for (const auto& text : {linesOnlyIn(before, after), linesOnlyIn(after, before)}) {
    BOOST_TEST(!text.empty());
    for (const auto& line : text) {
      BOOST_TEST((contains(line, "bandwidth") || contains(line, "route-map 10.0.0.1-out permit")),
                 line);
      BOOST_TEST(!contains(line, "network"), line);
      BOOST_TEST(!contains(line, "neighbor"), line);
    }
  }
}

BOOST_AUTO_TEST_CASE(announcement_bandwidth_reaches_the_merged_model) {
  struct Case {
    std::string desc;
    std::vector<config::Announcement> announcements;
    std::vector<api::FrrBandwidthPrefixes> with_bandwidth;
    std::map<std::string, uint32_t> model;  // prefix → bandwidth in the model
  };
  const std::vector<Case> cases = {
      {"unweighted", {weighted("192.168.10.5/32", 0)}, {}, {{"192.168.10.5/32", 0}}},
      {"one weighted prefix",
       {weighted("192.168.10.5/32", 3)},
       {{3, {"192.168.10.5/32"}}},
       {{"192.168.10.5/32", 3}}},
      {"prefixes grouped by value, values in order",
       {weighted("192.168.10.7/32", 3), weighted("192.168.10.5/32", 1),
        weighted("192.168.10.6/32", 3), weighted("192.168.10.8/32", 0)},
       {{1, {"192.168.10.5/32"}}, {3, {"192.168.10.6/32", "192.168.10.7/32"}}},
       {{"192.168.10.5/32", 1},
        {"192.168.10.6/32", 3},
        {"192.168.10.7/32", 3},
        {"192.168.10.8/32", 0}}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto built = build(oneTor(), "node1", c.announcements, {});
      BOOST_TEST_REQUIRE(built.has_value());
      const auto& adv = built->spec.routers.at(0).neighbors.at(0).to_advertise;
      BOOST_TEST((adv.with_bandwidth == c.with_bandwidth));
      const Model m = mustMerge({*built});
      std::map<std::string, uint32_t> got;
      for (const auto& o : m.routers.at(0).neighbors.at(0).outgoing_v4) {
        got[o.prefix] = o.bandwidth;
      }
      BOOST_TEST((got == c.model));
    }
  }
}

// frr-k8s mode: the API server never stores withBandwidth, so a weight alone is no reason to
// write the FRRConfiguration again.
BOOST_AUTO_TEST_CASE(a_weight_is_not_part_of_the_served_spec) {
  auto weighted3 = build(oneTor(), "node1", {weighted("192.168.10.5/32", 3)}, {});
  auto unweighted = build(oneTor(), "node1", {weighted("192.168.10.5/32", 0)}, {});
  BOOST_TEST_REQUIRE((weighted3.has_value() && unweighted.has_value()));
  BOOST_TEST(!(weighted3->spec == unweighted->spec));
  BOOST_TEST(sameServedSpec(weighted3->spec, unweighted->spec));
}

BOOST_AUTO_TEST_CASE(merge_refuses_two_bandwidths_for_one_prefix) {
  auto a = build(oneTor(), "node1", {weighted("192.168.10.5/32", 3)}, {});
  auto b = build(oneTor(), "node1", {weighted("192.168.10.5/32", 1)}, {});
  BOOST_TEST_REQUIRE((a.has_value() && b.has_value()));
  b->metadata.name = "other";
  auto m = merge({*a, *b}, {});
  BOOST_TEST_REQUIRE(!m.has_value());
  BOOST_TEST(contains(m.error().message, "multiple bandwidths (3 != 1)"), m.error().message);
}

BOOST_AUTO_TEST_CASE(both_shapes_render_the_link_bandwidth) {
  struct Case {
    std::string desc;
    std::vector<Send> sends;
    std::vector<std::string> compact_has;
    std::vector<std::string> per_prefix_has;
    std::vector<std::string> absent;  // in neither
  };
  const std::vector<Case> cases = {
      {"unweighted prefix", {{"10.1.0.1/32", {"10.0.0.1"}}}, {}, {}, {"extcommunity"}},
      {"weighted prefix, set at origination and in a bandwidth list",
       {{"10.1.0.1/32", {"10.0.0.1", "10.0.0.2"}, 0, {}, {}, 3}},
       {" set extcommunity bandwidth 3\n"},
       {"ip prefix-list 10.0.0.1-3-ip-bandwidth-prefixes seq ",
        " match ip address prefix-list 10.0.0.1-3-ip-bandwidth-prefixes\n"
        " set extcommunity bandwidth 3\n on-match next\n"},
       {"non-transitive"}},
      {"with local preference and communities",
       {{"10.1.0.1/32", {"10.0.0.1"}, 200, {"64512:100"}, {}, 25600}},
       {" set local-preference 200\n set community 64512:100 additive\n"
        " set extcommunity bandwidth 25600\n"},
       {" set extcommunity bandwidth 25600\n", " set local-preference 200\n"},
       {}},
      {"IPv6",
       {{"fd01::1/128", {"fd00::1"}, 0, {}, {}, 2}},
       {" set extcommunity bandwidth 2\n"},
       {"ipv6 prefix-list fd00::1-2-ipv6-bandwidth-prefixes seq ",
        " match ipv6 address prefix-list fd00::1-2-ipv6-bandwidth-prefixes\n"},
       {}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const Model m = threePeers(c.sends);
      const std::string compact_text = compactText(m);
      const std::string per_prefix = perPrefixText(m);
      for (const auto& want : c.compact_has) {
        BOOST_TEST(contains(compact_text, want), "compact lacks: " << want << "\n" << compact_text);
      }
      for (const auto& want : c.per_prefix_has) {
        BOOST_TEST(contains(per_prefix, want), "per-prefix lacks: " << want << "\n" << per_prefix);
      }
      for (const auto& no : c.absent) {
        BOOST_TEST(!contains(compact_text, no));
        BOOST_TEST(!contains(per_prefix, no));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_new_weight_moves_the_prefix_to_another_class) {
  auto c1 = compact(threePeers({{"10.1.0.1/32", {"10.0.0.1"}, 0, {}, {}, 3}}));
  auto c2 = compact(threePeers({{"10.1.0.1/32", {"10.0.0.1"}, 0, {}, {}, 1}}));
  BOOST_TEST_REQUIRE((c1.has_value() && c2.has_value()));
  const uint32_t t1 = c1->routers[0].networks_v4.at("10.1.0.1/32");
  const uint32_t t2 = c2->routers[0].networks_v4.at("10.1.0.1/32");
  BOOST_TEST(t1 != t2);
  BOOST_TEST(classOf(*c1, t1).attributes.bandwidth == 3U);
  BOOST_TEST(classOf(*c2, t2).attributes.bandwidth == 1U);
}

BOOST_AUTO_TEST_CASE(the_bandwidth_set_action_is_valid_for_frr_yang) {
  const char* env = std::getenv("INGOT_FRR_YANG_DIR");
  const std::string dir = env != nullptr ? env : kFrrYangDir;
  if (!std::filesystem::exists(dir + "/frr-bgp-route-map.yang")) {
    BOOST_TEST_MESSAGE("skipped: FRR's YANG modules are not in " << dir);
    return;
  }
  auto v = YangValidator::load(dir);
  BOOST_TEST_REQUIRE(v.has_value(), (v ? "" : v.error().message));
  const Model m = threePeers({{"10.1.0.1/32", {"10.0.0.1"}, 0, {}, {}, 3},
                              {"fd01::1/128", {"fd00::1"}, 0, {}, {}, 25600}});
  auto r = (*v)->validate(m);
  BOOST_TEST(r.has_value(), (r ? "" : r.error().message));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
