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

}  // namespace

BOOST_AUTO_TEST_SUITE(weighted_ecmp)

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
