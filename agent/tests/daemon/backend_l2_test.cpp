// SPDX-License-Identifier: Apache-2.0
// Layer2Backend against a fake responder, the fake API client and hand-filled stores: what the
// responder is told per transition, the Events, ServiceL2Status writes, metrics and the
// responder's start failure.
#include "agent/backends/backend_l2.h"

#include <boost/test/unit_test.hpp>

#include "agent/reconcile/writes.h"
#include "agent/tests/daemon/harness.h"
#include "api/codec.h"

namespace ingot::agent {
namespace {

using testing::contains;
using testing::World;

net::IpAddress ip(const char* text) {
  return *net::IpAddress::parse(text);
}

/// FakeResponder records every call as "announce <owner> <ip> <ifs|*>[ probe]" /
/// "withdraw <owner> <ip>".
struct FakeResponder final : L2Responder {
  struct Shared {
    std::vector<std::string> calls;
    std::vector<l2::AnnounceInterface> interfaces;
    l2::ResponderStats stats;
    bool alive = false;
    std::set<l2::Mac> member_macs;
    std::function<void()> listener;
  };
  explicit FakeResponder(Shared& s) : s_(s) { s_.alive = true; }
  ~FakeResponder() override { s_.alive = false; }
  void announce(const std::string& owner,
                const net::IpAddress& addr,
                const std::optional<std::set<std::string>>& ifs,
                bool probe) override {
    std::string names;
    for (const auto& n : ifs.value_or(std::set<std::string>{"*"})) {
      names += (names.empty() ? "" : ",") + n;
    }
    s_.calls.push_back("announce " + owner + " " + addr.toString() + " " + names +
                       (probe ? " probe" : ""));
  }
  void setMemberMacs(std::set<l2::Mac> macs) override { s_.member_macs = std::move(macs); }
  void setProbeListener(std::function<void()> listener) override {
    s_.listener = std::move(listener);
  }
  void withdraw(const std::string& owner, const net::IpAddress& addr) override {
    s_.calls.push_back("withdraw " + owner + " " + addr.toString());
  }
  std::vector<l2::AnnounceInterface> interfaces() const override { return s_.interfaces; }
  l2::ResponderStats stats() const override { return s_.stats; }
  Shared& s_;
};

l2::AnnounceInterface iface(const char* name, int index) {
  l2::AnnounceInterface i;
  i.name = name;
  i.index = index;
  i.arp = true;
  return i;
}

L2Announcement svc(const char* name,
                   const std::vector<const char*>& ips,
                   std::optional<std::set<std::string>> ifs = std::nullopt) {
  L2Announcement a{"web", name, {}, std::move(ifs)};
  for (const char* text : ips) {
    a.ips.push_back(ip(text));
  }
  return a;
}

/// FakeLive is the memberlist view: only the members' metadata matters here.
struct FakeLive final : LiveNodes {
  std::set<std::string> live() const override { return {}; }
  std::map<std::string, std::string> metadata() const override { return meta; }
  std::map<std::string, std::string> meta;
};

FakeLive& liveNodes() {
  static FakeLive live;
  return live;
}

BackendOptions l2Options() {
  BackendOptions o;
  o.node = "node1";
  o.live_nodes = &liveNodes();
  return o;
}

/// Fixture is one Layer2Backend for node1 with its fakes.
struct Fixture {
  explicit Fixture(int failing_starts = 0)
      : client(api),
        queue(k8s::WorkQueueOptions{}, clock),
        metrics("node1"),
        logger(log::Level::Debug, [this](std::string_view line) { logs.emplace_back(line); }),
        backend(BackendContext{world.caches(), client, events, queue, metrics, logger, l2Options(),
                               clock},
                [this, failing_starts]() -> Result<std::unique_ptr<L2Responder>> {
                  ++starts;
                  if (starts <= failing_starts) {
                    return Error{ErrorCode::Unavailable, "socket: Operation not permitted"};
                  }
                  return std::unique_ptr<L2Responder>(std::make_unique<FakeResponder>(fake));
                }) {
    fake.interfaces = {iface("eth0", 2), iface("eth1", 3)};
  }

  /// step hands the backend one desired state and runs apply when it asks for it; it returns
  /// whether apply ran.
  bool step(std::vector<L2Announcement> l2) {
    auto delay = backend.update(Desired{nullptr, {}, std::move(l2)});
    if (!delay) {
      return false;
    }
    last = backend.apply();
    return true;
  }

