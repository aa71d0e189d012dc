// SPDX-License-Identifier: Apache-2.0
// The agent's memberlist adapter: the live set fed from the gossip thread, the seeds it joins,
// and the reconciler re-deciding only the Services a membership change affects.
#include <map>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "agent/core/member_meta.h"
#include "agent/daemon/membership_source.h"
#include "agent/tests/daemon/fixtures.h"

namespace ingot::agent {
namespace {

namespace ml = memberlist;
using testing::contains;
using testing::Harness;
using testing::TempFile;

ml::Outbox::Event event(ml::Outbox::Event::Kind kind, std::string name) {
  return {kind, std::move(name), ml::Endpoint{{127, 0, 0, 9}, 7946}, false, {}};
}

// Events arrive on another thread; the live set follows them and each one enqueues the members
// key on the queue the worker reads. Nothing but the queue crosses the threads.
BOOST_AUTO_TEST_CASE(live_set_follows_events_from_the_gossip_thread) {
  std::vector<std::string> logs;
  log::Logger logger(log::Level::Info, [&logs](std::string_view l) { logs.emplace_back(l); });
  k8s::WorkQueue queue{k8s::WorkQueueOptions{}};
  LiveSet live("n1", logger);
  BOOST_TEST((live.live() == std::set<std::string>{"n1"}));
  live.setNotify([&queue] { queue.add(std::string(keys::kMembers)); });
  using K = ml::Outbox::Event::Kind;
  std::thread gossip([&live] {
    live.onEvent(event(K::Join, "n2"));
    live.onEvent(event(K::Join, "n3"));
    live.onEvent(event(K::Update, "n3"));
    live.onEvent(event(K::Leave, "n2"));
  });
  gossip.join();
  BOOST_TEST((live.live() == std::set<std::string>{"n1", "n3"}));
  // Four notifications collapse into one pending key.
  BOOST_TEST(queue.tryGet().value_or("") == std::string(keys::kMembers));
  BOOST_TEST(!queue.tryGet().has_value());
  BOOST_REQUIRE_EQUAL(logs.size(), 4u);
  BOOST_TEST(contains(logs[0], "\"msg\":\"node event - forcing sync\""), logs[0]);
  BOOST_TEST(contains(logs[0], "\"node addr\":\"127.0.0.9\""), logs[0]);
  BOOST_TEST(contains(logs[0], "\"node name\":\"n2\""), logs[0]);
  BOOST_TEST(contains(logs[0], "\"node event\":\"NodeJoin\""), logs[0]);
  BOOST_TEST(contains(logs[2], "\"node event\":\"NodeUpdate\""), logs[2]);
  BOOST_TEST(contains(logs[3], "\"node event\":\"NodeLeave\",\"left\":\"declared dead\""), logs[3]);
  auto left = event(K::Leave, "n3");
  left.left = true;
  live.onEvent(left);
  BOOST_TEST(contains(logs.back(), "\"left\":\"gracefully\""), logs.back());
  BOOST_TEST((live.live() == std::set<std::string>{"n1"}));
  // A leave of this node's own name does not drop it: a member is always live to itself.
  live.setNotify({});
  live.onEvent(event(K::Leave, "n1"));
  BOOST_TEST(live.live().contains("n1"));
  BOOST_TEST(!queue.tryGet().has_value());
}

// Members' metadata follows their events: set on join, replaced on update, dropped on leave;
// this node's own metadata stays.
BOOST_AUTO_TEST_CASE(live_set_keeps_each_members_metadata) {
  log::Logger logger(log::Level::None);
  LiveSet live("n1", logger);
  live.setSelfMetadata("ingot/1 joined=1");
  using K = ml::Outbox::Event::Kind;
  auto with_meta = [](K kind, std::string name, std::string meta) {
    auto e = event(kind, std::move(name));
    e.meta.assign(meta.begin(), meta.end());
    return e;
  };
  live.onEvent(with_meta(K::Join, "n2", "ingot/1 joined=2"));
  live.onEvent(with_meta(K::Join, "n3", ""));
  live.onEvent(with_meta(K::Update, "n2", "ingot/1 joined=3"));
  using Map = std::map<std::string, std::string>;
  BOOST_TEST(
      (live.metadata() == Map{{"n1", "ingot/1 joined=1"}, {"n2", "ingot/1 joined=3"}, {"n3", ""}}));
  live.onEvent(event(K::Leave, "n2"));
  live.onEvent(event(K::Leave, "n1"));
  BOOST_TEST((live.metadata() == Map{{"n1", "ingot/1 joined=1"}, {"n3", ""}}));
}

// The live set is not joined until the join thread says so; that is notified once.
BOOST_AUTO_TEST_CASE(live_set_is_joined_once_and_notifies) {
  log::Logger logger(log::Level::None);
  LiveSet live("n1", logger);
  int notified = 0;
  live.setNotify([&notified] { ++notified; });
  BOOST_TEST(!live.joined());
  live.markJoined();
  live.markJoined();
  BOOST_TEST(live.joined());
  BOOST_TEST(notified == 1);
}

ml::MemberView member(std::string name, ml::Bytes ip, ml::NodeState state) {
  return {std::move(name), ml::Endpoint{std::move(ip), 7946}, state, 1, {}};
}

BOOST_AUTO_TEST_CASE(seeds_are_the_pod_ips_that_are_not_members) {
  const ml::Bytes v6(16, 0);
  ml::Bytes mapped(16, 0);  // ::ffff:10.0.0.4, as Go may send an IPv4 address
  mapped[10] = mapped[11] = 0xff;
  mapped[12] = 10;
  mapped[15] = 4;
  struct Case {
    std::string desc;
    std::vector<std::string> pods;
    std::vector<ml::MemberView> members;
    uint16_t port;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"nothing_to_join_without_pods", {}, {}, 7946, {}},
      {"every_pod_before_any_member",
       {"10.0.0.2", "10.0.0.1"},
       {},
       7946,
       {"10.0.0.1:7946", "10.0.0.2:7946"}},
      {"alive_and_suspect_members_are_skipped",
       {"10.0.0.1", "10.0.0.2", "10.0.0.3"},
       {member("a", {10, 0, 0, 1}, ml::NodeState::Alive),
        member("b", {10, 0, 0, 2}, ml::NodeState::Suspect)},
       7946,
       {"10.0.0.3:7946"}},
      {"dead_and_left_members_are_joined_again",
       {"10.0.0.1", "10.0.0.2"},
       {member("a", {10, 0, 0, 1}, ml::NodeState::Dead),
        member("b", {10, 0, 0, 2}, ml::NodeState::Left)},
       7000,
       {"10.0.0.1:7000", "10.0.0.2:7000"}},
      {"ipv4_mapped_member_address_matches_the_pod_ip",
       {"10.0.0.4"},
       {member("a", mapped, ml::NodeState::Alive)},
       7946,
       {}},
      {"ipv6_seeds_are_bracketed_and_compared_by_value",
       {"fd00:0::1", "::"},
       {member("a", v6, ml::NodeState::Alive)},
       7946,
       {"[fd00::1]:7946"}},
      {"empty_duplicate_and_garbage_ips_are_skipped",
       {"", "10.0.0.1", "10.0.0.1", "not-an-ip"},
       {},
       7946,
       {"10.0.0.1:7946"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(seedsToJoin(c.pods, c.members, c.port) == c.want,
                 boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(memberlist_off_logs_metallb_lines_and_starts_nothing) {
  std::vector<std::string> logs;
  log::Logger logger(log::Level::Info, [&logs](std::string_view l) { logs.emplace_back(l); });
  ml::MembershipOptions o;
  o.bind_addr = "127.0.0.1";  // labels missing: MetalLB does not start memberlist
  auto source = startMembership("n1", o, logger);
  BOOST_REQUIRE(source.has_value());
  BOOST_TEST(!*source);
  BOOST_REQUIRE_EQUAL(logs.size(), 2u);
  BOOST_TEST(contains(logs[0], "not starting fast dead node detection (memberlist)"), logs[0]);
  BOOST_TEST(contains(logs[1], "the speaker pods must run on all nodes"), logs[1]);
}

BOOST_AUTO_TEST_CASE(unreadable_secret_key_names_the_file) {
  log::Logger logger(log::Level::None);
  ml::MembershipOptions o;
  o.bind_addr = "127.0.0.1";
  o.labels = "app=metallb";
  o.secret_key_path = "/nonexistent/ml-secret";
  auto source = startMembership("n1", o, logger);
  BOOST_REQUIRE(!source.has_value());
  BOOST_TEST(contains(source.error().message, "/nonexistent/ml-secret/secretkey"),
             source.error().message);
  BOOST_TEST(contains(source.error().message, "--ml-secret-key-path"), source.error().message);
}

/// FixedLive is a LiveNodes the test sets by hand.
struct FixedLive final : LiveNodes {
  std::set<std::string> names;
  bool has_joined = true;
  std::map<std::string, std::string> meta;  ///< metadata by member (only members in names)
  std::set<std::string> live() const override { return names; }
  bool joined() const override { return has_joined; }
  std::map<std::string, std::string> metadata() const override {
    std::map<std::string, std::string> out;
    for (const auto& [name, text] : meta) {
      if (names.contains(name)) {
        out.emplace(name, text);
      }
    }
    return out;
  }
};

/// l2World is four L2 nodes and kServices Services in the L2 pool, each with a ready endpoint.
constexpr int kServices = 12;
std::string l2World() {
  std::string y = testing::readFile(testing::sourceDir() + "/examples/l2/pool.yaml");
  y += "\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n";
  for (int n = 1; n <= 4; ++n) {
    y += "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n" + std::to_string(n) +
         "\n  labels: {ingot.example/l2-speaker: \"true\"}\n";
  }
  for (int i = 0; i < kServices; ++i) {
    const std::string s = "s" + std::to_string(i);
    y += "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: " + s +
         "\n  namespace: web\n  annotations: {metallb.io/address-pool: l2-pool}\n"
         "spec:\n  type: LoadBalancer\n  clusterIP: 10.96.10." +
         std::to_string(i + 1) +
         "\n  ipFamilies: [IPv4]\n  ipFamilyPolicy: SingleStack\n"
         "  externalTrafficPolicy: Cluster\n  ports: [{protocol: TCP, port: 80}]\n";
    y += "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: " + s +
         "-x\n  namespace: web\n  labels: {kubernetes.io/service-name: " + s +
         "}\naddressType: IPv4\nendpoints:\n  - addresses: [10.244.0.1]\n"
         "    conditions: {ready: true}\n    nodeName: n1\n";
  }
  return y;
}

/// winners returns the winner each Service's last layer2 line names.
std::map<std::string, std::string> winners(const std::vector<std::string>& logs) {
  std::map<std::string, std::string> out;
  for (const auto& line : logs) {
    if (!contains(line, "\"op\":\"layer2\"")) continue;
    const auto k = line.find("\"key\":\"") + 7;
    const auto w = line.find("\"winner\":\"") + 10;
    out[line.substr(k, line.find('"', k) - k)] = line.substr(w, line.find('"', w) - w);
  }
  return out;
}

// A member leaving re-decides exactly the Services it was the winner of; the others are not
// touched (counted), and the new winners are what a full pass computes.
BOOST_AUTO_TEST_CASE(membership_change_redecides_only_the_affected_services) {
  FixedLive live;
  live.names = {"n1", "n2", "n3", "n4"};
  ReconcilerOptions o;
  o.node = "n1";
  o.live_nodes = &live;
  Harness h(o);
  const TempFile file(l2World());
  testing::loadInto(h, file.path());
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  BOOST_TEST(h.reconciler.l2Decisions() == static_cast<uint64_t>(kServices));
  const auto before = winners(h.logs);
  BOOST_REQUIRE_EQUAL(before.size(), static_cast<size_t>(kServices));
  const std::string gone = before.at("web/s0");
  size_t affected = 0;
  for (const auto& [key, winner] : before) affected += winner == gone ? 1 : 0;
  BOOST_REQUIRE(affected < static_cast<size_t>(kServices));  // the data must leave some alone

  live.names.erase(gone);
  const size_t lines = h.logs.size();
  h.queue.add(std::string(keys::kMembers));
  BOOST_TEST(h.drain() == std::vector<std::string>{std::string(keys::kMembers)},
             boost::test_tools::per_element());
  BOOST_TEST(h.reconciler.l2Decisions() == kServices + affected);
  const std::vector<std::string> after_lines(h.logs.begin() + static_cast<long>(lines),
                                             h.logs.end());
  const auto moved = winners(after_lines);
  BOOST_TEST(moved.size() == affected);
  for (const auto& [key, winner] : moved) {
    BOOST_TEST(before.at(key) == gone, key);
    BOOST_TEST(winner != gone, key);
    BOOST_TEST(!winner.empty(), key);
  }
  // A full pass over the same membership agrees with the incremental one and logs nothing new.
  const size_t settled = h.logs.size();
  h.queue.add(std::string(keys::kSync));
  h.drain();
  BOOST_TEST(winners({h.logs.begin() + static_cast<long>(settled), h.logs.end()}).empty());

  // The member comes back: the same Services move back to it.
  live.names.insert(gone);
  const size_t back_from = h.logs.size();
  h.queue.add(std::string(keys::kMembers));
  h.drain();
  const auto back = winners({h.logs.begin() + static_cast<long>(back_from), h.logs.end()});
  BOOST_TEST(back.size() == affected);
  for (const auto& [key, winner] : back) BOOST_TEST(winner == gone, key);
}

// Before the memberlist join the agent knows no other member: it decides no Layer 2 Service
// (it would win every one) and answers nothing. The join's members key then decides them all,
// as a full pass over the joined membership does.
BOOST_AUTO_TEST_CASE(nothing_is_decided_or_answered_before_the_join) {
  FixedLive live;
  live.names = {"n1"};
  live.has_joined = false;
  FixedLive known;  // the same agent had it known the membership from the start
  known.names = {"n1", "n2", "n3", "n4"};
  ReconcilerOptions o;
  o.node = "n1";
  o.live_nodes = &live;
  ReconcilerOptions o_known = o;
  o_known.live_nodes = &known;
  Harness h(o);
  Harness reference(o_known);
  const TempFile file(l2World());
  for (Harness* x : {&h, &reference}) {
    testing::loadInto(*x, file.path());
    x->queue.add(std::string(keys::kConfig));
    x->drain();
  }
  BOOST_TEST(h.reconciler.l2Decisions() == 0u);
  BOOST_TEST(winners(h.logs).empty());
  BOOST_TEST(std::any_of(h.logs.begin(), h.logs.end(), [](const std::string& l) {
    return contains(l, "Layer 2 election waits for the memberlist join");
  }));

  live.names = known.names;
  live.has_joined = true;
  h.queue.add(std::string(keys::kMembers));
  h.drain();
  BOOST_TEST(h.reconciler.l2Decisions() == static_cast<uint64_t>(kServices));
  const auto joined = winners(h.logs);
  BOOST_TEST(joined == winners(reference.logs));
  std::set<std::string> distinct;
  for (const auto& [key, winner] : joined) distinct.insert(winner);
  BOOST_TEST(distinct.size() > 1u);  // n1 does not win everything
}

// Without memberlist (no LiveNodes) every Node object counts: a Node that is not running an
// agent can still win, as in MetalLB with memberlist disabled.
BOOST_AUTO_TEST_CASE(without_memberlist_every_node_object_is_live) {
  FixedLive live;
  live.names = {"n1"};
  ReconcilerOptions with;
  with.node = "n1";
  with.live_nodes = &live;
  ReconcilerOptions without;
  without.node = "n1";
  Harness a(with);
  Harness b(without);
  const TempFile file(l2World());
  for (Harness* h : {&a, &b}) {
    testing::loadInto(*h, file.path());
    h->queue.add(std::string(keys::kConfig));
    h->drain();
  }
  for (const auto& [key, winner] : winners(a.logs)) BOOST_TEST(winner == "n1", key);
  std::set<std::string> all;
  for (const auto& [key, winner] : winners(b.logs)) all.insert(winner);
  BOOST_TEST(all.size() > 1u);
}

/// agentMeta is an Ingot agent's metadata: joined at joined_ms with a 10 s hold-down.
std::string agentMeta(int64_t joined_ms) {
  MemberMeta m;
  m.joined_ms = joined_ms;
  m.hold_down_ms = 10'000;
  return encodeMemberMeta(m);
}

/// heldDown returns the nodes ingot_l2_held_down exports with the value 1.
std::set<std::string> heldDown(const Metrics& metrics) {
  std::set<std::string> out;
  for (const auto& f : metrics.families()) {
    if (f.name != "ingot_l2_held_down") {
      continue;
    }
    for (const auto& s : f.samples) {
      if (s.value == 1 && s.labels.size() == 1 && s.labels[0].first == "node") {
        out.insert(s.labels[0].second);
      }
    }
  }
  return out;
}

/// countLines counts the log lines from `from` on that contain text.
size_t countLines(const std::vector<std::string>& logs, size_t from, const std::string& text) {
  return static_cast<size_t>(
      std::count_if(logs.begin() + static_cast<long>(from), logs.end(),
                    [&](const std::string& l) { return contains(l, text); }));
}

// A winner that leaves and comes back is held down: its Services stay with the interim winners
// until its hold-down ends; the members key queued for that instant moves them back.
BOOST_AUTO_TEST_CASE(a_returning_winner_takes_its_services_back_after_the_hold_down) {
  int64_t wall = 100'000;
  FixedLive live;
  live.names = {"n1", "n2", "n3", "n4"};
  for (const auto& n : live.names) live.meta[n] = agentMeta(0);
  ReconcilerOptions o;
  o.node = "n1";
  o.live_nodes = &live;
  o.wall_clock = [&wall] { return wall; };
  Harness h(o);
  const TempFile file(l2World());
  testing::loadInto(h, file.path());
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  auto current = winners(h.logs);
  const std::string gone = current.at("web/s0");
  live.names.erase(gone);
  h.queue.add(std::string(keys::kMembers));
  h.drain();
  const auto interim = winners(h.logs);
  BOOST_TEST(interim.at("web/s0") != gone);

  live.names.insert(gone);  // back, joined now: held until wall + 10 s
  live.meta[gone] = agentMeta(wall);
  size_t from = h.logs.size();
  h.queue.add(std::string(keys::kMembers));
  h.drain();
  BOOST_TEST(winners({h.logs.begin() + static_cast<long>(from), h.logs.end()}).empty());
  BOOST_TEST(countLines(h.logs, from, "\"event\":\"heldDown\"") == 1u);
  BOOST_TEST(h.queue.delayedLen() == 1u);  // the members key, for the end of the hold-down
  BOOST_TEST(heldDown(h.metrics) == std::set<std::string>{gone});

  wall += 9'999;  // one ms before the end: the timer has not fired yet
  h.clock.advance(std::chrono::milliseconds(9'999));
  BOOST_TEST(h.drain().empty());
  wall += 1;
  h.clock.advance(std::chrono::milliseconds(1));
  from = h.logs.size();
  BOOST_TEST(h.drain() == std::vector<std::string>{std::string(keys::kMembers)},
             boost::test_tools::per_element());
  BOOST_TEST(countLines(h.logs, from, "\"event\":\"holdDownEnded\"") == 1u);
  const auto back = winners(h.logs);
  BOOST_TEST(back == current);  // every Service is with its normal winner again
  BOOST_TEST(heldDown(h.metrics).empty());
  BOOST_TEST(h.queue.delayedLen() == 0u);
}

// A member that is not an Ingot agent (a MetalLB speaker advertises no metadata) switches the
// hold-down off for everyone: a returning winner takes its Services back at once.
BOOST_AUTO_TEST_CASE(a_metallb_speaker_in_the_cluster_switches_the_hold_down_off) {
  const int64_t wall = 100'000;
  FixedLive live;
  live.names = {"n1", "n2", "n3", "n4"};
  for (const auto& n : live.names) live.meta[n] = agentMeta(0);
  live.meta["n4"] = "";  // a MetalLB speaker
  ReconcilerOptions o;
  o.node = "n1";
  o.live_nodes = &live;
  o.wall_clock = [&wall] { return wall; };
  Harness h(o);
  const TempFile file(l2World());
  testing::loadInto(h, file.path());
  h.queue.add(std::string(keys::kConfig));
  h.drain();
  const auto current = winners(h.logs);
  std::string gone = current.at("web/s0");
  live.names.erase(gone);
  h.queue.add(std::string(keys::kMembers));
  h.drain();
  live.names.insert(gone);
  live.meta[gone] = gone == "n4" ? "" : agentMeta(wall);
  h.queue.add(std::string(keys::kMembers));
  h.drain();
  BOOST_TEST(winners(h.logs) == current);
  BOOST_TEST(h.queue.delayedLen() == 0u);
  BOOST_TEST(countLines(h.logs, 0, "member n4 is not an Ingot agent") == 1u);
}

}  // namespace
}  // namespace ingot::agent
