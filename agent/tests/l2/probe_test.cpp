// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/probe.h"

#include <boost/test/unit_test.hpp>

#include "agent/tests/l2/fixtures.h"

namespace l2 = ingot::agent::l2;
namespace net = ingot::net;
using l2::test::ip;
using l2::test::kOwn;
using l2::test::kRogue;
using std::chrono::milliseconds;

namespace {

const l2::Mac kMember = {0x02, 0xbb, 0, 0, 0, 0x02};
const l2::Mac kRogue2 = {0x02, 0xdd, 0, 0, 0, 0x04};

/// Event is one input of a probe scenario: at `at` ms, advance (answer empty) or a conflicting
/// answer from `answer`.
struct Event {
  int at;
  std::optional<l2::Mac> answer;
  /// what advance() returned at that time ("send", "free", "" for nothing, "send,free" ...), or
  /// for an answer whether conflict() asked for an Event ("event" / "").
  std::string want;
};

struct Scenario {
  const char* desc;
  std::vector<Event> events;
  bool in_table_after;
  uint64_t detections;
};

std::string run(l2::ProbeTable& t,
                const net::IpAddress& addr,
                const Event& e,
                l2::ProbeTable::TimePoint t0) {
  const auto now = t0 + milliseconds(e.at);
  if (e.answer) {
    return t.conflict(addr, l2::Conflict{*e.answer, "eth0"}, now) ? "event" : "";
  }
  const auto step = t.advance(now);
  std::string out;
  for (size_t i = 0; i < step.send.size(); ++i) {
    out += out.empty() ? "send" : ",send";
  }
  for (size_t i = 0; i < step.free.size(); ++i) {
    out += out.empty() ? "free" : ",free";
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(probe_table)

BOOST_AUTO_TEST_CASE(schedules) {
  // Default timing: 3 probes 100 ms apart, free 200 ms after the last; backoff 1 s doubling.
  const std::vector<Scenario> cases = {
      {"free address: three probes, then free at 400 ms",
       {{0, {}, "send"},
        {50, {}, ""},
        {100, {}, "send"},
        {200, {}, "send"},
        {399, {}, ""},
        {400, {}, "free"}},
       false,
       0},
      {"a late advance sends one probe and keeps the spacing from it",
       {{0, {}, "send"},
        {250, {}, "send"},
        {349, {}, ""},
        {350, {}, "send"},
        {549, {}, ""},
        {550, {}, "free"}},
       false,
       0},
      {"conflict stops the round, retry after 1 s",
       {{0, {}, "send"},
        {10, kRogue, "event"},
        {100, {}, ""},
        {1009, {}, ""},
        {1010, {}, "send"},
        {1110, {}, "send"},
        {1210, {}, "send"},
        {1410, {}, "free"}},
       false,
       1},
      {"backoff doubles: 1 s, 2 s, 4 s; same MAC raises no new event",
       {{0, {}, "send"},
        {0, kRogue, "event"},
        {1000, {}, "send"},
        {1000, kRogue, ""},
        {2999, {}, ""},
        {3000, {}, "send"},
        {3000, kRogue, ""},
        {6999, {}, ""},
        {7000, {}, "send"}},
       true,
       1},
      {"another MAC is a new event, not a new detection",
       {{0, {}, "send"}, {0, kRogue, "event"}, {1000, {}, "send"}, {1000, kRogue2, "event"}},
       true,
       1},
      {"an answer between rounds is ignored",
       {{0, {}, "send"}, {0, kRogue, "event"}, {500, kRogue2, ""}, {1000, {}, "send"}},
       true,
       1},
      {"a retry round without an answer finds the address free",
       {{0, {}, "send"},
        {0, kRogue, "event"},
        {1000, {}, "send"},
        {1100, {}, "send"},
        {1200, {}, "send"},
        {1400, {}, "free"}},
       false,
       1},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      l2::ProbeTable t;
      const auto t0 = std::chrono::steady_clock::now();
      const auto addr = ip("192.0.2.100");
      t.add(addr, t0);
      for (const auto& e : c.events) {
        BOOST_TEST_CONTEXT("at " << e.at << " ms") {
          BOOST_TEST(run(t, addr, e, t0) == e.want);
        }
      }
      BOOST_TEST(t.contains(addr) == c.in_table_after);
      BOOST_TEST(t.detections() == c.detections);
    }
  }
}

BOOST_AUTO_TEST_CASE(backoff_is_bounded) {
  l2::ProbeTiming timing;
  timing.backoff_max = milliseconds(30000);
  l2::ProbeTable t(timing);
  const auto addr = ip("2001:db8::1");
  auto now = std::chrono::steady_clock::now();
  t.add(addr, now);
  std::vector<int64_t> delays;
  for (int i = 0; i < 8; ++i) {
    t.advance(now);  // first probe of the round
    BOOST_REQUIRE(t.running(addr));
    t.conflict(addr, l2::Conflict{kRogue, "eth0"}, now);
    BOOST_TEST(!t.running(addr));
    const auto next = t.nextDue();
    delays.push_back(std::chrono::duration_cast<milliseconds>(next - now).count());
    now = next;
  }
  const std::vector<int64_t> want = {1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000};
  BOOST_TEST(delays == want, boost::test_tools::per_element());
  BOOST_TEST((t.entries().at(addr).conflict->mac == kRogue));
}

BOOST_AUTO_TEST_CASE(remove_and_readd_restart_the_schedule) {
  l2::ProbeTable t;
  const auto addr = ip("192.0.2.1");
  const auto t0 = std::chrono::steady_clock::now();
  t.add(addr, t0);
  t.advance(t0);
  t.conflict(addr, l2::Conflict{kRogue, "eth0"}, t0);
  t.remove(addr);
  BOOST_TEST(!t.contains(addr));
  BOOST_TEST((t.nextDue() == l2::ProbeTable::TimePoint::max()));
  t.add(addr, t0 + milliseconds(5));
  BOOST_TEST(!t.entries().at(addr).conflict.has_value());
  BOOST_TEST((t.nextDue() == t0 + milliseconds(5)));
  BOOST_TEST(!t.conflict(ip("192.0.2.9"), l2::Conflict{kRogue, "eth0"}, t0));  // not probed
}

struct ClassifyCase {
  const char* desc;
  l2::Mac mac;
  bool probed;
  l2::ClaimKind want;
};

BOOST_AUTO_TEST_CASE(claims_are_classified) {
  const std::set<l2::Mac> own{kOwn};
  const std::set<l2::Mac> members{kMember};
  const std::vector<ClassifyCase> cases = {
      {"another host's answer", kRogue, true, l2::ClaimKind::Conflict},
      {"a member's answer", kMember, true, l2::ClaimKind::Member},
      {"our own frame", kOwn, true, l2::ClaimKind::Own},
      {"not probed", kRogue, false, l2::ClaimKind::Unrelated},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const l2::Claim claim{ip("192.0.2.100"), c.mac, false};
      BOOST_TEST((l2::classifyClaim(claim, c.probed, own, members) == c.want));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
