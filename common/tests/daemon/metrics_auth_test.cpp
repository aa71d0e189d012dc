// SPDX-License-Identifier: Apache-2.0
// The /metrics gate: which requests get 401, 403, 500 or through, and how long it remembers the
// API server's answers (a fake clock and a fake reviewer that counts its calls).
#include "common/daemon/metrics_auth.h"

#include <boost/test/unit_test.hpp>

using namespace ingot;
using namespace ingot::daemon;
using namespace std::chrono_literals;

namespace {

/// FakeReviews knows tokens → users and users allowed to get /metrics; it counts reviews.
class FakeReviews : public AccessReviews {
 public:
  Result<std::optional<UserInfo>> authenticate(const std::string& token) override {
    ++authentications;
    if (failing) return Error{ErrorCode::Unavailable, "connection refused"};
    if (token == "reader" || token == "stranger") {
      return std::optional<UserInfo>{UserInfo{token, "", {"g"}, {}}};
    }
    return std::optional<UserInfo>{};
  }
  Result<bool> authorize(const UserInfo& user,
                         const std::string& verb,
                         const std::string& path) override {
    ++authorizations;
    if (failing) return Error{ErrorCode::Unavailable, "connection refused"};
    last_verb = verb;
    return user.username == "reader" && verb == "get" && path == "/metrics";
  }
  int authentications = 0;
  int authorizations = 0;
  bool failing = false;
  std::string last_verb;
};

http::Request request(const std::string& authorization,
                      const std::string& method = "GET",
                      const std::string& path = "/metrics") {
  http::Request r;
  r.method = method;
  r.path = path;
  if (!authorization.empty()) r.headers.emplace_back("authorization", authorization);
  return r;
}

int statusOf(const std::optional<http::Response>& r) {
  return r ? r->status : 200;
}

struct Clock {
  std::chrono::steady_clock::time_point t{};
  MetricsGate::Now now() {
    return [this] { return t; };
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics_auth)

BOOST_AUTO_TEST_CASE(bearer_token_is_read_as_kubernetes_reads_it) {
  struct Case {
    std::string desc, header, want;
  };
  const std::vector<Case> cases = {
      {"no header", "", ""},
      {"bearer", "Bearer abc", "abc"},
      {"scheme in any case", "bEaReR abc", "abc"},
      {"spaces around the token", "Bearer   abc  ", "abc"},
      {"another scheme", "Basic abc", ""},
      {"empty token", "Bearer ", ""},
      {"no space", "Bearerabc", ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(bearerToken(request(c.header)) == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(each_request_gets_the_status_of_its_token) {
  struct Case {
    std::string desc, authorization, method, path;
    bool failing;
    int status;
  };
  const std::vector<Case> cases = {
      {"no token", "", "GET", "/metrics", false, 401},
      {"another scheme", "Basic cmVhZGVy", "GET", "/metrics", false, 401},
      {"a token the API server does not know", "Bearer forged", "GET", "/metrics", false, 401},
      {"an authenticated user without the grant", "Bearer stranger", "GET", "/metrics", false, 403},
      {"the granted user", "Bearer reader", "GET", "/metrics", false, 200},
      {"HEAD is a get", "Bearer reader", "HEAD", "/metrics", false, 200},
      {"another path is not granted", "Bearer reader", "GET", "/debug", false, 403},
      {"an unreachable API server: the token cannot be reviewed", "Bearer reader", "GET",
       "/metrics", true, 401},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      FakeReviews reviews;
      reviews.failing = c.failing;
      MetricsGate gate(reviews);
      BOOST_TEST(statusOf(gate.check(request(c.authorization, c.method, c.path))) == c.status);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_authorization_error_is_500_and_not_remembered) {
  FakeReviews reviews;
  MetricsGate gate(reviews);
  // Authenticate while the server answers, then fail the access review.
  BOOST_TEST(statusOf(gate.check(request("Bearer reader", "GET", "/other"))) == 403);
  reviews.failing = true;
  BOOST_TEST(statusOf(gate.check(request("Bearer reader"))) == 500);
  reviews.failing = false;
  BOOST_TEST(statusOf(gate.check(request("Bearer reader"))) == 200);
}

BOOST_AUTO_TEST_CASE(decisions_are_cached_for_their_time_to_live) {
  FakeReviews reviews;
  Clock clock;
  MetricsGate gate(reviews, GateOptions{}, clock.now());
  for (int i = 0; i < 10; ++i) {
    BOOST_TEST(statusOf(gate.check(request("Bearer reader"))) == 200);
    BOOST_TEST(statusOf(gate.check(request("Bearer stranger"))) == 403);
  }
  BOOST_TEST(reviews.authentications == 2);
  BOOST_TEST(reviews.authorizations == 2);
  clock.t += 31s;  // the denial expired, the allow and both authentications did not
  gate.check(request("Bearer reader"));
  gate.check(request("Bearer stranger"));
  BOOST_TEST(reviews.authentications == 2);
  BOOST_TEST(reviews.authorizations == 3);
  clock.t += 30s;  // 61 s: both authentications expired
  gate.check(request("Bearer reader"));
  BOOST_TEST(reviews.authentications == 3);
  BOOST_TEST(reviews.authorizations == 3);  // the allow holds for 5 minutes
}

BOOST_AUTO_TEST_CASE(the_cache_is_bounded) {
  FakeReviews reviews;
  Clock clock;
  GateOptions o;
  o.max_entries = 4;
  MetricsGate gate(reviews, o, clock.now());
  for (int i = 0; i < 100; ++i) {
    clock.t += 1ms;
    BOOST_TEST(statusOf(gate.check(request("Bearer forged" + std::to_string(i)))) == 401);
  }
  BOOST_TEST(gate.cached() <= 8U);
  BOOST_TEST(reviews.authentications == 100);
  // A granted token still passes after the flood, and is remembered.
  BOOST_TEST(statusOf(gate.check(request("Bearer reader"))) == 200);
  BOOST_TEST(statusOf(gate.check(request("Bearer reader"))) == 200);
  BOOST_TEST(reviews.authentications == 101);
}

BOOST_AUTO_TEST_SUITE_END()
