// SPDX-License-Identifier: Apache-2.0
#include "frrgen/policy.h"

#include <map>
#include <set>

#include <boost/test/unit_test.hpp>

namespace ingot::frrgen {
namespace {

Neighbor v4Neighbor(const std::vector<std::string>& prefixes) {
  Neighbor n;
  n.address = "10.0.0.1";
  n.remote_as = "64513";
  for (const auto& p : prefixes) n.outgoing_v4.append({p, 0, {}, {}});
  return n;
}

std::vector<std::string> prefixes(int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) {
    out.push_back("10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".0/24");
  }
  return out;
}

// seqOf maps each entry of a list to its sequence number.
std::map<std::string, uint32_t> seqOf(const NeighborPolicy& p, const std::string& list) {
  std::map<std::string, uint32_t> out;
  for (const auto& l : p.prefix_lists) {
    if (l.name != list) continue;
    for (const auto& e : l.entries) out[e.prefix] = e.seq;
  }
  return out;
}

NeighborPolicy plan(const Neighbor& n) {
  auto p = planNeighbor(n);
  BOOST_TEST_REQUIRE(p.has_value(), (p ? "" : p.error().message));
  return *p;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(policy_suite)

BOOST_AUTO_TEST_CASE(fnv1a64_matches_reference_vectors) {
  BOOST_TEST(fnv1a64("") == 0xcbf29ce484222325ull);
  BOOST_TEST(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  BOOST_TEST(fnv1a64("foobar") == 0x85944171f73967e8ull);
}

BOOST_AUTO_TEST_CASE(sequence_numbers_do_not_depend_on_the_other_entries) {
  auto alone = assignSeqs({"192.168.1.1/32"}, kPrefixSeqMax);
  auto crowd = assignSeqs({"10.0.0.0/8", "192.168.1.1/32", "172.16.0.0/12"}, kPrefixSeqMax);
  BOOST_TEST_REQUIRE(alone.has_value());
  BOOST_TEST_REQUIRE(crowd.has_value());
  BOOST_TEST((*alone)[0] == (*crowd)[1]);
  BOOST_TEST((*alone)[0] == fnv1a64("192.168.1.1/32") % kPrefixSeqMax + 1);
}

BOOST_AUTO_TEST_CASE(collisions_probe_upwards_and_stay_in_range) {
  struct Case {
    std::string desc;
    std::vector<std::string> keys;
    uint32_t max;
  };
  const std::vector<Case> cases = {
      {"every number of a tiny range is used once", {"a", "b", "c", "d", "e"}, 5},
      {"two keys in a range of two", {"x", "y"}, 2},
      {"many keys in a small range", {"k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"}, 10},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto seqs = assignSeqs(c.keys, c.max);
      BOOST_TEST_REQUIRE(seqs.has_value());
      std::set<uint32_t> distinct(seqs->begin(), seqs->end());
      BOOST_TEST(distinct.size() == c.keys.size());
      BOOST_TEST(*distinct.begin() >= 1u);
      BOOST_TEST(*distinct.rbegin() <= c.max);
      // The same keys in another order get the same numbers.
      std::vector<std::string> reversed(c.keys.rbegin(), c.keys.rend());
      auto again = assignSeqs(reversed, c.max);
      BOOST_TEST_REQUIRE(again.has_value());
      for (size_t i = 0; i < c.keys.size(); ++i) {
        BOOST_TEST((*seqs)[i] == (*again)[c.keys.size() - 1 - i]);
      }
    }
  }
  auto full = assignSeqs({"a", "b", "c"}, 2);
  BOOST_TEST_REQUIRE(!full.has_value());
  BOOST_TEST(full.error().message == "3 entries do not fit 2 sequence numbers");
}

BOOST_AUTO_TEST_CASE(one_prefix_change_moves_no_other_entry) {
  struct Case {
    std::string desc;
    std::vector<std::string> before;
    std::vector<std::string> after;
  };
  auto without_first = prefixes(2, 500);
  auto with_new_first = prefixes(1, 500);
  with_new_first.insert(with_new_first.begin(), "9.9.9.0/24");
  const std::vector<Case> cases = {
      {"prefix added in front", prefixes(1, 500), with_new_first},
      {"first prefix removed", prefixes(1, 500), without_first},
      {"prefix added at the end", prefixes(1, 20), prefixes(1, 21)},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto before = seqOf(plan(v4Neighbor(c.before)), "10.0.0.1-allowed-ipv4");
      auto after = seqOf(plan(v4Neighbor(c.after)), "10.0.0.1-allowed-ipv4");
      size_t kept = 0;
      for (const auto& [prefix, seq] : before) {
        auto it = after.find(prefix);
        if (it == after.end()) continue;
        ++kept;
        BOOST_TEST(it->second == seq, prefix);
      }
      BOOST_TEST(kept == std::min(before.size(), after.size()));
    }
  }
}

BOOST_AUTO_TEST_CASE(lists_and_route_maps_use_frrk8s_names) {
  Neighbor n;
  n.interface = "eth1";
  n.vrf = "red";
  n.family = NeighborFamily::Dual;
  n.remote_as = "external";
  n.outgoing_v4 = {{"192.168.1.1/32", 200, {"64512:100"}, {"1:2:3"}}};
  n.outgoing_v6 = {{"fd00::1/128", 0, {"64512:100"}, {}}};
  NeighborPolicy p = plan(n);
  std::vector<std::string> names;
  for (const auto& l : p.prefix_lists) {
    names.push_back((l.family == net::Family::V4 ? "ip " : "ipv6 ") + l.name);
  }
  const std::vector<std::string> want = {
      "ip eth1-red-200-ip-localpref-prefixes",
      "ip eth1-red-64512:100-ip-community-prefixes",
      "ipv6 eth1-red-64512:100-ipv6-community-prefixes",
      "ip eth1-red-large:1:2:3-ip-community-prefixes",
      "ip eth1-red-allowed-ipv4",
      "ipv6 eth1-red-allowed-ipv6",
      "ip eth1-red-inpl-dual",
      "ipv6 eth1-red-inpl-dual",
  };
  BOOST_TEST(names == want, boost::test_tools::per_element());
  BOOST_TEST(p.out.name == "eth1-red-out");
  BOOST_TEST(p.in.name == "eth1-red-in");
}

BOOST_AUTO_TEST_CASE(attribute_entries_come_before_the_allowed_entries) {
  Neighbor n = v4Neighbor({"192.168.1.1/32", "192.168.1.2/32"});
  n.outgoing_v4[0].local_pref = 100;
  n.outgoing_v4[0].communities = {"64512:1", "64512:2"};
  n.outgoing_v4[1].large_communities = {"1:2:3"};
  NeighborPolicy p = plan(n);
  BOOST_TEST_REQUIRE(p.out.entries.size() == 6u);
  for (size_t i = 0; i + 2 < p.out.entries.size(); ++i) {
    const auto& e = p.out.entries[i];
    BOOST_TEST(e.seq <= kSetEntrySeqMax);
    BOOST_TEST(e.on_match_next);
    BOOST_TEST((e.set != SetKind::None));
    BOOST_TEST(e.seq < p.out.entries[i + 1].seq);
  }
  BOOST_TEST(p.out.entries[4].seq == kAllowedV4Seq);
  BOOST_TEST(p.out.entries[4].match_list == "10.0.0.1-allowed-ipv4");
  BOOST_TEST(!p.out.entries[4].on_match_next);
  BOOST_TEST(p.out.entries[5].seq == kAllowedV6Seq);
  BOOST_TEST((p.out.entries[5].match_family == net::Family::V6));
}

BOOST_AUTO_TEST_CASE(empty_and_receive_lists_have_fixed_shapes) {
  struct Case {
    std::string desc;
    bool receive_all;
    std::vector<IncomingFilter> v4;
    std::string want_v4;  ///< "action prefix ge le" of the single/first entry
    std::string want_v6;
  };
  const std::vector<Case> cases = {
      {"nothing received", false, {}, "deny any", "deny any"},
      {"everything received", true, {}, "permit any", "permit any"},
      {"selectors received",
       false,
       {{"10.0.0.0/8", 24, 16}},
       "permit 10.0.0.0/8 ge 16 le 24",
       "deny any"},
  };
  auto text = [](const PrefixListEntry& e) {
    std::string t =
        (e.action == Action::Permit ? "permit " : "deny ") + (e.prefix.empty() ? "any" : e.prefix);
    if (e.ge) t += " ge " + std::to_string(*e.ge);
    if (e.le) t += " le " + std::to_string(*e.le);
    return t;
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Neighbor n = v4Neighbor({});
      n.receive_all = c.receive_all;
      n.incoming_v4 = c.v4;
      NeighborPolicy p = plan(n);
      BOOST_TEST_REQUIRE(p.prefix_lists.size() == 4u);
      BOOST_TEST(p.prefix_lists[0].entries.at(0).seq == kDenyAnySeq);  // empty allowed-ipv4
      BOOST_TEST(text(p.prefix_lists[2].entries.at(0)) == c.want_v4);
      BOOST_TEST(text(p.prefix_lists[3].entries.at(0)) == c.want_v6);
      BOOST_TEST(p.in.entries.size() == 2u);
      BOOST_TEST(p.in.entries[0].seq == kInboundV4Seq);
      BOOST_TEST(p.in.entries[1].match_list == "10.0.0.1-inpl-ipv4");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen

BOOST_AUTO_TEST_CASE(well_known_communities_are_spelled_as_frr_shows_them) {
  struct Case {
    std::string desc;
    std::string value;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"no-export", "65535:65281", "no-export"},
      {"no-advertise", "65535:65282", "no-advertise"},
      {"local-AS keeps FRR's capitalisation", "65535:65283", "local-AS"},
      {"no-peer", "65535:65284", "no-peer"},
      {"blackhole", "65535:666", "blackhole"},
      {"graceful-shutdown", "65535:0", "graceful-shutdown"},
      {"internet", "0:0", "internet"},
      {"an ordinary community is unchanged", "64512:100", "64512:100"},
      {"a neighbour of a well-known value is unchanged", "65535:65285", "65535:65285"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(ingot::frrgen::frrCommunityText(c.value) == c.expected);
    }
  }
}
