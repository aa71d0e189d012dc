// SPDX-License-Identifier: Apache-2.0
#include "kube/status.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "kube/api_client.h"

using ingot::ErrorCode;
using namespace ingot::k8s;

BOOST_AUTO_TEST_SUITE(status)

BOOST_AUTO_TEST_CASE(parse_status_reads_code_reason_and_message) {
  const std::string body =
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
      R"("message":"services \"web\" not found","reason":"NotFound","details":{"name":"web"},"code":404})";
  auto s = parseStatus(body);
  BOOST_REQUIRE(s.has_value());
  BOOST_TEST(s->code == 404);
  BOOST_TEST(s->reason == "NotFound");
  BOOST_TEST(s->message == "services \"web\" not found");
}

BOOST_AUTO_TEST_CASE(parse_status_refuses_what_is_not_a_status) {
  for (std::string body : {R"({"kind":"Service","code":1})", "<html>502</html>", "", "[]",
                           R"({"code":404,"message":"m"})"}) {
    BOOST_TEST_CONTEXT(body) {
      BOOST_TEST(!parseStatus(body).has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(http_status_maps_to_error_codes) {
  struct Case {
    int http;
    std::string reason;
    ErrorCode want;
  };
  const std::vector<Case> cases = {
      {400, "BadRequest", ErrorCode::InvalidArgument},
      {401, "Unauthorized", ErrorCode::Unauthorized},
      {403, "Forbidden", ErrorCode::Forbidden},
      {404, "NotFound", ErrorCode::NotFound},
      {409, "AlreadyExists", ErrorCode::AlreadyExists},
      {409, "Conflict", ErrorCode::Conflict},
      {410, "Expired", ErrorCode::Gone},
      {410, "Gone", ErrorCode::Gone},
      {422, "Invalid", ErrorCode::InvalidArgument},
      {429, "TooManyRequests", ErrorCode::Unavailable},
      {500, "InternalError", ErrorCode::Unavailable},
      {503, "ServiceUnavailable", ErrorCode::Unavailable},
      {504, "Timeout", ErrorCode::Unavailable},
      {418, "", ErrorCode::Internal},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.http << " " << c.reason) {
      BOOST_TEST(static_cast<int>(errorCodeForHttp(c.http, c.reason)) == static_cast<int>(c.want));
    }
  }
}

BOOST_AUTO_TEST_CASE(http_error_carries_operation_server_message_and_status) {
  const std::string conflict =
      R"({"kind":"Status","status":"Failure","reason":"Conflict","code":409,)"
      R"("message":"Operation cannot be fulfilled on services \"a\": the object has been modified"})";
  auto e = httpError("PUT /api/v1/namespaces/default/services/a", 409, conflict);
  BOOST_TEST(static_cast<int>(e.code) == static_cast<int>(ErrorCode::Conflict));
  BOOST_TEST(e.message ==
             "PUT /api/v1/namespaces/default/services/a: Operation cannot be fulfilled on services "
             "\"a\": the object has been modified (HTTP 409 Conflict)");

  auto html = httpError("GET /x", 502, "<html>\n<b>Bad gateway</b>\n</html>");
  BOOST_TEST(static_cast<int>(html.code) == static_cast<int>(ErrorCode::Unavailable));
  BOOST_TEST(html.message == "GET /x: <html> <b>Bad gateway</b> </html> (HTTP 502)");

  auto empty = httpError("GET /y", 401, "");
  BOOST_TEST(empty.message == "GET /y: no message from server (HTTP 401)");

  auto long_body = httpError("GET /z", 500, std::string(500, 'x'));
  BOOST_TEST(long_body.message.size() < 260u);
  BOOST_TEST(long_body.message.find("...") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(resource_paths_follow_the_api_layout) {
  const ResourceRef svc{"", "v1", "services", true};
  const ResourceRef ns{"", "v1", "namespaces", false};
  const ResourceRef pool{"metallb.io", "v1beta1", "ipaddresspools", true};
  struct Case {
    std::string desc;
    std::string got;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"core collection", resourcePath(svc, "default"), "/api/v1/namespaces/default/services"},
      {"core object", resourcePath(svc, "default", "web"),
       "/api/v1/namespaces/default/services/web"},
      {"status subresource", resourcePath(svc, "default", "web", "status"),
       "/api/v1/namespaces/default/services/web/status"},
      {"all namespaces", resourcePath(svc, ""), "/api/v1/services"},
      {"cluster scoped ignores ns", resourcePath(ns, "x", "kube-system"),
       "/api/v1/namespaces/kube-system"},
      {"group collection", resourcePath(pool, "metallb-system"),
       "/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools"},
      {"group object", resourcePath(pool, "metallb-system", "p1"),
       "/apis/metallb.io/v1beta1/namespaces/metallb-system/ipaddresspools/p1"},
      {"segments are percent-encoded", resourcePath(svc, "a b", "x/../y?z"),
       "/api/v1/namespaces/a%20b/services/x%2F..%2Fy%3Fz"},
      {"object key", objectKey("ns", "n"), "ns/n"},
      {"cluster object key", objectKey("", "n"), "n"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(c.got == c.want);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
