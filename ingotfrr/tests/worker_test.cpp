// SPDX-License-Identifier: Apache-2.0
// Worker against a fake FRR and kube's fake API client: what reaches FRR, FRRNodeState, Events
// and metrics for good input, a merge conflict and an FRR that fails; the cool-down after an
// apply, on a fake clock.
#include "ingotfrr/worker.h"

#include <boost/test/unit_test.hpp>

#include "kube/tests/fake_api_client.h"
#include "kube/tests/fake_clock.h"

namespace ingot::ingotfrr {
namespace {

class FakeFrr final : public frr::FrrPort {
 public:
  std::vector<frrgen::CompactModel> applied;
  std::optional<Error> fail_next;
  std::vector<frr::RejectedSession> rejected;  ///< what every apply reports FRR refused
  k8s::testing::FakeClock* clock = nullptr;    ///< advanced by `cost` in each apply
  k8s::Duration cost{};
  Result<frr::FastApplyReport> apply(const frrgen::CompactModel& model,
                                     const frrgen::RenderOptions&) override {
    if (clock) {
      clock->advance(cost);
    }
    if (fail_next) {
      Error e = *fail_next;
      fail_next.reset();
      return e;
    }
    applied.push_back(model);
    frr::FastApplyReport r;
    r.path = frr::ApplyPath::Delta;
    r.rejected = rejected;
    return r;
  }
  std::vector<frrgen::Model> files;  ///< models applied as a whole file (raw text)
  Result<frr::FastApplyReport> applyFile(const frrgen::Model& model,
                                         const frrgen::RenderOptions&) override {
    files.push_back(model);
    frr::FastApplyReport r;
    r.path = frr::ApplyPath::FullReload;
    return r;
  }
  Result<frr::FastApplyReport> verify() override { return frr::FastApplyReport{}; }
  Result<std::string> runningConfig() override {
    return std::string("router bgp 64513\n neighbor 10.0.0.1 password hunter2\n");
  }
  Result<frr::ApplyReport> reload(const std::string&) override { return frr::ApplyReport{}; }
  void forget() override { ++forgotten; }
  int forgotten = 0;
};

struct RecordingSink final : k8s::EventSink {
  std::vector<std::pair<std::string, std::string>> events;  ///< reason, message
  void record(const k8s::ObjectReference&,
              k8s::EventType,
              std::string_view reason,
              std::string_view message) override {
    events.emplace_back(reason, message);
  }
};

std::string workerFrrNs() {
  return "frr-k8s-system";
}

std::string object(const std::string& name, uint32_t peer_asn) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":")" + workerFrrNs() +
         R"("},"spec":{"bgp":{"routers":[{"asn":64513,"neighbors":[{"address":"10.0.0.1",)"
         R"("asn":)" +
         std::to_string(peer_asn) + R"(,"password":"hunter2"}]}]}}})";
}

struct Harness {
  k8s::Store<Entry> configs;
  k8s::Store<api::Secret> secrets;
  k8s::Store<api::Node> nodes;
  FakeFrr frr;
  k8s::testing::FakeApiClient api;
  NodeStateWriter state{api, "node1"};
  k8s::WorkQueue queue;
  RecordingSink events;
  Metrics metrics;
  log::Logger logger{log::Level::None};
  k8s::testing::FakeClock clock;
  k8s::Duration debounce = k8s::Duration::zero();  ///< 0: no cool-down (the other tests)
  Worker worker{Inputs{configs, secrets, nodes},
                frr,
                state,
                queue,
                events,
                metrics,
                logger,
                WorkerOptions{"node1", workerFrrNs(), k8s::Duration::zero(), debounce, &clock, ""}};

  Harness() : Harness(k8s::Duration::zero()) {}
  explicit Harness(k8s::Duration max_cooldown) : debounce(max_cooldown) {
    api::Node n;
    n.metadata.name = "node1";
    n.metadata.labels["kubernetes.io/hostname"] = "node1";
    nodes.upsert("node1", {std::make_shared<const api::Node>(n), "1"});
  }
  void put(const std::string& name, const std::string& json) {
    configs.upsert(workerFrrNs() + "/" + name,
                   {std::make_shared<const Entry>(decodeEntry(json)), "1"});
  }
  /// lastStatus is the body of the last FRRNodeState status patch.
  std::string lastStatus() const {
    std::string out;
    for (const auto& w : api.writes()) {
      if (w.verb == "patchStatus") {
        out = w.body;
      }
    }
    return out;
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(worker)

BOOST_AUTO_TEST_CASE(applies_and_reports_success_with_passwords_retracted) {
  Harness h;
  h.put("a", object("a", 64512));
  h.worker.reconcile(kApplyKey);
  BOOST_TEST_REQUIRE(h.frr.applied.size() == 1u);
  const std::string status = h.lastStatus();
  BOOST_TEST(contains(status, R"("lastConversionResult":"success")"), status);
  BOOST_TEST(contains(status, R"("lastReloadResult":"success")"), status);
  BOOST_TEST(contains(status, "password <retracted>"), status);
  BOOST_TEST(!contains(status, "hunter2"), status);
  // An unrelated event with the same inputs does not touch FRR again.
  h.worker.reconcile(kApplyKey);
  BOOST_TEST(h.frr.applied.size() == 1u);
}

// A session FRR refused (the engine applied everything else) shows in lastReloadResult and as
// one Warning Event; once FRR takes it, the status says success again.
// spec.raw, as frr-k8s applies it: the merged model with the raw text goes to FRR as a whole
// file (FrrPort::applyFile, frr-k8s' numbering, the snippet last); without raw, back to the
// compact shape.
BOOST_AUTO_TEST_CASE(a_configuration_with_raw_text_is_applied_as_a_whole_file) {
  Harness h;
  std::string with_raw = object("a", 64512);
  with_raw.replace(with_raw.find(R"("spec":{)"), 8,
                   R"("spec":{"raw":{"priority":1,"rawConfig":"! weights"},)");
  h.put("a", with_raw);
  h.worker.reconcile(kApplyKey);
  BOOST_TEST(h.frr.applied.empty());
  BOOST_TEST_REQUIRE(h.frr.files.size() == 1u);
  BOOST_TEST(h.frr.files[0].raw_config == "! weights\n");
  BOOST_TEST(contains(h.lastStatus(), R"("lastReloadResult":"success")"), h.lastStatus());
  h.worker.reconcile(kApplyKey);  // the same inputs: FRR already holds them
  BOOST_TEST(h.frr.files.size() == 1u);
  h.put("a", object("a", 64512));
  h.worker.reconcile(kApplyKey);
  BOOST_TEST(h.frr.applied.size() == 1u);
  BOOST_TEST(h.frr.files.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_session_frr_refused_is_reported_in_the_status) {
  Harness h;
  h.frr.rejected = {{"", "10.0.0.9", "% Invalid value password hunter2", false}};
  h.put("a", object("a", 64512));
  h.worker.reconcile(kApplyKey);
  const std::string status = h.lastStatus();
  BOOST_TEST(contains(status, R"("lastReloadResult":"failed: FRR refused the session 10.0.0.9 )"
                              R"((left out): % Invalid value password <retracted>; every other )"
                              R"(change applied")"),
             status);
  h.put("a", object("a", 64515));
  h.worker.reconcile(kApplyKey);
  size_t warnings = 0;
  for (const auto& [reason, message] : h.events.events) {
    warnings += contains(message, "FRR refused the session 10.0.0.9");
  }
  BOOST_TEST(warnings == 1u);  // the same refusal again: no second Event
  h.frr.rejected.clear();
  h.put("a", object("a", 64516));
  h.worker.reconcile(kApplyKey);
  BOOST_TEST(contains(h.lastStatus(), R"("lastReloadResult":"success")"), h.lastStatus());
}

BOOST_AUTO_TEST_CASE(a_conflict_keeps_the_last_good_configuration) {
  Harness h;
  h.put("a", object("a", 64512));
  h.worker.reconcile(kApplyKey);
  h.put("b", object("b", 65000));
  auto r = h.worker.reconcile(kApplyKey);
  BOOST_TEST(r.ok());  // no retry until an input changes
  BOOST_TEST(h.frr.applied.size() == 1u);
  BOOST_TEST_REQUIRE(h.events.events.size() == 1u);
  BOOST_TEST(h.events.events[0].first == "ConversionFailed");
  BOOST_TEST(contains(h.events.events[0].second, "multiple asns"));
  BOOST_TEST(contains(h.lastStatus(), R"("lastConversionResult":"failed: )"), h.lastStatus());
  BOOST_TEST(contains(h.metrics.render(), "frrk8s_k8s_client_config_stale_bool 1"));
  BOOST_TEST(h.metrics.conversionFailures() == 1u);
  // Fixing the input applies again.
  h.configs.erase(workerFrrNs() + "/b");
  h.put("a", object("a", 64520));
  h.worker.reconcile(kApplyKey);
  BOOST_TEST(h.frr.applied.size() == 2u);
  BOOST_TEST(contains(h.metrics.render(), "frrk8s_k8s_client_config_stale_bool 0"));
}

BOOST_AUTO_TEST_CASE(an_frr_failure_is_reported_and_retried_with_a_delay) {
  Harness h;
  h.put("a", object("a", 64512));
  h.frr.fail_next = Error{ErrorCode::Unavailable, "vtysh: bgpd is not running"};
  h.worker.reconcile(kApplyKey);
  BOOST_TEST(h.frr.applied.empty());
  BOOST_TEST_REQUIRE(h.events.events.size() == 1u);
  BOOST_TEST(h.events.events[0].first == "ReloadFailed");
  BOOST_TEST(contains(h.lastStatus(), "failed: vtysh: bgpd is not running"), h.lastStatus());
  BOOST_TEST(h.queue.delayedLen() == 1u);  // the retry
  BOOST_TEST(h.frr.forgotten == 1);        // ... from scratch
  BOOST_TEST(contains(h.metrics.render(), "ingot_frr_applies_total{path=\"failed\"} 1"));
  h.worker.reconcile(kApplyKey);  // the retry, FRR back
  BOOST_TEST(h.frr.applied.size() == 1u);
  BOOST_TEST(contains(h.lastStatus(), R"("lastReloadResult":"success")"), h.lastStatus());
}

BOOST_AUTO_TEST_CASE(an_undecodable_object_for_this_node_is_a_conversion_error) {
  Harness h;
  h.put("a", object("a", 64512));
  h.worker.reconcile(kApplyKey);
  h.put("bad", R"({"metadata":{"name":"bad","namespace":"frr-k8s-system"},"spec":{"bgp":1}})");
  h.worker.reconcile(kApplyKey);
  BOOST_TEST(h.frr.applied.size() == 1u);
  BOOST_TEST(contains(h.lastStatus(), "FRRConfiguration frr-k8s-system/bad"), h.lastStatus());
}

BOOST_AUTO_TEST_CASE(an_apply_is_followed_by_a_cooldown_sized_by_its_cost) {
  using namespace std::chrono_literals;
  using Ms = std::chrono::milliseconds;
  Harness h(200ms);
  h.frr.clock = &h.clock;
  h.frr.cost = 10ms;
  auto delay = [&h] { return std::chrono::duration_cast<Ms>(h.worker.changeDelay()).count(); };
  BOOST_TEST(delay() == 0);  // the first change goes at once
  h.put("a", object("a", 64512));
  h.worker.reconcile(kApplyKey);
  BOOST_TEST_REQUIRE(h.frr.applied.size() == 1u);
  BOOST_TEST(delay() == 30);  // 3 × 10 ms
  // An apply handed out within the cool-down (an earlier delay of the queue) waits for its end.
  h.put("a", object("a", 64520));
  h.worker.reconcile(kApplyKey);
  BOOST_TEST(h.frr.applied.size() == 1u);
  BOOST_TEST(h.queue.delayedLen() == 1u);
  h.clock.advance(29ms);
  BOOST_TEST(delay() == 1);
  h.clock.advance(1ms);
  BOOST_TEST(delay() == 0);
  h.worker.reconcile(kApplyKey);
  BOOST_TEST_REQUIRE(h.frr.applied.size() == 2u);
  // A lone change 30 ms later goes at once (the debounce is 200 ms).
  h.clock.advance(30ms);
  BOOST_TEST(delay() == 0);
  // An expensive apply stretches the cool-down, up to the debounce.
  h.frr.cost = 100ms;
  h.put("a", object("a", 64530));
  h.worker.reconcile(kApplyKey);
  BOOST_TEST_REQUIRE(h.frr.applied.size() == 3u);
  BOOST_TEST(delay() == 200);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::ingotfrr
