// SPDX-License-Identifier: Apache-2.0
#include "agent/core/member_meta.h"

#include <optional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

using ingot::agent::encodeMemberMeta;
using ingot::agent::MemberMeta;
using ingot::agent::parseMemberMeta;

namespace {

MemberMeta full() {
  MemberMeta m;
  m.joined_ms = 1764633600123;
  m.hold_down_ms = 5000;
  m.macs = {"02:00:00:00:00:01", "0a:1b:2c:3d:4e:5f"};
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(member_meta)

BOOST_AUTO_TEST_CASE(encodes_set_fields_in_a_fixed_order) {
  BOOST_TEST(encodeMemberMeta(MemberMeta{}) == "ingot/1");
  BOOST_TEST(encodeMemberMeta(full()) ==
             "ingot/1 joined=1764633600123 holddown=5000 macs=02:00:00:00:00:01,0a:1b:2c:3d:4e:5f");
  MemberMeta only_hold;
  only_hold.hold_down_ms = 0;
  BOOST_TEST(encodeMemberMeta(only_hold) == "ingot/1 holddown=0");
}

BOOST_AUTO_TEST_CASE(round_trips) {
  for (const MemberMeta& m : {MemberMeta{}, full()}) {
    auto back = parseMemberMeta(encodeMemberMeta(m));
    BOOST_REQUIRE(back.has_value());
    BOOST_TEST((*back == m));
  }
}

BOOST_AUTO_TEST_CASE(parses_in_any_order_and_ignores_unknown_keys) {
  auto m = parseMemberMeta("ingot/1  macs=02:00:00:00:00:01 zone=a holddown=7 joined=9 ");
  BOOST_REQUIRE(m.has_value());
  BOOST_TEST(*m->joined_ms == 9);
  BOOST_TEST(*m->hold_down_ms == 7);
  BOOST_TEST(m->macs == std::vector<std::string>{"02:00:00:00:00:01"});
}

// Anything that is not an intact Ingot text counts as "not an Ingot agent".
BOOST_AUTO_TEST_CASE(refuses_what_is_not_an_ingot_agents) {
  const std::vector<std::string> bad = {
      "",                                     // a MetalLB speaker
      "metallb",                              //
      "ingot/10 joined=1",                    // another format
      "ingot/2",                              //
      "ingot/1 joined",                       // no value
      "ingot/1 =5",                           // no key
      "ingot/1 joined=-1",                    // negative
      "ingot/1 joined=12x",                   // trailing garbage
      "ingot/1 joined=99999999999999999999",  // overflow
      "ingot/1 holddown=",                    // empty number
      "ingot/1 joined=1 joined=2",            // repeated key
      "ingot/1 macs=02:00:00:00:00:0G",       // not hex
      "ingot/1 macs=02:00:00:00:00:AA",       // upper case is not the canonical form
      "ingot/1 macs=02:00:00:00:00",          // short
      "ingot/1 macs=02:00:00:00:00:01,",      // empty entry
      "ingot/1 macs=02-00-00-00-00-01",       // wrong separator
  };
  for (const auto& text : bad) {
    BOOST_TEST_CONTEXT(text) {
      BOOST_TEST(!parseMemberMeta(text).has_value());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
