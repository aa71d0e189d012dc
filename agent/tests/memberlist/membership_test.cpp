// SPDX-License-Identifier: Apache-2.0
// The SWIM state machine on a simulated network with an injected clock: every packet goes
// through the real codec, push/pull and TCP pings are exchanged synchronously.
#include "agent/memberlist/core/membership.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/memberlist/core/wire.h"

namespace ml = ingot::agent::memberlist;
using std::chrono::milliseconds;

namespace {

ml::Endpoint endpointOf(int idx) {
  return {{10, 0, 0, static_cast<uint8_t>(idx + 1)}, 7946};
}

// Net is N nodes whose packets are delivered after one 1 ms step unless dropped.
struct Net {
  ml::TimePoint now{};
  ml::Timing timing;
  std::vector<std::unique_ptr<ml::Membership>> nodes;
  std::set<int> down;                 // stopped: neither send nor receive
  std::set<std::pair<int, int>> cut;  // directional link failures (UDP and TCP)
  std::vector<ml::Outbox::Event> events;
  std::vector<std::pair<int, ml::Outbox::Packet>> in_flight;

  explicit Net(int n, ml::Timing t = ml::Timing::fast()) : timing(t) {
    for (int i = 0; i < n; ++i) {
      add(i);
    }
  }
  void add(int i, ml::Bytes meta = {}) {
    auto m = std::make_unique<ml::Membership>("node" + std::to_string(i), endpointOf(i), timing,
                                              static_cast<uint32_t>(i + 1), now, std::move(meta));
    if (static_cast<size_t>(i) < nodes.size()) {
      nodes[static_cast<size_t>(i)] = std::move(m);
    } else {
      nodes.push_back(std::move(m));
    }
  }
  int indexOf(const ml::Endpoint& e) const { return e.ip[3] - 1; }
  bool reachable(int from, int to) const {
    return down.count(from) == 0 && down.count(to) == 0 && cut.count({from, to}) == 0;
  }
  void stream(int from, const ml::Outbox::Stream& s, ml::Outbox& out) {
    const int to = indexOf(s.to);
    if (!reachable(from, to) || !reachable(to, from)) {
      return;
    }
    if (s.kind == ml::Outbox::Stream::Kind::Ping) {
      nodes[static_cast<size_t>(from)]->onStreamAck(s.seq_no);
      return;
    }
    ml::Outbox back;
    const auto mine = nodes[static_cast<size_t>(from)]->localState();
    const auto theirs = nodes[static_cast<size_t>(to)]->localState();
    nodes[static_cast<size_t>(to)]->merge(mine, now, back);
    nodes[static_cast<size_t>(from)]->merge(theirs, now, out);
    collect(to, back);
  }
  void collect(int from, ml::Outbox& out) {
    for (auto& p : out.packets) {
      in_flight.emplace_back(from, std::move(p));
    }
    for (const auto& s : out.streams) {
      ml::Outbox more;
      stream(from, s, more);
      collect(from, more);
    }
    events.insert(events.end(), out.events.begin(), out.events.end());
    out = {};
  }
  void deliver() {
    auto batch = std::move(in_flight);
    in_flight.clear();
    for (auto& [from, p] : batch) {
      const int to = indexOf(p.to);
      if (to < 0 || to >= static_cast<int>(nodes.size()) || !reachable(from, to)) {
        continue;
      }
      auto sealed = ml::sealPacket(p.payload, p.crc, {});
      const ml::DecodedPacket d = ml::openPacket(*sealed, {});
      BOOST_REQUIRE(d.drop == ml::DropReason::None);
      ml::Outbox out;
      for (const auto& m : d.messages) {
        nodes[static_cast<size_t>(to)]->onMessage(m, endpointOf(from), now, out);
      }
      collect(to, out);
    }
  }
  void run(milliseconds d) {
    for (const auto end = now + d; now < end; now += milliseconds(1)) {
      deliver();
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (down.count(static_cast<int>(i)) == 0 && nodes[i]->nextWakeup() <= now) {
          ml::Outbox out;
          nodes[i]->tick(now, out);
          collect(static_cast<int>(i), out);
        }
      }
    }
  }
  // joinAll has every node join node0 and lets gossip settle.
  void joinAll() {
    for (size_t i = 1; i < nodes.size(); ++i) {
      ml::Outbox out;
      nodes[i]->join({endpointOf(0)}, out);
      collect(static_cast<int>(i), out);
    }
    run(milliseconds(500));
  }
  ml::NodeState stateAt(int viewer, int subject) const {
    const auto& ms = nodes[static_cast<size_t>(viewer)]->members();
    auto it = ms.find("node" + std::to_string(subject));
    BOOST_REQUIRE(it != ms.end());
    return it->second.state;
  }
  // runUntil advances until pred holds or `limit` passes; returns the simulated time taken.
  milliseconds runUntil(const std::function<bool()>& pred, milliseconds limit) {
    const auto start = now;
    while (!pred() && now - start < limit) {
      run(milliseconds(1));
    }
    return std::chrono::duration_cast<milliseconds>(now - start);
  }
};

