// SPDX-License-Identifier: Apache-2.0
// The Layer 2 hold-down rule over members' metadata, and the owner it yields.
#include "agent/core/hold_down.h"

#include <boost/test/unit_test.hpp>

#include "agent/core/member_meta.h"

namespace ingot::agent {
namespace {

using Members = std::map<std::string, std::string>;

/// meta is an Ingot agent's metadata text.
std::string meta(int64_t joined, int64_t hold = 10'000) {
  MemberMeta m;
  m.joined_ms = joined;
  m.hold_down_ms = hold;
  m.macs = {"02:00:00:00:00:01"};
  return encodeMemberMeta(m);
}

struct Case {
  std::string desc;
  Members members;
  int64_t now;
  std::map<std::string, int64_t> held;
  std::optional<int64_t> next;
  std::string off;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      {"returning_node_is_held_until_joined_plus_h",
       {{"a", meta(0)}, {"b", meta(0)}, {"c", meta(50'000)}},
       55'000,
       {{"c", 60'000}},
       60'000,
       ""},
      {"held_at_the_instant_it_joined",
       {{"a", meta(0)}, {"c", meta(50'000)}},
       50'000,
       {{"c", 60'000}},
       60'000,
       ""},
      {"held_one_ms_before_the_end",
       {{"a", meta(0)}, {"c", meta(50'000)}},
       59'999,
       {{"c", 60'000}},
       60'000,
       ""},
      {"hold_ends_at_joined_plus_h", {{"a", meta(0)}, {"c", meta(50'000)}}, 60'000, {}, {}, ""},
      {"agents_starting_together_are_not_held",
       {{"a", meta(0)}, {"b", meta(3'000)}, {"c", meta(9'999)}},
       10'000,
       {},
       {},
       ""},
      {"established_exactly_h_before_counts",
       {{"a", meta(0)}, {"c", meta(10'000)}},
       12'000,
       {{"c", 20'000}},
       20'000,
       ""},
      {"two_returning_nodes_the_earliest_end_is_next",
       {{"a", meta(0)}, {"b", meta(40'000)}, {"c", meta(45'000)}},
       46'000,
       {{"b", 50'000}, {"c", 55'000}},
       50'000,
       ""},
      {"after_the_first_end_the_second_is_next",
       {{"a", meta(0)}, {"b", meta(40'000)}, {"c", meta(45'000)}},
       50'000,
       {{"c", 55'000}},
       55'000,
       ""},
      {"smallest_advertised_hold_down_applies",
       {{"a", meta(0, 30'000)}, {"c", meta(50'000, 5'000)}},
       54'000,
       {{"c", 55'000}},
       55'000,
       ""},
      {"a_zero_hold_down_anywhere_switches_it_off",
       {{"a", meta(0, 0)}, {"c", meta(50'000)}},
       51'000,
       {},
       {},
       "disabled"},
      {"a_metallb_speaker_switches_it_off",
       {{"a", meta(0)}, {"c", meta(50'000)}, {"speaker", ""}},
       51'000,
       {},
       {},
       "member speaker is not an Ingot agent"},
      {"damaged_metadata_switches_it_off",
       {{"a", meta(0)}, {"c", "ingot/1 joined=x holddown=5"}},
       51'000,
       {},
       {},
       "member c is not an Ingot agent"},
      {"an_agent_without_a_joined_time_switches_it_off",
       {{"a", meta(0)}, {"c", "ingot/1 holddown=10000"}},
       51'000,
       {},
       {},
       "member c is not an Ingot agent"},
      {"a_lone_member_is_never_held", {{"c", meta(50'000)}}, 50'001, {}, {}, ""},
      {"no_members", {}, 0, {}, {}, "disabled"},
      {"far_future_join_does_not_overflow",
       {{"a", meta(0)}, {"c", meta(INT64_MAX - 5)}},
       0,
       {{"c", INT64_MAX}},
       INT64_MAX,
       ""},
  };
  return kCases;
}

BOOST_AUTO_TEST_CASE(who_is_held_and_until_when) {
  for (const auto& c : cases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      const HoldDown h = holdDown(c.members, c.now);
      BOOST_TEST((h.held == c.held));
      BOOST_TEST((h.next_change_ms == c.next));
      BOOST_TEST(h.off == c.off);
      BOOST_TEST((h.hold_down_ms > 0) == c.off.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(held_names_are_the_held_keys) {
  const HoldDown h = holdDown({{"a", meta(0)}, {"b", meta(40'000)}, {"c", meta(45'000)}}, 46'000);
  BOOST_TEST((h.heldNames() == std::set<std::string>{"b", "c"}));
}

BOOST_AUTO_TEST_CASE(owner_is_the_first_candidate_not_held) {
  struct OwnerCase {
    std::string desc;
    std::vector<std::string> candidates;
    std::set<std::string> held;
    std::optional<std::string> owner;
  };
  const std::vector<OwnerCase> owner_cases = {
      {"nothing_held_winner_stays", {"c", "a", "b"}, {}, "c"},
      {"held_winner_yields_to_the_next", {"c", "a", "b"}, {"c"}, "a"},
      {"two_held_the_third_owns", {"c", "a", "b"}, {"c", "a"}, "b"},
      {"held_runner_up_changes_nothing", {"a", "c", "b"}, {"c"}, "a"},
      {"held_non_candidate_changes_nothing", {"a", "b"}, {"z"}, "a"},
      {"every_candidate_held_first_one_owns", {"c", "b"}, {"b", "c"}, "c"},
      {"no_candidate_no_owner", {}, {"c"}, std::nullopt},
  };
  for (const auto& c : owner_cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST((holdDownOwner(c.candidates, c.held) == c.owner));
    }
  }
}

}  // namespace
}  // namespace ingot::agent
