// SPDX-License-Identifier: Apache-2.0
#include "kube/startup.h"

#include <boost/test/unit_test.hpp>

#include "kube/tests/fake_api_client.h"

using namespace ingot;
using namespace ingot::k8s;
using ingot::k8s::testing::FakeApiClient;

BOOST_AUTO_TEST_SUITE(startup)

BOOST_AUTO_TEST_CASE(preflight_fails_at_once_on_credentials_and_tls_and_retries_unreachable) {
  const Error unauthorized{ErrorCode::Unauthorized, "GET ...: Unauthorized (HTTP 401)"};
  const Error forbidden{ErrorCode::Forbidden, "GET ...: Forbidden (HTTP 403)"};
  const Error tls{ErrorCode::Unavailable, "GET ...: TLS handshake failed (x); check ..."};
  const Error refused{ErrorCode::Unavailable, "GET ...: Connection refused"};
  ListPage found;
  found.items = {R"({"metadata":{"name":"mlb"}})"};
  struct Case {
    std::string desc;
    std::vector<Result<ListPage>> lists;
    bool ok;
    size_t calls;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"a rejected token", {unauthorized}, false, 1, "rejected the credentials (401)"},
      {"missing RBAC names the component", {forbidden}, false, 1, "check the agent's RBAC"},
      {"a wrong CA", {tls}, false, 1, "TLS verification of the API server failed"},
      {"unreachable every time", {refused, refused, refused}, false, 3, "is unreachable"},
      {"unreachable, then up", {refused, found}, true, 2, ""},
      {"namespace missing is only a warning", {ListPage{}}, true, 1, ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      FakeApiClient api;
      for (const auto& l : c.lists) api.lists.push_back(l);
      std::vector<std::string> lines;
      log::Logger logger(log::Level::Debug, [&](std::string_view l) { lines.emplace_back(l); });
      PreflightOptions o;
      o.component = "agent";
      o.attempts = 3;
      o.sleep = [](Duration) {};
      auto r = preflight(api, "https://srv", "mlb", logger, o);
      BOOST_TEST(r.has_value() == c.ok);
      BOOST_TEST(api.listCalls().size() == c.calls);
      if (!c.ok) {
        BOOST_TEST(r.error().message.find(c.message) != std::string::npos, r.error().message);
        BOOST_TEST(r.error().message.find("https://srv") != std::string::npos);
      }
      BOOST_TEST(api.listCalls().front().field_selector == "metadata.name=mlb");
    }
  }
}

BOOST_AUTO_TEST_CASE(pod_owner_reads_the_pod_uid) {
  FakeApiClient api;
  BOOST_TEST(podOwner(api, "mlb", "").value().uid.empty());
  api.gets.push_back(std::string(R"({"metadata":{"name":"c-0","uid":"u-1"}})"));
  auto owner = podOwner(api, "mlb", "c-0");
  BOOST_REQUIRE(owner.has_value());
  BOOST_TEST(owner->kind == "Pod");
  BOOST_TEST(owner->uid == "u-1");
  BOOST_TEST(owner->controller.value_or(false));
  auto missing = podOwner(api, "mlb", "c-1");
  BOOST_REQUIRE(!missing.has_value());
  BOOST_TEST(missing.error().message.find("mlb/c-1") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
