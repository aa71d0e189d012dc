// SPDX-License-Identifier: Apache-2.0
// The reconciler against kube's FakeApiClient: informer stores filled by hand, a work queue on a
// fake clock, and the writes it makes checked body by body.
#include "controller/reconciler.h"

#include <algorithm>
#include <memory>
#include <set>

#include <boost/test/unit_test.hpp>

#include "controller/status_writes.h"
#include "kube/tests/fake_api_client.h"
#include "kube/tests/fake_clock.h"

using namespace ingot;
using namespace ingot::controller;
using namespace std::chrono_literals;
using k8s::testing::FakeApiClient;
using k8s::testing::FakeClock;

namespace {

constexpr const char* kNs = "metallb-system";
constexpr const char* kAllocatedFrom = "metallb.io/ip-allocated-from-pool";

api::Service lbService(const std::string& name, const std::string& cluster_ip) {
  api::Service s;
  s.metadata.name = name;
  s.metadata.namespace_ = "default";
  s.metadata.uid = "uid-" + name;
  s.metadata.resource_version = "1";
  s.spec.type = "LoadBalancer";
  s.spec.cluster_ip = cluster_ip;
  s.spec.cluster_ips = {cluster_ip};
  s.spec.ip_families = {"IPv4"};
  s.spec.ports = {api::ServicePort{"", "TCP", 80, "80", 0}};
  return s;
}

api::IPAddressPool pool(const std::string& name, const std::vector<std::string>& addresses) {
  api::IPAddressPool p;
  p.metadata.name = name;
  p.metadata.namespace_ = kNs;
  p.metadata.resource_version = "1";
  p.metadata.generation = 1;
  p.spec.addresses = addresses;
  return p;
}

struct RecordedEvent {
  std::string object;
  std::string text;
};

class FakeEvents final : public EventSink {
 public:
  void record(const k8s::ObjectReference& o,
              k8s::EventType type,
              std::string_view reason,
              std::string_view message) override {
    events.push_back({o.namespace_ + "/" + o.name, std::string(k8s::eventTypeName(type)) + " " +
                                                       std::string(reason) + ": " +
                                                       std::string(message)});
  }
  std::vector<RecordedEvent> events;
};

/// Fixture is a reconciler over hand-filled stores.
struct Fixture {
  k8s::Store<api::Service> services;
  k8s::Store<api::IPAddressPool> pools;
  k8s::Store<api::Community> communities;
  k8s::Store<api::Namespace> namespaces;
  k8s::Store<api::ConfigurationState> states;
  FakeApiClient api;
  FakeEvents events;
  FakeClock clock;
  k8s::WorkQueue queue{{}, clock};
  Metrics metrics;
  std::vector<std::string> lines;
  log::Logger logger{log::Level::Debug, [this](std::string_view l) { lines.emplace_back(l); }};
  std::unique_ptr<Reconciler> reconciler;

  explicit Fixture(ReconcilerOptions options = defaults()) {
    reconciler = std::make_unique<Reconciler>(
        Caches{services, pools, communities, namespaces, states},
        k8s::ReconcileIo{api, events, queue, logger, clock}, metrics, std::move(options));
  }

  static ReconcilerOptions defaults() {
    ReconcilerOptions o;
    o.namespace_ = kNs;
    o.write_concurrency = 1;
    return o;
  }

  void put(const api::Service& s) {
    services.upsert("default/" + s.metadata.name,
                    {std::make_shared<const api::Service>(s), s.metadata.resource_version});
  }
  void put(const api::IPAddressPool& p) {
    pools.upsert(std::string(kNs) + "/" + p.metadata.name,
                 {std::make_shared<const api::IPAddressPool>(p), p.metadata.resource_version});
  }

  /// readyKeys takes every key that is ready at the fake clock's now (marking each done).
  std::vector<std::string> readyKeys() {
    std::vector<std::string> out;
    while (auto k = queue.tryGet()) {
      out.push_back(*k);
      queue.done(*k);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<k8s::testing::Write> writesOf(const std::string& verb) const {
    std::vector<k8s::testing::Write> out;
    for (const auto& w : api.writes()) {
      if (w.verb == verb) out.push_back(w);
    }
    return out;
  }

  /// startPass parses the configuration (which runs the first full pass).
  void startPass() { BOOST_REQUIRE(reconciler->reconcile("config").ok()); }
};

std::string assignPatch(const std::string& ip, const std::string& pool_name) {
  return R"({"metadata":{"annotations":{")" + std::string(kAllocatedFrom) + R"(":")" + pool_name +
         R"("}},"status":{"loadBalancer":{"ingress":[{"ip":")" + ip + R"("}]}}})";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reconciler)