  std::vector<k8s::testing::Write> statusWrites() const {
    std::vector<k8s::testing::Write> out;
    for (const auto& w : api.writes()) {
      if (contains(w.body, "ServiceL2Status") || contains(w.body, "serviceName") ||
          w.verb == "remove") {
        out.push_back(w);
      }
    }
    return out;
  }

  std::vector<std::string> reasons() const {
    std::vector<std::string> out;
    for (const auto& e : events.events) {
      out.push_back(e.reason);
    }
    return out;
  }

  World world;
  k8s::testing::FakeApiClient api;
  testing::NamingClient client;
  k8s::testing::FakeClock clock;
  k8s::WorkQueue queue;
  Metrics metrics;
  std::vector<std::string> logs;
  log::Logger logger;
  testing::RecordingSink events;
  FakeResponder::Shared fake;
  int starts = 0;
  Layer2Backend backend;
  ReconcileResult last;
};

struct Transition {
  const char* desc;
  std::vector<L2Announcement> before;
  std::vector<L2Announcement> after;
  std::vector<std::string> calls;    ///< the responder calls of the second step, in order
  std::vector<std::string> reasons;  ///< the Events of the second step
};

BOOST_AUTO_TEST_CASE(responder_calls_per_transition) {
  const std::set<std::string> eth0{"eth0"};
  const std::vector<Transition> cases = {
      {"gain",
       {},
       {svc("a", {"192.0.2.1"})},
       {"announce web/a 192.0.2.1 * probe"},
       {"nodeAssigned"}},
      {"lose", {svc("a", {"192.0.2.1"})}, {}, {"withdraw web/a 192.0.2.1"}, {}},
      {"unchanged_makes_no_call", {svc("a", {"192.0.2.1"})}, {svc("a", {"192.0.2.1"})}, {}, {}},
      {"shared_ip_one_owner_leaves",
       {svc("a", {"192.0.2.1"}), svc("b", {"192.0.2.1"})},
       {svc("b", {"192.0.2.1"})},
       {"withdraw web/a 192.0.2.1"},
       {}},
      {"shared_ip_second_owner_joins",
       {svc("a", {"192.0.2.1"})},
       {svc("a", {"192.0.2.1"}), svc("b", {"192.0.2.1"})},
       {"announce web/b 192.0.2.1 *"},
       {"nodeAssigned"}},
      {"address_change_announces_before_withdrawing",
       {svc("a", {"192.0.2.1"})},
       {svc("a", {"192.0.2.2"})},
       {"announce web/a 192.0.2.2 *", "withdraw web/a 192.0.2.1"},
       {"nodeAssigned"}},
      {"dual_stack_second_address_added",
       {svc("a", {"192.0.2.1"})},
       {svc("a", {"192.0.2.1", "2001:db8::1"})},
       {"announce web/a 2001:db8::1 *"},
       {"nodeAssigned"}},
      {"restriction_added_reannounces_without_withdraw",
       {svc("a", {"192.0.2.1"})},
       {svc("a", {"192.0.2.1"}, eth0)},
       {"announce web/a 192.0.2.1 eth0"},
       {}},
      {"named_interface_missing_is_not_announced",
       {},
       {svc("a", {"192.0.2.1", "192.0.2.9"}, std::set<std::string>{"eth9"})},
       {},
       {"announceFailed", "announceFailed"}},
      {"one_named_interface_present_is_enough",
       {},
       {svc("a", {"192.0.2.1"}, std::set<std::string>{"eth9", "eth1"})},
       {"announce web/a 192.0.2.1 eth1,eth9 probe"},
       {"nodeAssigned"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Fixture f;
      f.step(c.before);
      f.fake.calls.clear();
      f.events.events.clear();
      f.step(c.after);
      BOOST_TEST(f.fake.calls == c.calls, boost::test_tools::per_element());
      BOOST_TEST(f.reasons() == c.reasons, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(events_carry_metallb_texts_once) {
  Fixture f;
  f.step({svc("a", {"192.0.2.1"}), svc("b", {"192.0.2.5"}, std::set<std::string>{"eth9"})});
  BOOST_REQUIRE_EQUAL(f.events.events.size(), 2u);
  const auto& failed = f.events.events[0];
  BOOST_TEST(failed.reason == "announceFailed");
  BOOST_TEST((failed.type == k8s::EventType::Warning));
  BOOST_TEST(failed.object.name == "b");
  BOOST_TEST(failed.message ==
             "the interfaces specified by LB IP \"192.0.2.5\" doesn't exist in assigned node "
             "\"node1\" with protocol \"layer2\"");
  const auto& assigned = f.events.events[1];
  BOOST_TEST(assigned.reason == "nodeAssigned");
  BOOST_TEST((assigned.type == k8s::EventType::Normal));
  BOOST_TEST(assigned.object.kind == "Service");
  BOOST_TEST(assigned.message == "announcing from node \"node1\" with protocol \"layer2\"");
  // The missing interface is retried after the responder's rescan interval, without a second
  // Event; once it exists the address is announced.
  BOOST_TEST((f.last.kind == ReconcileResult::Kind::RequeueAfter));
  f.last = f.backend.apply();
  BOOST_TEST(f.events.events.size() == 2u);
  f.fake.interfaces.push_back(iface("eth9", 9));
  f.last = f.backend.apply();
  BOOST_TEST(f.last.ok());
  BOOST_TEST(f.fake.calls.back() == "announce web/b 192.0.2.5 eth9 probe");
}

BOOST_AUTO_TEST_CASE(responder_starts_only_when_needed_and_reports_a_failed_start) {
  Fixture f(/*failing_starts=*/1);
  BOOST_TEST(!f.step({}));
  BOOST_TEST(f.starts == 0);
  BOOST_TEST(!f.backend.stateError().has_value());

  BOOST_TEST(f.step({svc("a", {"192.0.2.1"})}));
  BOOST_TEST(f.starts == 1);
  BOOST_REQUIRE(f.backend.stateError().has_value());
  BOOST_TEST(contains(*f.backend.stateError(), "CAP_NET_RAW"));
  BOOST_TEST(contains(*f.backend.stateError(), "Operation not permitted"));
  BOOST_TEST((f.last.kind == ReconcileResult::Kind::RequeueAfter));
  BOOST_TEST(f.statusWrites().empty());  // nothing is answered, so no ServiceL2Status
  BOOST_TEST(f.backend.stateCondition() == kLayer2ConditionType);

  f.last = f.backend.apply();  // the retry succeeds
  BOOST_TEST(f.starts == 2);
  BOOST_TEST(f.last.ok());
  BOOST_TEST(f.backend.stateError().value_or("unset").empty());
  BOOST_TEST(f.fake.calls == std::vector<std::string>{"announce web/a 192.0.2.1 * probe"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_state_is_pending_until_the_responder_is_tried) {
  // Pending: Services to answer and no start tried yet, whatever the start's outcome.
  for (const int failing_starts : {0, 1}) {
    Fixture f(failing_starts);
    BOOST_TEST(!f.step({}));
    BOOST_TEST(!f.backend.statePending());  // nothing to answer: no responder, no condition
    BOOST_TEST(f.backend.update(Desired{nullptr, {}, {svc("a", {"192.0.2.1"})}}).has_value());
    BOOST_TEST(f.backend.statePending());
    BOOST_TEST(!f.backend.stateError().has_value());
    f.last = f.backend.apply();
    BOOST_TEST(!f.backend.statePending());
    BOOST_TEST(f.backend.stateError().has_value());
    BOOST_TEST(f.backend.stateError()->empty() == (failing_starts == 0));
  }
}

BOOST_AUTO_TEST_CASE(stop_stops_the_responder_and_further_updates) {
  Fixture f;
  f.step({svc("a", {"192.0.2.1"})});
  BOOST_TEST(f.fake.alive);
  f.backend.stop();
  BOOST_TEST(!f.fake.alive);
  BOOST_TEST(!f.step({svc("a", {"192.0.2.2"})}));
  BOOST_TEST(f.backend.apply().ok());
  BOOST_TEST(f.starts == 1);
}

BOOST_AUTO_TEST_CASE(metrics_show_announced_addresses_and_responder_counters) {
  Fixture f;
  f.fake.stats.per_ip[ip("192.0.2.1")] = l2::IpCounters{7, 6, 4};
  f.step({svc("a", {"192.0.2.1"})});
  const std::string text = f.metrics.render();
  BOOST_TEST(contains(text,
                      "metallb_speaker_announced{ip=\"192.0.2.1\",node=\"node1\","
                      "protocol=\"layer2\",service=\"web/a\"} 1"),
             text);
  BOOST_TEST(contains(text, "metallb_layer2_requests_received{ip=\"192.0.2.1\"} 7"), text);
  BOOST_TEST(contains(text, "metallb_layer2_responses_sent{ip=\"192.0.2.1\"} 6"), text);
  BOOST_TEST(contains(text, "metallb_layer2_gratuitous_sent{ip=\"192.0.2.1\"} 4"), text);
  f.step({});
  BOOST_TEST(!contains(f.metrics.render(), "protocol=\"layer2\""));
}

/// stored returns a ServiceL2Status as the informer would hold it.
api::ServiceL2Status stored(const std::string& name,
                            const std::string& node,
                            const std::string& service,
                            std::vector<std::string> ifs = {}) {
  api::ServiceL2Status s;
  s.metadata.name = name;
  s.metadata.namespace_ = "metallb-system";
  s.metadata.labels = {{"metallb.io/node", node},
                       {"metallb.io/service-name", service},
                       {"metallb.io/service-namespace", "web"}};
  s.status = api::ServiceL2StatusStatus{node, service, "web", std::move(ifs)};
  return s;
}

BOOST_AUTO_TEST_CASE(service_l2_status_is_created_with_metallb_names_and_not_rewritten) {
  Fixture f;
  f.step({svc("a", {"192.0.2.1"}, std::set<std::string>{"eth1", "eth0"})});
  const auto writes = f.api.writes();
  BOOST_REQUIRE_EQUAL(writes.size(), 2u);
  BOOST_TEST(writes[0].verb == "create");
  auto obj = api::decodeJson<api::ServiceL2Status>(writes[0].body);
  BOOST_REQUIRE(obj.has_value());
  BOOST_TEST(obj->metadata.name == statusObjectName("l2-", "node1", "web", "a"));
  BOOST_TEST(obj->metadata.namespace_ == "metallb-system");
  BOOST_TEST(obj->metadata.labels == (api::StringMap{{"metallb.io/node", "node1"},
                                                     {"metallb.io/service-name", "a"},
                                                     {"metallb.io/service-namespace", "web"}}));
  BOOST_TEST(writes[1].verb == "patchStatus");
  BOOST_TEST(writes[1].name == statusObjectName("l2-", "node1", "web", "a"));
  BOOST_TEST(writes[1].body ==
             R"({"status":{"node":"node1","serviceName":"a","serviceNamespace":"web",)"
             R"("interfaces":[{"name":"eth0"},{"name":"eth1"}]}})");
  // A resync with the same decision writes nothing, before and after the cache shows the object.
  BOOST_TEST(!f.step({svc("a", {"192.0.2.1"}, std::set<std::string>{"eth0", "eth1"})}));
  World::upsert(
      f.world.l2_statuses,
      stored(statusObjectName("l2-", "node1", "web", "a"), "node1", "a", {"eth0", "eth1"}), "7");
  f.clock.advance(std::chrono::seconds(61));
  BOOST_TEST(!f.step({svc("a", {"192.0.2.1"}, std::set<std::string>{"eth0", "eth1"})}));
  BOOST_TEST(f.api.writes().size() == 2u);
  // Every interface: the list is removed.
  BOOST_TEST(f.step({svc("a", {"192.0.2.1"})}));
  BOOST_REQUIRE_EQUAL(f.api.writes().size(), 3u);
  BOOST_TEST(f.api.writes()[2].body ==
             R"({"status":{"node":"node1","serviceName":"a","serviceNamespace":"web",)"
             R"("interfaces":null}})");
}

// A create answered 504 although it committed, then repeated: AlreadyExists adopts the object
// (its name follows from node and Service) and writes its status; no second object.
BOOST_AUTO_TEST_CASE(service_l2_status_create_repeated_after_a_timeout_adopts_the_object) {
  Fixture f;
  f.client.status_create_errors.push_back(
      Error{ErrorCode::Unavailable, "POST servicel2statuses: Timeout (HTTP 504 Timeout)"});
  BOOST_TEST(f.step({svc("a", {"192.0.2.1"})}));
  BOOST_TEST(!f.last.ok());
  f.client.status_create_errors.push_back(
      Error{ErrorCode::AlreadyExists, "servicel2statuses already exists (HTTP 409)"});
  BOOST_TEST(f.step({svc("a", {"192.0.2.1"})}));
  BOOST_TEST(f.last.ok());
  const std::string mine = statusObjectName("l2-", "node1", "web", "a");
  std::vector<std::string> got;
  for (const auto& w : f.api.writes()) {
    auto obj = api::decodeJson<api::ServiceL2Status>(w.body);
    got.push_back(w.verb + " " + (w.verb == "create" && obj ? obj->metadata.name : w.name));
  }
  const std::vector<std::string> want = {"create " + mine, "create " + mine, "patchStatus " + mine};
  BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(service_l2_status_of_other_nodes_and_lost_services_is_deleted) {
  Fixture f;
  World::upsert(f.world.l2_statuses, stored("l2-old", "node2", "a"));    // a moved here
  World::upsert(f.world.l2_statuses, stored("l2-mine", "node1", "b"));   // b moved away
  World::upsert(f.world.l2_statuses, stored("l2-other", "node3", "c"));  // not ours to touch
  f.step({svc("a", {"192.0.2.1"})});
  std::vector<std::string> got;
  for (const auto& w : f.api.writes()) {
    got.push_back(w.verb + " " + w.name);
  }
  const std::string mine = statusObjectName("l2-", "node1", "web", "a");
  const std::vector<std::string> want = {"remove l2-old", "create ", "patchStatus " + mine,
                                         "remove l2-mine"};
  BOOST_TEST(got == want, boost::test_tools::per_element());
  // Losing a: its object is deleted; nothing is written again for the deleted ones.
  f.step({});
  BOOST_REQUIRE_EQUAL(f.api.writes().size(), 5u);
  BOOST_TEST(f.api.writes()[4].verb == "remove");
  BOOST_TEST(f.api.writes()[4].name == mine);
  BOOST_TEST(!f.step({}));
}

BOOST_AUTO_TEST_CASE(a_status_change_before_the_first_sync_touches_nothing) {
  Fixture f;
  World::upsert(f.world.l2_statuses, stored("l2-9", "node1", "a"), "3");
  BOOST_TEST(f.backend.apply().ok());  // e.g. the informer's first list, before any decision
  BOOST_TEST(f.api.writes().empty());
  BOOST_TEST(f.starts == 0);
  BOOST_TEST(f.step({}));  // the first decision: a is not answered here any more
  BOOST_REQUIRE_EQUAL(f.api.writes().size(), 1u);
  BOOST_TEST(f.api.writes()[0].verb == "remove");
}

BOOST_AUTO_TEST_CASE(service_l2_status_deleted_by_someone_is_recreated) {
  Fixture f;
  World::upsert(f.world.l2_statuses, stored("l2-9", "node1", "a"), "3");
  BOOST_TEST(f.step({svc("a", {"192.0.2.1"})}));
  BOOST_TEST(f.api.writes().empty());  // the stored object is already right
  f.world.l2_statuses.erase(k8s::objectKey("metallb-system", "l2-9"));
  BOOST_TEST(f.step({svc("a", {"192.0.2.1"})}));
  BOOST_REQUIRE_EQUAL(f.api.writes().size(), 2u);
  BOOST_TEST(f.api.writes()[0].verb == "create");
  BOOST_TEST(f.fake.calls.size() == 1u);  // the responder is not touched by status repairs
}

BOOST_AUTO_TEST_CASE(a_decision_repeated_before_the_pending_apply_keeps_asking_for_it) {
  // The reconcile worker hands a decision, and before the apply it asked for runs, another key
  // hands the same decision again (a membership change re-deciding several Services): the
  // address still answered for the lost Service has no announcement any more.
  Fixture f;
  BOOST_TEST(f.step({svc("a", {"192.0.2.1"})}));
  f.fake.calls.clear();
  BOOST_TEST(f.backend.update(Desired{nullptr, {}, {}}).has_value());
  std::optional<k8s::Duration> again;
  BOOST_REQUIRE_NO_THROW(again = f.backend.update(Desired{nullptr, {}, {}}));
  BOOST_TEST(again.has_value());  // the answer and its status are still to withdraw
  BOOST_TEST(f.backend.apply().ok());
  const std::vector<std::string> withdrawn = {"withdraw web/a 192.0.2.1"};
  BOOST_TEST(f.fake.calls == withdrawn, boost::test_tools::per_element());
  BOOST_REQUIRE(!f.api.writes().empty());
  BOOST_TEST(f.api.writes().back().verb == "remove");
  BOOST_TEST(!f.step({}));
}

}  // namespace
}  // namespace ingot::agent

namespace ingot::agent {
namespace {

const l2::Mac kRogue = {0x02, 0xcc, 0, 0, 0, 0x03};

BOOST_AUTO_TEST_CASE(only_addresses_no_member_announced_before_are_probed) {
  Fixture fresh;
  fresh.step({svc("a", {"192.0.2.1"})});
  Fixture failover;  // another node's ServiceL2Status: a failover, answered at once
  World::upsert(failover.world.l2_statuses, stored("l2-old", "node2", "a"));
  failover.step({svc("a", {"192.0.2.1"})});
  Fixture back;  // answered by this agent before: no probe when it comes back
  back.step({svc("a", {"192.0.2.1"})});
  back.step({});
  back.step({svc("b", {"192.0.2.1"})});
  const std::vector<std::string> want_fresh = {"announce web/a 192.0.2.1 * probe"};
  BOOST_TEST(fresh.fake.calls == want_fresh, boost::test_tools::per_element());
  BOOST_TEST(failover.fake.calls.back() == "announce web/a 192.0.2.1 *");
  BOOST_TEST(back.fake.calls.back() == "announce web/b 192.0.2.1 *");
}

BOOST_AUTO_TEST_CASE(a_conflict_is_reported_and_not_announced_until_free) {
  Fixture f;
  l2::ProbeStatus probe;
  probe.conflict = l2::Conflict{kRogue, "eth0"};
  probe.waiting = true;
  f.fake.stats.probes[ip("192.0.2.1")] = probe;
  f.fake.stats.conflicts_detected = 1;
  f.step({svc("a", {"192.0.2.1"})});
  BOOST_REQUIRE(f.fake.listener != nullptr);
  BOOST_TEST(f.reasons() == std::vector<std::string>{"AddressConflict"},
             boost::test_tools::per_element());
  const auto& e = f.events.events.at(0);
  BOOST_TEST((e.type == k8s::EventType::Warning));
  BOOST_TEST(e.object.name == "a");
  BOOST_TEST(e.message ==
             "address 192.0.2.1 is in use by MAC 02:cc:00:00:00:03 (seen on interface eth0 of "
             "node \"node1\"): not announcing it; probing again with backoff up to 30s");
  BOOST_TEST(f.statusWrites().empty());
  std::string text = f.metrics.render();
  BOOST_TEST(contains(text,
                      "ingot_agent_layer2_address_conflicts{ip=\"192.0.2.1\","
                      "mac=\"02:cc:00:00:00:03\",interface=\"eth0\"} 1"),
             text);
  BOOST_TEST(contains(text, "ingot_agent_layer2_address_conflicts_detected_total 1"), text);
  BOOST_TEST(!contains(text, "protocol=\"layer2\""));
  f.last = f.backend.apply();  // the same conflict again: no second Event
  BOOST_TEST(f.events.events.size() == 1u);

  f.fake.stats.probes.clear();  // a round found the address free
  f.fake.listener();
  BOOST_TEST(f.queue.len() == 1u);
  f.last = f.backend.apply();
  BOOST_TEST(f.reasons() == (std::vector<std::string>{"AddressConflict", "AddressConflictCleared",
                                                      "nodeAssigned"}),
             boost::test_tools::per_element());
  BOOST_TEST(f.statusWrites().size() == 2u);  // create and status patch
  text = f.metrics.render();
  BOOST_TEST(!contains(text, "ingot_agent_layer2_address_conflicts{"), text);
  BOOST_TEST(contains(text, "protocol=\"layer2\",service=\"web/a\"} 1"), text);
}

BOOST_AUTO_TEST_CASE(member_macs_come_from_the_memberlist_metadata) {
  liveNodes().meta = {{"node1", "ingot/1 macs=02:aa:00:00:00:01"},
                      {"node2", "ingot/1 macs=02:bb:00:00:00:02,02:bb:00:00:00:03"},
                      {"node3", ""},                        // a MetalLB speaker
                      {"node4", "ingot/1 macs=nonsense"}};  // damaged: ignored
  Fixture f;
  f.step({svc("a", {"192.0.2.1"})});
  liveNodes().meta.clear();
  const std::set<l2::Mac> want = {
      {0x02, 0xaa, 0, 0, 0, 0x01}, {0x02, 0xbb, 0, 0, 0, 0x02}, {0x02, 0xbb, 0, 0, 0, 0x03}};
  BOOST_TEST((f.fake.member_macs == want));
}

}  // namespace
}  // namespace ingot::agent
