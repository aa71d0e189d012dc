// SPDX-License-Identifier: Apache-2.0
#include "kube/controller.h"

#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "kube/tests/fake_clock.h"

using namespace ingot;
using namespace ingot::k8s;
using namespace std::chrono_literals;
using ingot::k8s::testing::FakeClock;

namespace {

/// Driver is a Controller on a fake clock whose reconcile returns scripted results and records
/// every call; keys are processed by hand with processNextItem (no worker thread).
struct Driver {
  explicit Driver(ControllerOptions options = {}, size_t max_batch = 1)
      : logger(log::Level::Debug, [this](std::string_view line) { logs.emplace_back(line); }),
        controller("test", logger, withDepth(std::move(options)), clock) {
    Reconcile r;
    r.reconcile = [this](const std::string& key) {
      calls.push_back({key});
      auto it = results.find(key);
      return it == results.end() ? ReconcileResult::done() : it->second;
    };
    r.batchable = [](std::string_view key) { return key.starts_with("svc:"); };
    r.reconcile_batch = [this](const std::vector<std::string>& keys) {
      calls.push_back(keys);
      return std::vector<ReconcileResult>(keys.size(), ReconcileResult::done());
    };
    r.max_batch = max_batch;
    controller.setReconcile(std::move(r));
  }

  ControllerOptions withDepth(ControllerOptions o) {
    o.on_queue_depth = [this](size_t depth) { depths.push_back(depth); };
    return o;
  }

  /// run processes every key that is ready now.
  void run() {
    auto ready = [this] {
      const auto next = controller.queue().nextDelayedAt();
      return controller.queue().len() > 0 || (next && *next <= clock.now());
    };
    while (ready()) {
      BOOST_REQUIRE(controller.processNextItem());
    }
  }

  bool logged(std::string_view text) const {
    for (const auto& l : logs) {
      if (l.find(text) != std::string::npos) {
        return true;
      }
    }
    return false;
  }

  FakeClock clock;
  std::vector<std::string> logs;
  log::Logger logger;
  Controller controller;
  std::map<std::string, ReconcileResult> results;
  std::vector<std::vector<std::string>> calls;
  std::vector<size_t> depths;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(controller)

BOOST_AUTO_TEST_CASE(each_result_kind_decides_what_happens_to_the_key) {
  const Error boom{ErrorCode::Unavailable, "boom"};
  struct Case {
    std::string desc;
    ReconcileResult result;
    int requeues;     ///< the key's failure count afterwards
    Duration due_in;  ///< 0: not queued again; else: ready again after exactly this long
    bool logged_error;
  };
  const std::vector<Case> cases = {
      {"done forgets the key", ReconcileResult::done(), 0, {}, false},
      {"retry backs off per key", ReconcileResult::retry(boom), 1, 5ms, false},
      {"requeue after waits the given delay", ReconcileResult::requeueAfter(3s, boom), 0, 3s,
       false},
      {"terminal is logged and dropped", ReconcileResult::terminal(boom), 0, {}, true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      Driver d;
      d.results["a"] = c.result;
      d.controller.queue().add("a");
      d.run();
      BOOST_TEST(d.calls.size() == 1u);
      BOOST_TEST(d.controller.queue().numRequeues("a") == c.requeues);
      BOOST_TEST(d.logged("reconcile_failed") == c.logged_error);
      BOOST_TEST(d.controller.queue().delayedLen() == (c.due_in > Duration::zero() ? 1u : 0u));
      if (c.due_in > Duration::zero()) {
        d.clock.advance(c.due_in - 1ns);
        BOOST_TEST(!d.controller.queue().tryGet().has_value());
        d.clock.advance(1ns);
        const auto again = d.controller.queue().tryGet();
        BOOST_TEST((again.has_value() && *again == "a"));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(batchable_keys_are_reconciled_together_and_others_alone) {
  Driver d({}, 3);
  for (const char* k : {"svc:a", "svc:b", "svc:c", "svc:d", "config", "svc:e"}) {
    d.controller.queue().add(k);
  }
  d.run();
  const std::vector<std::vector<std::string>> want = {
      {"svc:a", "svc:b", "svc:c"}, {"svc:d"}, {"config"}, {"svc:e"}};
  BOOST_TEST((d.calls == want));
}

BOOST_AUTO_TEST_CASE(queue_depth_counts_waiting_delayed_and_running_keys) {
  Driver d;
  d.results["a"] = ReconcileResult::requeueAfter(1s);
  d.controller.queue().add("a");
  d.controller.queue().add("b");
  d.run();
  // a: 1 waiting + itself, then b waiting + a delayed; b: a delayed + itself, then a delayed.
  BOOST_TEST(d.depths == (std::vector<size_t>{2, 2, 2, 1}), boost::test_tools::per_element());
  d.clock.advance(1s);
  d.results["a"] = ReconcileResult::done();
  d.run();
  BOOST_TEST(d.depths.back() == 0u);
}

BOOST_AUTO_TEST_CASE(stop_drops_what_is_queued_without_a_drain_timeout) {
  Driver d;
  d.controller.queue().add("a");
  d.controller.stop();
  BOOST_TEST(d.controller.processNextItem());  // takes "a" and drops it
  BOOST_TEST(d.calls.empty());
  BOOST_TEST(!d.controller.processNextItem());  // shut down and empty
}

BOOST_AUTO_TEST_CASE(stop_lets_queued_keys_finish_within_the_drain_timeout) {
  ControllerOptions o;
  o.drain_timeout = std::chrono::hours(1);
  Driver d(o);
  d.controller.queue().add("a");
  d.controller.stop();
  BOOST_TEST(d.controller.processNextItem());
  BOOST_TEST(d.calls.size() == 1u);
}

BOOST_AUTO_TEST_CASE(start_without_informers_runs_the_worker_until_stop) {
  Driver d;
  std::atomic<int> seen{0};
  Reconcile r;
  r.reconcile = [&seen](const std::string&) {
    ++seen;
    return ReconcileResult::done();
  };
  ControllerOptions o;
  o.drain_timeout = std::chrono::hours(1);
  Controller c("worker", d.logger, o);
  c.queue().add("a");
  // Started outside the assertion: BOOST_REQUIRE's do-while would otherwise read as a loop that
  // moves r again on a second pass.
  const auto started = c.start(std::move(r));
  BOOST_REQUIRE(started.has_value());
  BOOST_TEST(c.synced());
  c.stop();  // drains "a" before the worker ends
  BOOST_TEST(seen.load() == 1);
}

BOOST_AUTO_TEST_CASE(resource_version_of_reads_metadata) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"metadata":{"name":"a","resourceVersion":"42"}})", "42"},
      {R"({"metadata":{"name":"a"}})", ""},
      {R"({"kind":"X"})", ""},
      {"not json", ""},
  };
  for (const auto& [json, want] : cases) {
    BOOST_TEST_CONTEXT(json) {
      BOOST_TEST(resourceVersionOf(json) == want);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