BOOST_AUTO_TEST_CASE(service_keys_are_ignored_until_the_first_full_pass) {
  Fixture f;
  f.put(pool("p", {"192.168.1.0/30"}));
  f.put(lbService("web", "10.96.0.1"));
  BOOST_TEST(f.reconciler->reconcile(keys::service("default/web")).ok());
  BOOST_TEST(f.reconciler->reconcile("pool:p").ok());
  BOOST_TEST(f.api.writes().empty());
  BOOST_TEST(!f.reconciler->initialPassDone());
}

BOOST_AUTO_TEST_CASE(first_pass_writes_status_and_annotation_once_and_emits_the_event) {
  Fixture f;
  f.put(pool("p", {"192.168.1.0/30"}));
  f.put(lbService("web", "10.96.0.1"));
  f.put(lbService("other", "10.96.0.2"));
  f.startPass();
  BOOST_TEST(f.reconciler->initialPassDone());
  const auto writes = f.writesOf("patchStatus");
  BOOST_REQUIRE(writes.size() == 2u);
  // Pending services allocate in namespace/name order.
  BOOST_TEST(writes[0].name == "other");
  BOOST_TEST(writes[0].body == assignPatch("192.168.1.0", "p"));
  BOOST_TEST(writes[1].name == "web");
  BOOST_TEST(writes[1].body == assignPatch("192.168.1.1", "p"));
  BOOST_REQUIRE(f.events.events.size() == 2u);
  BOOST_TEST(f.events.events[1].object == "default/web");
  BOOST_TEST(f.events.events[1].text == "Normal IPAllocated: Assigned IP [\"192.168.1.1\"]");
  BOOST_TEST(f.readyKeys() == std::vector<std::string>{"state"}, boost::test_tools::per_element());
  f.clock.advance(1s);  // pool status is coalesced
  BOOST_TEST(f.readyKeys() == std::vector<std::string>{"pool:p"}, boost::test_tools::per_element());

  BOOST_TEST_MESSAGE("the cache has not seen the write yet: reconciling again writes nothing");
  const auto r = f.reconciler->reconcileServices(
      {keys::service("default/web"), keys::service("default/other")});
  BOOST_TEST((r[0].ok() && r[1].ok()));
  BOOST_TEST(f.writesOf("patchStatus").size() == 2u);
  BOOST_TEST(f.events.events.size() == 2u);
}

BOOST_AUTO_TEST_CASE(services_already_holding_their_addresses_cause_no_write) {
  Fixture f;
  f.put(pool("p", {"192.168.1.0/30"}));
  api::Service held = lbService("held", "10.96.0.1");
  held.status.ingress = {{"192.168.1.2", "", std::nullopt}};
  held.metadata.annotations[kAllocatedFrom] = "p";
  f.put(held);
  api::Service pending = lbService("a-pending", "10.96.0.2");
  f.put(pending);
  f.startPass();
  const auto writes = f.writesOf("patchStatus");
  BOOST_REQUIRE(writes.size() == 1u);
  BOOST_TEST(writes[0].name == "a-pending");
  BOOST_TEST(writes[0].body == assignPatch("192.168.1.0", "p"));
  BOOST_TEST(f.reconciler->allocatorForTest().poolOf("default/held") == "p");
}

BOOST_AUTO_TEST_CASE(invalid_configuration_is_reported_and_the_last_good_one_is_kept) {
  Fixture f;
  f.put(pool("p", {"192.168.1.0/30"}));
  f.startPass();
  const auto good = f.reconciler->config();
  f.put(pool("q", {"192.168.1.2/31"}));  // overlaps p
  BOOST_TEST(f.reconciler->reconcile("config").ok());
  BOOST_TEST(f.reconciler->config() == good);
  BOOST_TEST(f.metrics.render().find("metallb_k8s_client_config_stale_bool 1") !=
             std::string::npos);
  f.readyKeys();
  BOOST_TEST(f.reconciler->reconcile("state").ok());
  const auto created = f.writesOf("create");
  BOOST_REQUIRE(created.size() == 1u);
  BOOST_TEST(created[0].body.find(R"("name":"controller")") != std::string::npos);
  const auto states = f.writesOf("patchStatus");
  BOOST_REQUIRE(states.size() == 1u);
  BOOST_TEST(states[0].name == "controller");
  BOOST_TEST(states[0].body.find(R"("result":"Invalid")") != std::string::npos, states[0].body);
  BOOST_TEST(states[0].body.find("overlaps") != std::string::npos, states[0].body);

  BOOST_TEST_MESSAGE("a new service is still served from the last good configuration");
  f.put(lbService("new", "10.96.0.9"));
  BOOST_TEST(f.reconciler->reconcile(keys::service("default/new")).ok());
  const auto writes = f.writesOf("patchStatus");
  BOOST_REQUIRE(writes.size() == 2u);
  BOOST_TEST(writes[1].body == assignPatch("192.168.1.0", "p"));
}

