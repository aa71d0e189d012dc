// SPDX-License-Identifier: Apache-2.0
#include "frrgen/compact.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "frrgen/tests/compact_fixtures.h"
#include "frrgen/tests/golden.h"

namespace ingot::frrgen {
namespace {

using testing::classOf;
using testing::Send;
using testing::threePeers;

CompactModel mustCompact(const Model& m) {
  auto c = compact(m);
  BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
  return *c;
}

uint32_t tagOf(const CompactModel& c, const std::string& prefix) {
  const auto& r = c.routers.front();
  const auto& nets = prefix.find(':') != std::string::npos ? r.networks_v6 : r.networks_v4;
  auto it = nets.find(prefix);
  BOOST_TEST_REQUIRE((it != nets.end()), "no network " << prefix);
  return it->second;
}

// tagsSentTo lists the tags a neighbor's outbound map permits.
std::set<uint32_t> tagsSentTo(const CompactModel& c, const std::string& address) {
  std::set<uint32_t> out;
  for (const auto& n : c.routers.front().neighbors) {
    if (n.session.address != address) {
      continue;
    }
    for (const auto& e : n.out) {
      out.insert(e.tag);
    }
  }
  return out;
}

const OutEntry& entryFor(const CompactModel& c, const std::string& address, uint32_t tag) {
  for (const auto& n : c.routers.front().neighbors) {
    for (const auto& e : n.out) {
      if (n.session.address == address && e.tag == tag) {
        return e;
      }
    }
  }
  BOOST_FAIL("no entry for tag " << tag << " at " << address);
  static OutEntry none;
  return none;
}

std::string mustRender(const CompactModel& c) {
  auto t = renderCompact(c, {});
  BOOST_TEST_REQUIRE(t.has_value());
  return *t;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compact_suite)

BOOST_AUTO_TEST_CASE(prefixes_sent_alike_share_one_class_with_its_attributes_set_at_origin) {
  const auto c = mustCompact(threePeers({
      {"10.1.0.1/32", {"10.0.0.1", "10.0.0.2"}, 200, {"64512:100"}, {"64512:1:2"}},
      {"10.1.0.2/32", {"10.0.0.1", "10.0.0.2"}, 200, {"64512:100"}, {"64512:1:2"}},
  }));
  BOOST_TEST(c.classes.size() == 1u);
  const uint32_t tag = tagOf(c, "10.1.0.1/32");
  BOOST_TEST(tagOf(c, "10.1.0.2/32") == tag);
  const auto& k = classOf(c, tag);
  BOOST_TEST(k.attributes.local_pref == 200u);
  BOOST_TEST(k.attributes.communities == std::vector<std::string>{"64512:100"});
  BOOST_TEST(k.attributes.large_communities == std::vector<std::string>{"64512:1:2"});
  BOOST_TEST(entryFor(c, "10.0.0.1", tag).attributes.empty());
  BOOST_TEST(entryFor(c, "10.0.0.2", tag).attributes.empty());
  BOOST_TEST(tagsSentTo(c, "fd00::1").empty());
}

BOOST_AUTO_TEST_CASE(each_neighbor_permits_exactly_the_classes_sent_to_it) {
  struct Case {
    std::string desc;
    std::vector<Send> sends;
    std::map<std::string, std::set<std::string>> expected;  // neighbor → prefixes it gets
  };
  const std::vector<Case> cases = {
      {"one peer only", {{"10.1.0.1/32", {"10.0.0.2"}}}, {{"10.0.0.2", {"10.1.0.1/32"}}}},
      {"overlapping peers",
       {{"10.1.0.1/32", {"10.0.0.1"}}, {"10.1.0.2/32", {"10.0.0.1", "10.0.0.2"}}},
       {{"10.0.0.1", {"10.1.0.1/32", "10.1.0.2/32"}}, {"10.0.0.2", {"10.1.0.2/32"}}}},
      {"dual stack",
       {{"10.1.0.1/32", {"10.0.0.1", "fd00::1"}}, {"fd01::1/128", {"10.0.0.1", "fd00::1"}}},
       {{"10.0.0.1", {"10.1.0.1/32"}}, {"fd00::1", {"fd01::1/128"}}}},
  };
  for (const auto& tc : cases) {
    BOOST_TEST_CONTEXT(tc.desc) {
      const auto c = mustCompact(threePeers(tc.sends));
      for (const std::string peer : {"10.0.0.1", "10.0.0.2", "fd00::1"}) {
        std::set<std::string> got;
        const auto tags = tagsSentTo(c, peer);
        for (const auto* nets : {&c.routers[0].networks_v4, &c.routers[0].networks_v6}) {
          for (const auto& [p, t] : *nets) {
            if (tags.count(t) != 0) {
              got.insert(p);
            }
          }
        }
        const auto it = tc.expected.find(peer);
        const std::set<std::string> want =
            it == tc.expected.end() ? std::set<std::string>{} : it->second;
        BOOST_TEST(got == want, peer);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(attributes_that_differ_per_peer_are_set_in_each_outbound_entry) {
  const auto c = mustCompact(threePeers({
      {"10.1.0.1/32", {"10.0.0.1"}, 0, {"64512:1"}},
  }));
  auto m = threePeers({{"10.1.0.1/32", {"10.0.0.1"}, 0, {"64512:1"}}});
  // The same prefix reaches 10.0.0.2 with another community (two advertisements).
  m.routers[0].neighbors[1].outgoing_v4.append({"10.1.0.1/32", 0, {"64512:2"}, {}});
  const auto d = mustCompact(m);
  const uint32_t tag = tagOf(d, "10.1.0.1/32");
  BOOST_TEST(classOf(d, tag).attributes.empty());
  BOOST_TEST(entryFor(d, "10.0.0.1", tag).attributes.communities ==
             std::vector<std::string>{"64512:1"});
  BOOST_TEST(entryFor(d, "10.0.0.2", tag).attributes.communities ==
             std::vector<std::string>{"64512:2"});
  BOOST_TEST(tagOf(c, "10.1.0.1/32") != tag);
}

BOOST_AUTO_TEST_CASE(communities_that_restrict_sending_are_set_on_the_way_out) {
  for (const std::string wk : {"65535:65281", "65535:65282", "65535:65283", "65535:65284"}) {
    BOOST_TEST_CONTEXT(wk) {
      const auto c = mustCompact(threePeers({{"10.1.0.1/32", {"10.0.0.1"}, 0, {"64512:1", wk}}}));
      const uint32_t tag = tagOf(c, "10.1.0.1/32");
      BOOST_TEST(classOf(c, tag).attributes.empty());
      BOOST_TEST(entryFor(c, "10.0.0.1", tag).attributes.communities ==
                 (std::vector<std::string>{"64512:1", wk}));
    }
  }
}

BOOST_AUTO_TEST_CASE(tags_and_entry_numbers_do_not_move_when_other_prefixes_come_and_go) {
  std::vector<Send> base;
  for (int i = 1; i <= 50; ++i) {
    base.push_back({"10.2.0." + std::to_string(i) + "/32", {"10.0.0.1"}, 0, {"64512:7"}});
  }
  base.push_back({"10.3.0.1/32", {"10.0.0.1", "10.0.0.2"}});
  const auto before = mustCompact(threePeers(base));
  auto more = base;
  more.push_back({"10.2.0.200/32", {"10.0.0.1"}, 0, {"64512:7"}});
  more.push_back({"10.4.0.1/32", {"10.0.0.2"}, 300});  // a new class
  more.erase(more.begin());
  const auto after = mustCompact(threePeers(more));
  BOOST_TEST(tagOf(after, "10.2.0.2/32") == tagOf(before, "10.2.0.2/32"));
  BOOST_TEST(tagOf(after, "10.3.0.1/32") == tagOf(before, "10.3.0.1/32"));
  for (size_t j = 0; j < 2; ++j) {
    for (const auto& e : before.routers[0].neighbors[j].out) {
      const auto& now = after.routers[0].neighbors[j].out;
      BOOST_TEST((std::find(now.begin(), now.end(), e) != now.end()), "entry " << e.seq);
    }
  }
  BOOST_TEST(after.classes.size() == before.classes.size() + 1);
}

BOOST_AUTO_TEST_CASE(communities_render_in_frr_order_and_spelling) {
  const auto c = mustCompact(threePeers({
      {"10.1.0.1/32",
       {"10.0.0.1"},
       0,
       {"64512:100", "64512:20", "65535:65281"},
       {"64512:10:1", "64512:9:1"}},
  }));
  const std::string text = mustRender(c);
  BOOST_TEST(text.find(" set community 64512:20 64512:100 no-export additive\n") !=
             std::string::npos);
  BOOST_TEST(text.find(" set large-community 64512:9:1 64512:10:1 additive\n") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_prefix_no_neighbor_lists_is_originated_but_matched_by_no_entry) {
  auto m = threePeers({{"10.1.0.1/32", {"10.0.0.1"}}});
  m.routers[0].prefixes_v4.push_back("10.9.0.1/32");
  const auto c = mustCompact(m);
  const uint32_t tag = tagOf(c, "10.9.0.1/32");
  for (const std::string peer : {"10.0.0.1", "10.0.0.2", "fd00::1"}) {
    BOOST_TEST(tagsSentTo(c, peer).count(tag) == 0u, peer);
  }
}

BOOST_AUTO_TEST_CASE(policy_size_does_not_grow_with_the_number_of_prefixes) {
  auto line_count = [](int prefixes) {
    std::vector<Send> sends;
    sends.reserve(static_cast<size_t>(prefixes));
    for (int i = 0; i < prefixes; ++i) {
      sends.push_back(
          {"10.5." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1) + "/32",
           {"10.0.0.1", "10.0.0.2"},
           0,
           {"64512:" + std::to_string(i % 3)}});
    }
    const std::string text = mustRender(mustCompact(threePeers(sends)));
    return std::count(text.begin(), text.end(), '\n');
  };
  // Each prefix adds exactly its `network` line.
  BOOST_TEST(line_count(1000) - line_count(100) == 900);
}

BOOST_AUTO_TEST_CASE(the_three_peer_model_renders_as_its_golden) {
  const auto c = mustCompact(threePeers({
      {"10.1.0.1/32", {"10.0.0.1", "10.0.0.2"}, 150, {"64512:100"}},
      {"10.1.0.2/32", {"10.0.0.2"}},
      {"fd01::1/128", {"fd00::1"}, 0, {}, {"64512:1:1"}},
  }));
  testing::checkGolden("compact", "three_peers", mustRender(c));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
