// SPDX-License-Identifier: Apache-2.0
#include "kube/backoff.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "kube/rate_limiter.h"
#include "kube/tests/fake_clock.h"
#include "kube/token_source.h"

using namespace ingot::k8s;
using namespace std::chrono_literals;
using ingot::k8s::testing::FakeClock;

BOOST_AUTO_TEST_SUITE(backoff)

BOOST_AUTO_TEST_CASE(exponential_delay_doubles_and_caps_without_overflow) {
  struct Case {
    int failures;
    Duration want;
  };
  const std::vector<Case> cases = {
      {0, 5ms},    {1, 10ms},   {2, 20ms},     {10, 5120ms}, {17, 655360ms},
      {18, 1000s}, {64, 1000s}, {1000, 1000s}, {-1, 5ms},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("failures " << c.failures) {
      BOOST_TEST(exponentialDelay(5ms, 1000s, c.failures).count() == c.want.count());
    }
  }
  BOOST_TEST(exponentialDelay(2s, 1s, 0).count() == Duration(1s).count());  // base above max
}

BOOST_AUTO_TEST_CASE(backoff_grows_by_factor_up_to_max_and_resets) {
  Backoff b(BackoffOptions{800ms, 30s, 2.0, 0.0}, nullptr);
  const std::vector<Duration> want = {800ms, 1600ms, 3200ms, 6400ms, 12800ms, 25600ms, 30s, 30s};
  for (size_t i = 0; i < want.size(); ++i) {
    BOOST_TEST_CONTEXT("attempt " << i) {
      BOOST_TEST(b.next().count() == want[i].count());
    }
  }
  BOOST_TEST(b.attempts() == 8);
  b.reset();
  BOOST_TEST(b.attempts() == 0);
  BOOST_TEST(b.next().count() == Duration(800ms).count());
}

BOOST_AUTO_TEST_CASE(jitter_adds_up_to_the_configured_fraction) {
  struct Case {
    double random;
    Duration want;
  };
  const std::vector<Case> cases = {{0.0, 1000ms}, {0.5, 1500ms}, {0.999, 1999ms}, {7.0, 2000ms}};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("random " << c.random) {
      Backoff b(BackoffOptions{1s, 30s, 2.0, 1.0}, [&] { return c.random; });
      BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(b.next()).count() ==
                 std::chrono::duration_cast<std::chrono::milliseconds>(c.want).count());
    }
  }
  auto random = defaultRandom();
  for (int i = 0; i < 1000; ++i) {
    const double r = random();
    BOOST_TEST((r >= 0.0 && r < 1.0));
  }
}

BOOST_AUTO_TEST_CASE(token_bucket_allows_a_burst_then_paces_reservations) {
  const TimePoint t0{};
  TokenBucket b(10, 3, t0);  // 10 qps: one token per 100 ms
  for (int i = 0; i < 3; ++i) BOOST_TEST(b.reserve(t0).count() == 0);
  BOOST_TEST(b.reserve(t0).count() == Duration(100ms).count());
  BOOST_TEST(b.reserve(t0).count() == Duration(200ms).count());  // queued behind the previous
  BOOST_TEST(b.reserve(t0 + 300ms).count() == Duration(0ms).count());
  BOOST_TEST(b.tokens(t0 + 300ms) == 0.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(b.tokens(t0 + 10s) == 3.0, boost::test_tools::tolerance(1e-9));  // capped at burst
}

BOOST_AUTO_TEST_CASE(token_bucket_try_take_never_goes_negative) {
  const TimePoint t0{};
  TokenBucket b(1.0 / 300.0, 2, t0);  // the event spam filter's shape
  BOOST_TEST(b.tryTake(t0));
  BOOST_TEST(b.tryTake(t0));
  BOOST_TEST(!b.tryTake(t0));
  BOOST_TEST(!b.tryTake(t0 + 299s));
  BOOST_TEST(b.tryTake(t0 + 300s));
  BOOST_TEST(!b.tryTake(t0 + 300s));
  BOOST_TEST(!b.tryTake(t0 + 100s));  // time going backwards refills nothing
}

BOOST_AUTO_TEST_CASE(unlimited_bucket_never_waits) {
  TokenBucket b(0, 1, TimePoint{});
  for (int i = 0; i < 100; ++i) BOOST_TEST(b.reserve(TimePoint{}).count() == 0);
}

BOOST_AUTO_TEST_CASE(rate_limiter_sleeps_on_the_injected_clock) {
  FakeClock clock;
  std::vector<Duration> slept;
  RateLimiter limiter(5, 2, clock, [&](Duration d) {
    slept.push_back(d);
    clock.advance(d);
  });
  const TimePoint start = clock.now();
  for (int i = 0; i < 12; ++i) limiter.wait();
  BOOST_TEST(slept.size() == 10u);  // the first two used the burst
  for (Duration d : slept) BOOST_TEST(d.count() == Duration(200ms).count());
  BOOST_TEST((clock.now() - start).count() == Duration(2s).count());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(token_source)

namespace {

struct TempFile {
  std::filesystem::path path;
  TempFile() {
    char tmpl[] = "/tmp/ingot-kube-token-XXXXXX";
    int fd = mkstemp(tmpl);
    BOOST_REQUIRE(fd >= 0);
    close(fd);
    path = tmpl;
  }
  ~TempFile() { std::filesystem::remove(path); }
  void write(const std::string& s) const { std::ofstream(path) << s; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(static_token_is_returned_as_is) {
  TokenSource t("abc", "");
  BOOST_TEST(*t.token() == "abc");
  BOOST_TEST(!t.fileBacked());
  TokenSource none("", "");
  BOOST_TEST(none.token()->empty());
}

BOOST_AUTO_TEST_CASE(token_file_is_reread_after_the_refresh_period_or_invalidate) {
  TempFile f;
  f.write("first\n");
  FakeClock clock;
  TokenSource t("ignored", f.path.string(), 60s, clock);
  BOOST_TEST(*t.token() == "first");
  f.write("second");
  clock.advance(59s);
  BOOST_TEST(*t.token() == "first");  // cached
  clock.advance(1s);
  BOOST_TEST(*t.token() == "second");  // rotated
  f.write("third");
  t.invalidate();
  BOOST_TEST(*t.token() == "third");  // a 401 forces a re-read
}

BOOST_AUTO_TEST_CASE(token_file_keeps_the_last_good_token_while_missing) {
  TempFile f;
  f.write("good");
  FakeClock clock;
  TokenSource t("", f.path.string(), 1s, clock);
  BOOST_TEST(*t.token() == "good");
  std::filesystem::remove(f.path);
  clock.advance(2s);
  BOOST_TEST(*t.token() == "good");

  TokenSource never("", "/nonexistent/ingot/token", 1s, clock);
  auto r = never.token();
  BOOST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error().message.find("/nonexistent/ingot/token") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