BOOST_AUTO_TEST_CASE(a_failed_write_fails_the_pass_which_is_retried_whole) {
  Fixture f;
  f.put(pool("p", {"192.168.1.0/30"}));
  f.put(lbService("a", "10.96.0.1"));
  f.put(lbService("b", "10.96.0.2"));
  f.api.write_results.push_back(std::string("{}"));
  f.api.write_results.push_back(Error{ErrorCode::Unavailable, "500 InternalError"});
  f.startPass();
  BOOST_TEST(!f.reconciler->initialPassDone());
  f.clock.advance(1s);
  const auto keys = f.readyKeys();
  BOOST_TEST(std::count(keys.begin(), keys.end(), "reprocess") == 1);
  BOOST_TEST(f.reconciler->reconcile("reprocess").ok());
  BOOST_TEST(f.reconciler->initialPassDone());
  const auto writes = f.writesOf("patchStatus");
  // a was written in the first pass (remembered), b failed and is written again: same address.
  BOOST_REQUIRE(writes.size() == 3u);
  BOOST_TEST(writes[2].name == "b");
  BOOST_TEST(writes[2].body == writes[1].body);
}

BOOST_AUTO_TEST_CASE(a_deleted_service_releases_its_address_and_requests_a_full_pass) {
  Fixture f;
  f.put(pool("p", {"192.168.1.0/30"}));
  f.put(lbService("a", "10.96.0.1"));
  f.startPass();
  f.clock.advance(1s);
  f.readyKeys();
  f.services.erase("default/a");
  BOOST_TEST(f.reconciler->reconcile(keys::service("default/a")).ok());
  BOOST_TEST(!f.reconciler->allocatorForTest().find("default/a").has_value());
  f.clock.advance(1s);
  BOOST_TEST(f.readyKeys() == (std::vector<std::string>{"pool:p", "reprocess"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(service_writes_fail_and_retry_per_key) {
  Fixture f;
  f.put(pool("p", {"192.168.1.0/29"}));
  f.startPass();
  f.put(lbService("a", "10.96.0.1"));
  f.put(lbService("b", "10.96.0.2"));
  f.api.write_results.push_back(std::string("{}"));
  f.api.write_results.push_back(Error{ErrorCode::Unavailable, "500"});
  const auto r =
      f.reconciler->reconcileServices({keys::service("default/a"), keys::service("default/b")});
  BOOST_REQUIRE(r.size() == 2u);
  BOOST_TEST(r[0].ok());
  BOOST_TEST(!r[1].ok());
  // The allocator keeps b's address; the retry writes the same one.
  BOOST_TEST(f.reconciler->reconcile(keys::service("default/b")).ok());
  const auto writes = f.writesOf("patchStatus");
  BOOST_REQUIRE(writes.size() == 3u);
  BOOST_TEST(writes[2].body == writes[1].body);
}

BOOST_AUTO_TEST_CASE(pool_status_is_written_only_when_the_counters_differ) {
  Fixture f;
  f.put(pool("p", {"192.168.1.0/30"}));
  f.put(lbService("a", "10.96.0.1"));
  f.startPass();
  const size_t before = f.api.writes().size();
  BOOST_TEST(f.reconciler->reconcile("pool:p").ok());
  auto writes = f.api.writes();
  BOOST_REQUIRE(writes.size() == before + 1);
  BOOST_TEST(writes.back().verb == "patchStatus");
  BOOST_TEST(writes.back().name == "p");
  BOOST_TEST(writes.back().body == poolStatusPatch({1, 0, 3, 0}));
  BOOST_TEST(f.reconciler->reconcile("pool:p").ok());  // remembered: no second write
  api::IPAddressPool stored = pool("p", {"192.168.1.0/30"});
  stored.metadata.resource_version = "2";
  stored.status = api::IPAddressPoolStatus{1, 0, 3, 0};
  f.put(stored);
  BOOST_TEST(f.reconciler->reconcile("pool:p").ok());
  BOOST_TEST(f.api.writes().size() == before + 1);
  BOOST_TEST(f.reconciler->reconcile("pool:gone").ok());
  BOOST_TEST(f.api.writes().size() == before + 1);
}

BOOST_AUTO_TEST_CASE(configuration_state_is_created_with_its_owner_then_only_rewritten_on_change) {
  ReconcilerOptions o = Fixture::defaults();
  o.owner = api::OwnerReference{"v1", "Pod", "ctrl-0", "uid-9", true, std::nullopt};
  Fixture f(o);
  f.put(pool("p", {"192.168.1.0/30"}));
  f.startPass();
  BOOST_TEST(f.reconciler->reconcile("state").ok());
  BOOST_REQUIRE(f.writesOf("create").size() == 1u);
  BOOST_TEST(f.writesOf("create")[0].body.find(R"("uid":"uid-9")") != std::string::npos);
  BOOST_REQUIRE(f.writesOf("patchStatus").size() == 1u);
  BOOST_TEST(f.writesOf("patchStatus")[0].body.find(R"("result":"Valid")") != std::string::npos);
  BOOST_TEST(f.reconciler->reconcile("config").ok());  // same configuration
  BOOST_TEST(f.reconciler->reconcile("state").ok());
  BOOST_TEST(f.api.writes().size() == 2u);
}

// The cache may never show the state this controller wrote before someone deletes it (a create
// and a delete in quick succession): the deletion, not the cache, says it is gone.
BOOST_AUTO_TEST_CASE(configuration_state_deleted_before_the_cache_showed_it_is_created_again) {
  Fixture f(Fixture::defaults());
  f.put(pool("p", {"192.168.1.0/30"}));
  f.startPass();
  BOOST_TEST(f.reconciler->reconcile("state").ok());
  BOOST_REQUIRE(f.writesOf("create").size() == 1u);
  BOOST_TEST(f.reconciler->reconcile("state").ok());  // the cache lags: no second write
  BOOST_TEST(f.writesOf("create").size() == 1u);
  f.reconciler->stateDeleted();
  BOOST_TEST(f.reconciler->reconcile("state").ok());
  BOOST_TEST(f.writesOf("create").size() == 2u);
  BOOST_TEST(f.writesOf("patchStatus").size() == 2u);
}

BOOST_AUTO_TEST_CASE(services_of_another_load_balancer_class_are_never_touched) {
  ReconcilerOptions o = Fixture::defaults();
  o.service.lb_class = "ours";
  Fixture f(o);
  f.put(pool("p", {"192.168.1.0/30"}));
  api::Service mine = lbService("mine", "10.96.0.1");
  mine.spec.load_balancer_class = "ours";
  api::Service theirs = lbService("theirs", "10.96.0.2");
  theirs.status.ingress = {{"192.168.1.1", "", std::nullopt}};
  api::Service unclassed = lbService("unclassed", "10.96.0.3");
  f.put(mine);
  f.put(theirs);
  f.put(unclassed);
  f.startPass();
  const auto writes = f.writesOf("patchStatus");
  BOOST_REQUIRE(writes.size() == 1u);
  BOOST_TEST(writes[0].name == "mine");
}

BOOST_AUTO_TEST_CASE(concurrent_writes_of_a_large_pass_all_land) {
  ReconcilerOptions o = Fixture::defaults();
  o.write_concurrency = 4;
  Fixture f(o);
  f.put(pool("p", {"10.1.0.0/24"}));
  for (int i = 0; i < 100; ++i) {
    f.put(lbService("s" + std::to_string(i), "10.96.1." + std::to_string(i)));
  }
  f.startPass();
  const auto writes = f.writesOf("patchStatus");
  BOOST_TEST(writes.size() == 100u);
  BOOST_TEST(f.events.events.size() == 100u);
  std::set<std::string> bodies;
  for (const auto& w : writes) bodies.insert(w.body);
  BOOST_TEST(bodies.size() == 100u);
}

BOOST_AUTO_TEST_SUITE_END()
