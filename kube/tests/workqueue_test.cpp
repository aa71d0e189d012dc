// SPDX-License-Identifier: Apache-2.0
#include "kube/workqueue.h"

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "kube/tests/fake_clock.h"
#include "testing/wait.h"

using namespace ingot::k8s;
using namespace std::chrono_literals;
using ingot::k8s::testing::FakeClock;
using ingot::testing::waitFor;

namespace {

/// drain takes every ready key (marking each done) in order.
std::vector<std::string> drain(WorkQueue& q) {
  std::vector<std::string> out;
  while (auto k = q.tryGet()) {
    out.push_back(*k);
    q.done(*k);
  }
  return out;
}

using Keys = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_SUITE(workqueue)

BOOST_AUTO_TEST_CASE(duplicate_adds_collapse_and_order_is_fifo) {
  FakeClock clock;
  WorkQueue q({}, clock);
  for (auto k : {"a", "b", "a", "c", "b", "a"}) q.add(k);
  BOOST_TEST(q.len() == 3u);
  BOOST_TEST((drain(q) == Keys{"a", "b", "c"}));
  BOOST_TEST(!q.tryGet().has_value());
}

BOOST_AUTO_TEST_CASE(a_key_is_never_handed_to_two_workers_and_reruns_after_done) {
  FakeClock clock;
  WorkQueue q({}, clock);
  q.add("a");
  auto first = q.tryGet();
  BOOST_REQUIRE(first.has_value());
  q.add("a");  // changed again while a worker processes it
  q.add("a");
  BOOST_TEST(!q.tryGet().has_value());  // not a second worker
  BOOST_TEST(q.len() == 0u);
  q.done("a");
  BOOST_TEST(q.len() == 1u);  // runs again, once
  BOOST_TEST((drain(q) == Keys{"a"}));
  BOOST_TEST(!q.tryGet().has_value());
}

BOOST_AUTO_TEST_CASE(done_without_readd_does_not_requeue) {
  FakeClock clock;
  WorkQueue q({}, clock);
  q.add("a");
  auto k = q.tryGet();
  q.done(*k);
  BOOST_TEST(q.len() == 0u);
}

BOOST_AUTO_TEST_CASE(rate_limited_requeues_back_off_exponentially_per_key) {
  FakeClock clock;
  WorkQueue q(WorkQueueOptions{5ms, 1000s, 0, 0}, clock);  // bucket off: per-key only
  const std::vector<Duration> want = {5ms, 10ms, 20ms, 40ms, 80ms};
  for (size_t i = 0; i < want.size(); ++i) {
    BOOST_TEST_CONTEXT("requeue " << i) {
      BOOST_TEST(q.addRateLimited("a").count() == want[i].count());
      BOOST_TEST(q.numRequeues("a") == static_cast<int>(i + 1));
      clock.advance(want[i] - 1ns);
      BOOST_TEST(!q.tryGet().has_value());  // not yet
      clock.advance(1ns);
      auto k = q.tryGet();
      BOOST_REQUIRE(k.has_value());
      BOOST_TEST(*k == "a");
      q.done(*k);
    }
  }
  BOOST_TEST(q.addRateLimited("b").count() == Duration(5ms).count());  // independent per key
  q.forget("a");
  BOOST_TEST(q.numRequeues("a") == 0);
  BOOST_TEST(q.addRateLimited("a").count() == Duration(5ms).count());
}

BOOST_AUTO_TEST_CASE(rate_limited_delay_is_capped) {
  FakeClock clock;
  WorkQueue q(WorkQueueOptions{5ms, 1s, 0, 0}, clock);
  Duration last{};
  for (int i = 0; i < 40; ++i) last = q.addRateLimited("a");
  BOOST_TEST(last.count() == Duration(1s).count());
}

BOOST_AUTO_TEST_CASE(overall_bucket_delays_retries_beyond_its_burst) {
  FakeClock clock;
  WorkQueue q(WorkQueueOptions{5ms, 1000s, 10, 2}, clock);  // 10 qps, burst 2
  BOOST_TEST(q.addRateLimited("a").count() == Duration(5ms).count());
  BOOST_TEST(q.addRateLimited("b").count() == Duration(5ms).count());
  BOOST_TEST(q.addRateLimited("c").count() == Duration(100ms).count());  // bucket empty
  BOOST_TEST(q.addRateLimited("d").count() == Duration(200ms).count());
}

BOOST_AUTO_TEST_CASE(delayed_adds_collapse_to_the_earliest_and_fire_in_time_order) {
  FakeClock clock;
  WorkQueue q({}, clock);
  q.addAfter("late", 300ms);
  q.addAfter("a", 200ms);
  q.addAfter("a", 100ms);  // earlier wins
  q.addAfter("a", 250ms);  // later is ignored
  q.addAfter("now", 0ms);
  BOOST_TEST(q.delayedLen() == 2u);
  BOOST_TEST((drain(q) == Keys{"now"}));
  BOOST_TEST((q.nextDelayedAt() == clock.now() + 100ms));
  clock.advance(100ms);
  BOOST_TEST((drain(q) == Keys{"a"}));
  clock.advance(150ms);
  BOOST_TEST(drain(q).empty());  // the superseded 200 ms and 250 ms adds do not fire
  clock.advance(50ms);
  BOOST_TEST((drain(q) == Keys{"late"}));
  BOOST_TEST(q.delayedLen() == 0u);
}

BOOST_AUTO_TEST_CASE(a_delayed_key_already_queued_is_not_duplicated) {
  FakeClock clock;
  WorkQueue q({}, clock);
  q.add("a");
  q.addAfter("a", 10ms);
  clock.advance(10ms);
  BOOST_TEST((drain(q) == Keys{"a"}));
}

BOOST_AUTO_TEST_CASE(shutdown_hands_out_what_is_ready_then_stops) {
  FakeClock clock;
  WorkQueue q({}, clock);
  q.add("a");
  q.addAfter("delayed", 1s);
  q.shutDown();
  BOOST_TEST(q.shuttingDown());
  q.add("b");  // ignored
  BOOST_TEST(q.delayedLen() == 0u);
  auto k = q.get();
  BOOST_REQUIRE(k.has_value());
  BOOST_TEST(*k == "a");
  q.done(*k);
  BOOST_TEST(!q.get().has_value());  // does not block
}

BOOST_AUTO_TEST_CASE(shutdown_wakes_blocked_workers) {
  WorkQueue q;
  std::atomic<int> finished{0};
  std::vector<std::thread> workers;
  workers.reserve(3);
  for (int i = 0; i < 3; ++i) {
    workers.emplace_back([&] {
      auto k = q.get();
      if (!k) ++finished;
    });
  }
  // Shut down only once all three wait inside get(), so the test covers the wake-up.
  BOOST_REQUIRE(waitFor(10s, [&] { return q.blockedGets() == 3; }));
  q.shutDown();
  for (auto& t : workers) t.join();
  BOOST_TEST(finished.load() == 3);
}

BOOST_AUTO_TEST_CASE(blocked_get_wakes_when_a_delay_elapses) {
  FakeClock clock;
  WorkQueue q({}, clock);
  q.addAfter("a", 30ms);
  std::atomic<bool> returned{false};
  std::optional<std::string> k;
  std::thread getter([&] {
    k = q.get();
    returned = true;
  });
  BOOST_REQUIRE(waitFor(10s, [&] { return q.blockedGets() == 1; }));
  clock.advance(29ms);
  BOOST_TEST(!q.tryGet().has_value());  // not due yet, and get() is still blocked
  BOOST_TEST(!returned.load());
  clock.advance(1ms);  // due now: the blocked get() hands it out once its wait times out
  BOOST_REQUIRE(waitFor(10s, [&] { return returned.load(); }));
  getter.join();
  BOOST_REQUIRE(k.has_value());
  BOOST_TEST(*k == "a");
}

BOOST_AUTO_TEST_CASE(concurrent_workers_never_process_one_key_at_once_and_see_every_change) {
  WorkQueue q;
  std::mutex mu;
  std::set<std::string> in_flight;
  std::map<std::string, int> generation;  // bumped before every add
  std::map<std::string, int> seen;        // generation observed when processing started
  int overlaps = 0;
  std::vector<std::thread> workers;
  workers.reserve(4);
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (auto k = q.get()) {
        {
          std::lock_guard lock(mu);
          if (!in_flight.insert(*k).second) ++overlaps;
          seen[*k] = generation[*k];
        }
        std::this_thread::yield();  // let other workers try to take the same key meanwhile
        {
          std::lock_guard lock(mu);
          in_flight.erase(*k);
        }
        q.done(*k);
      }
    });
  }
  for (int i = 0; i < 4000; ++i) {
    const std::string key = "key" + std::to_string(i % 7);
    {
      std::lock_guard lock(mu);
      ++generation[key];
    }
    q.add(key);
  }
  BOOST_REQUIRE(waitFor(30s, [&] { return q.len() == 0; }));
  q.shutDown();
  for (auto& t : workers) t.join();
  // Anything re-added during the last processing is still queued; process it here.
  while (auto k = q.tryGet()) {
    seen[*k] = generation[*k];
    q.done(*k);
  }
  BOOST_TEST(overlaps == 0);
  BOOST_TEST(seen.size() == 7u);
  for (const auto& [key, gen] : generation) {
    BOOST_TEST_CONTEXT(key) {
      BOOST_TEST(seen[key] == gen);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