bool allSee(const Net& net, int subject, ml::NodeState st) {
  for (int i = 0; i < static_cast<int>(net.nodes.size()); ++i) {
    if (net.down.count(i) == 0 && i != subject && net.stateAt(i, subject) != st) {
      return false;
    }
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(membership)

BOOST_AUTO_TEST_CASE(nodes_joining_one_seed_all_list_every_member_alive) {
  Net net(5);
  net.joinAll();
  for (int v = 0; v < 5; ++v) {
    BOOST_TEST(net.nodes[static_cast<size_t>(v)]->members().size() == 5U);
    for (int s = 0; s < 5; ++s) {
      BOOST_TEST((net.stateAt(v, s) == ml::NodeState::Alive));
    }
  }
}

// Each member's metadata reaches every other member and rides on its Join event.
BOOST_AUTO_TEST_CASE(metadata_reaches_every_member_and_its_join_events) {
  Net net(0);
  for (int i = 0; i < 4; ++i) {
    net.add(i, ml::Bytes{'m', static_cast<uint8_t>('0' + i)});
  }
  net.joinAll();
  for (int v = 0; v < 4; ++v) {
    for (int s = 0; s < 4; ++s) {
      const auto& m = net.nodes[static_cast<size_t>(v)]->members().at("node" + std::to_string(s));
      BOOST_TEST((m.meta == ml::Bytes{'m', static_cast<uint8_t>('0' + s)}));
    }
  }
  size_t joins = 0;
  for (const auto& e : net.events) {
    if (e.kind == ml::Outbox::Event::Kind::Join) {
      ++joins;
      BOOST_TEST((e.meta == ml::Bytes{'m', static_cast<uint8_t>(e.name.back())}), e.name);
    }
  }
  BOOST_TEST(joins == 12U);  // each of 4 members learns of 3 others
}

BOOST_AUTO_TEST_CASE(stopped_node_is_declared_dead_by_all_within_the_fast_budget) {
  // Rows: timing, bound on simulated detection time for 5 nodes.
  struct Case {
    std::string desc;
    ml::Timing timing;
    milliseconds bound;
  };
  const std::vector<Case> cases = {{"ingot fast", ml::Timing::fast(), milliseconds(700)},
                                   {"go lan defaults", ml::Timing::lan(), milliseconds(12000)}};
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Net net(5, c.timing);
      net.joinAll();
      net.run(milliseconds(2000));
      net.down.insert(3);
      const auto took =
          net.runUntil([&] { return allSee(net, 3, ml::NodeState::Dead); }, milliseconds(60000));
      BOOST_TEST_MESSAGE(c.desc << ": all survivors saw the stop after " << took.count() << " ms");
      BOOST_TEST(allSee(net, 3, ml::NodeState::Dead));
      BOOST_TEST(took.count() <= c.bound.count());
      // Nobody else was ever suspected.
      for (const auto& n : net.nodes) {
        BOOST_TEST(n->counters().deaths <= 1U);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(indirect_and_tcp_probes_keep_a_node_with_one_broken_link_alive) {
  Net net(4);
  net.joinAll();
  net.cut.insert({0, 2});
  net.cut.insert({2, 0});
  net.run(milliseconds(5000));
  for (int v = 0; v < 4; ++v) {
    BOOST_TEST((net.stateAt(v, 2) == ml::NodeState::Alive));
  }
  BOOST_TEST(net.nodes[0]->counters().indirect_pings_sent > 0U);
}

BOOST_AUTO_TEST_CASE(suspected_node_refutes_with_a_higher_incarnation) {
  Net net(3);
  net.joinAll();
  const uint32_t before = net.nodes[1]->members().at("node1").incarnation;
  ml::Outbox out;
  net.nodes[0]->onMessage(ml::Suspect{before, "node1", "node2"}, endpointOf(2), net.now, out);
  net.collect(0, out);
  BOOST_TEST((net.stateAt(0, 1) == ml::NodeState::Suspect));
  net.runUntil([&] { return allSee(net, 1, ml::NodeState::Alive); }, milliseconds(1000));
  BOOST_TEST(allSee(net, 1, ml::NodeState::Alive));
  BOOST_TEST(net.nodes[1]->members().at("node1").incarnation > before);
  BOOST_TEST(net.nodes[1]->counters().refutations == 1U);
}

/// leaveEvents counts the Leave events about name whose left flag is `left`.
size_t leaveEvents(const Net& net, const std::string& name, bool left) {
  return static_cast<size_t>(
      std::count_if(net.events.begin(), net.events.end(), [&](const auto& e) {
        return e.kind == ml::Outbox::Event::Kind::Leave && e.name == name && e.left == left;
      }));
}

BOOST_AUTO_TEST_CASE(leaving_node_is_marked_left_not_dead) {
  Net net(3);
  net.joinAll();
  ml::Outbox out;
  net.nodes[2]->leave(net.now, out);
  net.collect(2, out);
  net.run(milliseconds(5));
  net.down.insert(2);
  net.run(milliseconds(1000));
  BOOST_TEST((net.stateAt(0, 2) == ml::NodeState::Left));
  BOOST_TEST((net.stateAt(1, 2) == ml::NodeState::Left));
  BOOST_TEST(net.nodes[0]->counters().deaths == 0U);
  BOOST_TEST(leaveEvents(net, "node2", true) >= 2U);  // the agents log it as a graceful leave
  BOOST_TEST(leaveEvents(net, "node2", false) == 0U);
}

BOOST_AUTO_TEST_CASE(restarted_node_is_alive_again_after_refuting_its_death) {
  Net net(3);
  net.joinAll();
  net.down.insert(1);
  net.runUntil([&] { return allSee(net, 1, ml::NodeState::Dead); }, milliseconds(3000));
  BOOST_REQUIRE(allSee(net, 1, ml::NodeState::Dead));
  BOOST_TEST(leaveEvents(net, "node1", false) >= 2U);
  BOOST_TEST(leaveEvents(net, "node1", true) == 0U);
  net.down.erase(1);
  net.add(1);  // fresh process: incarnation 1, knows nobody
  ml::Outbox out;
  net.nodes[1]->join({endpointOf(0)}, out);
  net.collect(1, out);
  net.runUntil([&] { return allSee(net, 1, ml::NodeState::Alive); }, milliseconds(3000));
  BOOST_TEST(allSee(net, 1, ml::NodeState::Alive));
  BOOST_TEST(net.nodes[1]->members().at("node1").incarnation > 1U);
}

BOOST_AUTO_TEST_CASE(stale_and_conflicting_news_is_ignored) {
  Net net(2);
  net.joinAll();
  ml::Membership& n0 = *net.nodes[0];
  const uint32_t inc = n0.members().at("node1").incarnation;
  struct Case {
    std::string desc;
    ml::Message msg;
  };
  const std::vector<Case> cases = {
      {"older suspect", ml::Suspect{inc - 1, "node1", "x"}},
      {"older dead", ml::Dead{inc - 1, "node1", "x"}},
      {"same-incarnation alive", ml::Alive{inc, "node1", {10, 0, 0, 2}, 7946, {}, {1, 5, 2}}},
      {"alive from another address", ml::Alive{inc + 5, "node1", {10, 9, 9, 9}, 1, {}, {}}},
      {"suspect of an unknown node", ml::Suspect{9, "ghost", "x"}},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      ml::Outbox out;
      n0.onMessage(c.msg, endpointOf(1), net.now, out);
      BOOST_TEST((net.stateAt(0, 1) == ml::NodeState::Alive));
      BOOST_TEST(n0.members().at("node1").incarnation == inc);
      BOOST_TEST(out.events.empty());
    }
  }
  BOOST_TEST(n0.counters().address_conflicts == 1U);
}

BOOST_AUTO_TEST_CASE(dead_members_are_reaped_after_gossip_to_the_dead) {
  Net net(3);
  net.joinAll();
  net.down.insert(2);
  net.runUntil([&] { return allSee(net, 2, ml::NodeState::Dead); }, milliseconds(3000));
  net.run(net.timing.gossip_to_the_dead + milliseconds(10));
  BOOST_TEST(net.nodes[0]->members().count("node2") == 0U);
}

// memberlist's pushPullScale: the push/pull interval is multiplied by
// ceil(log2(n) - log2(32)) + 1 above 32 members (n counts this member).
BOOST_AUTO_TEST_CASE(push_pull_interval_stretches_above_32_members) {
  struct Case {
    int members;
    int multiplier;
  };
  for (const Case& c : {Case{10, 1}, Case{32, 1}, Case{33, 2}, Case{64, 2}, Case{65, 3},
                        Case{200, 4}, Case{1000, 6}}) {
    ml::Timing t = ml::Timing::fast();
    t.probe_interval = std::chrono::hours(1);  // nothing but push/pull in the window
    t.gossip_interval = std::chrono::hours(1);
    ml::TimePoint now{};
    ml::Membership m("n0", endpointOf(0), t, 1, now);
    std::vector<ml::PushNodeState> others;
    for (int i = 1; i < c.members; ++i) {
      others.push_back({"n" + std::to_string(i),
                        {10, 1, static_cast<uint8_t>(i / 256), static_cast<uint8_t>(i % 256)},
                        7946,
                        {},
                        1,
                        ml::NodeState::Alive,
                        ml::protocolVersions()});
    }
    ml::Outbox ignored;
    m.merge(others, now, ignored);
    std::vector<ml::TimePoint> push_pulls;
    const auto until = now + t.push_pull_interval * (2 * c.multiplier + 1);
    for (; now < until; now += milliseconds(500)) {
      ml::Outbox out;
      m.tick(now, out);
      for (const auto& s : out.streams) {
        if (s.kind == ml::Outbox::Stream::Kind::PushPull && !s.join) {
          push_pulls.push_back(now);
        }
      }
    }
    BOOST_TEST_INFO("members " << c.members);
    BOOST_TEST_REQUIRE(push_pulls.size() >= 2u);
    BOOST_TEST((push_pulls[1] - push_pulls[0] == t.push_pull_interval * c.multiplier));
  }
}

BOOST_AUTO_TEST_SUITE_END()
