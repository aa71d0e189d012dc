// SPDX-License-Identifier: Apache-2.0
// The cpprestsdk client against the test API server: CRUD, conflicts, paging, status
// subresource, TLS and token failures, watches.
#include "kube/rest_client.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "common/util/quote.h"
#include "kube/resources.h"
#include "kube/tests/integration/api_server.h"
#include "kube/tests/test_util.h"

using namespace ingot::k8s;
namespace json = ingot::json;
using namespace ingot::k8s::testing;
using namespace std::chrono_literals;
using ingot::ErrorCode;

namespace {

const ResourceRef kConfigMaps = resources::kConfigMaps;

int code(const ingot::Error& e) {
  return static_cast<int>(e.code);
}
int code(ErrorCode c) {
  return static_cast<int>(c);
}

std::string must(ingot::Result<std::string> r) {
  BOOST_REQUIRE_MESSAGE(r.has_value(), why(r));
  return *r;
}

/// otherCa writes a CA certificate the server was not signed by and returns its PEM.
std::string otherCa(const TestApiServer& server) {
  const std::string dir = server.dir() + "/other";
  std::filesystem::create_directories(dir);
  BOOST_REQUIRE(run("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
                    "-days 1 -subj /CN=not-the-test-ca -keyout " +
                    dir + "/ca.key -out " + dir + "/ca.crt 2>/dev/null") == 0);
  std::ifstream in(dir + "/ca.crt");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

BOOST_AUTO_TEST_SUITE(rest_client)

BOOST_AUTO_TEST_CASE(crud_conflict_and_not_found_over_tls_with_a_token) {
  TestApiServer server;
  auto api = server.client();

  const std::string created =
      must(api->create(kConfigMaps, "default", configMap("default", "cm", "v1")));
  const std::string rv1 = fieldOf(created, {"metadata", "resourceVersion"});
  BOOST_TEST(!rv1.empty());
  BOOST_TEST(fieldOf(created, {"data", "k"}) == "v1");

  auto dup = api->create(kConfigMaps, "default", configMap("default", "cm", "v1"));
  BOOST_REQUIRE(!dup.has_value());
  BOOST_TEST(code(dup.error()) == code(ErrorCode::AlreadyExists));
  BOOST_TEST(dup.error().message.find("configmaps \"cm\" already exists") != std::string::npos,
             dup.error().message);
  BOOST_TEST(dup.error().message.find("POST /api/v1/namespaces/default/configmaps") == 0);

  const std::string got = must(api->get(kConfigMaps, "default", "cm"));
  BOOST_TEST(fieldOf(got, {"metadata", "uid"}) == fieldOf(created, {"metadata", "uid"}));

  // update with the current version succeeds; replaying the old version conflicts.
  std::string body = configMap("default", "cm", "v2");
  body.insert(body.find(R"("name")"), R"("resourceVersion":)" + ingot::jsonQuote(rv1) + ",");
  const std::string updated = must(api->update(kConfigMaps, "default", "cm", body));
  BOOST_TEST(fieldOf(updated, {"data", "k"}) == "v2");
  BOOST_TEST(fieldOf(updated, {"metadata", "resourceVersion"}) != rv1);
  auto stale = api->update(kConfigMaps, "default", "cm", body);
  BOOST_REQUIRE(!stale.has_value());
  BOOST_TEST(code(stale.error()) == code(ErrorCode::Conflict));
  BOOST_TEST(stale.error().message.find("the object has been modified") != std::string::npos);

  const std::string merged =
      must(api->patch(kConfigMaps, "default", "cm", PatchType::Merge, R"({"data":{"k":"v3"}})"));
  BOOST_TEST(fieldOf(merged, {"data", "k"}) == "v3");
  const std::string patched =
      must(api->patch(kConfigMaps, "default", "cm", PatchType::Json,
                      R"([{"op":"replace","path":"/data/k","value":"v4"}])"));
  BOOST_TEST(fieldOf(patched, {"data", "k"}) == "v4");
  auto bad_patch = api->patch(kConfigMaps, "default", "cm", PatchType::Json,
                              R"([{"op":"test","path":"/data/k","value":"nope"}])");
  BOOST_REQUIRE(!bad_patch.has_value());
  BOOST_TEST(code(bad_patch.error()) == code(ErrorCode::InvalidArgument));

  BOOST_TEST(api->remove(kConfigMaps, "default", "cm").has_value());
  auto gone = api->get(kConfigMaps, "default", "cm");
  BOOST_REQUIRE(!gone.has_value());
  BOOST_TEST(code(gone.error()) == code(ErrorCode::NotFound));
  BOOST_TEST(gone.error().message ==
             "GET /api/v1/namespaces/default/configmaps/cm: configmaps \"cm\" not found (HTTP 404 "
             "NotFound)");
  auto again = api->remove(kConfigMaps, "default", "cm");
  BOOST_REQUIRE(!again.has_value());
  BOOST_TEST(code(again.error()) == code(ErrorCode::NotFound));
}

BOOST_AUTO_TEST_CASE(list_pages_through_limit_and_continue_with_selectors) {
  TestApiServer server;
  auto api = server.client();
  for (int i = 0; i < 7; ++i) {
    must(api->create(
        kConfigMaps, "default",
        configMap("default", "cm-" + std::to_string(i), "v", i % 2 == 0 ? "app=even" : "app=odd")));
  }
  std::set<std::string> names;
  ListOptions o;
  o.limit = 3;
  o.label_selector = "app";
  int pages = 0;
  std::string rv;
  do {
    auto page = api->list(kConfigMaps, "default", o);
    BOOST_REQUIRE_MESSAGE(page.has_value(), why(page));
    BOOST_TEST(page->items.size() <= 3u);
    for (const auto& item : page->items) names.insert(fieldOf(item, {"metadata", "name"}));
    o.continue_token = page->continue_token;
    rv = page->resource_version;
    ++pages;
  } while (!o.continue_token.empty());
  BOOST_TEST(pages == 3);
  BOOST_TEST(names.size() == 7u);
  BOOST_TEST(!rv.empty());

  auto even = api->list(kConfigMaps, "default", ListOptions{"app=even", "", 0, "", ""});
  BOOST_REQUIRE(even.has_value());
  BOOST_TEST(even->items.size() == 4u);
  auto one = api->list(kConfigMaps, "default", ListOptions{"", "metadata.name=cm-3", 0, "", ""});
  BOOST_REQUIRE(one.has_value());
  BOOST_REQUIRE(one->items.size() == 1u);
  BOOST_TEST(fieldOf(one->items[0], {"metadata", "name"}) == "cm-3");
  auto bad = api->list(kConfigMaps, "default", ListOptions{"", "spec.nope=1", 0, "", ""});
  BOOST_REQUIRE(!bad.has_value());
  BOOST_TEST(code(bad.error()) == code(ErrorCode::InvalidArgument));
  auto all_namespaces = api->list(kConfigMaps, "", ListOptions{"app=odd", "", 0, "", ""});
  BOOST_REQUIRE(all_namespaces.has_value());
  BOOST_TEST(all_namespaces->items.size() == 3u);
}

BOOST_AUTO_TEST_CASE(status_subresource_is_written_separately_from_the_object) {
  TestApiServer server;
  auto api = server.client();
  const std::string pool =
      R"({"apiVersion":"metallb.io/v1beta1","kind":"IPAddressPool","metadata":{"name":"p1",)"
      R"("namespace":"metallb-system"},"spec":{"addresses":["192.0.2.0/24"]},)"
      R"("status":{"availableIPv4":1}})";
  const std::string created = must(api->create(resources::kIpAddressPools, "metallb-system", pool));
  BOOST_TEST(!json::rawAt(created, {"status", "availableIPv4"})->has_value());  // dropped

  const std::string status = must(api->patchStatus(
      resources::kIpAddressPools, "metallb-system", "p1", PatchType::Merge,
      R"({"status":{"availableIPv4":254,"assignedIPv4":0,"availableIPv6":0,"assignedIPv6":0},"spec":{"addresses":["10.0.0.0/8"]}})"));
  BOOST_TEST(**json::rawAt(status, {"status", "availableIPv4"}) == "254");
  const std::string after = must(api->get(resources::kIpAddressPools, "metallb-system", "p1"));
  BOOST_TEST(**json::rawAt(after, {"spec", "addresses"}) == R"(["192.0.2.0/24"])");

  // A write to the main resource keeps the stored status.
  const std::string spec = must(api->patch(resources::kIpAddressPools, "metallb-system", "p1",
                                           PatchType::Merge, R"({"status":{"availableIPv4":1}})"));
  BOOST_TEST(**json::rawAt(spec, {"status", "availableIPv4"}) == "254");

  // updateStatus (PUT) of the whole object.
  std::string whole = must(api->get(resources::kIpAddressPools, "metallb-system", "p1"));
  const auto pos = whole.find("254", whole.find("availableIPv4"));
  BOOST_REQUIRE(pos != std::string::npos);
  whole.replace(pos, 3, "253");
  const std::string put =
      must(api->updateStatus(resources::kIpAddressPools, "metallb-system", "p1", whole));
  BOOST_TEST(**json::rawAt(put, {"status", "availableIPv4"}) == "253");
}

BOOST_AUTO_TEST_CASE(a_wrong_token_fails_with_a_clear_unauthorized_error) {
  TestApiServer server;
  ClientConfig cfg = server.config();
  cfg.token = "not-the-token";
  auto api = makeRestClient(cfg);
  BOOST_REQUIRE(api.has_value());
  auto r = (*api)->get(kConfigMaps, "default", "x");
  BOOST_REQUIRE(!r.has_value());
  BOOST_TEST(code(r.error()) == code(ErrorCode::Unauthorized));
  BOOST_TEST(r.error().message ==
             "GET /api/v1/namespaces/default/configmaps/x: Unauthorized (HTTP 401 Unauthorized)");
  BOOST_TEST(r.error().message.find("not-the-token") == std::string::npos);  // never leaked

  cfg.token.clear();
  auto anonymous = makeRestClient(cfg);
  auto r2 = (*anonymous)->list(kConfigMaps, "default", {});
  BOOST_REQUIRE(!r2.has_value());
  BOOST_TEST(code(r2.error()) == code(ErrorCode::Unauthorized));
}

BOOST_AUTO_TEST_CASE(a_rotated_token_file_is_picked_up_after_a_401) {
  TestApiServer server;
  ClientConfig cfg = server.config();
  const std::string token_file = server.dir() + "/token";
  std::ofstream(token_file) << "old-token\n";
  cfg.token.clear();
  cfg.token_file = token_file;
  auto api = makeRestClient(cfg);
  BOOST_REQUIRE(api.has_value());
  auto before = (*api)->get(kConfigMaps, "default", "missing");
  BOOST_REQUIRE(!before.has_value());
  BOOST_TEST(code(before.error()) == code(ErrorCode::Unauthorized));
  std::ofstream(token_file) << kToken << "\n";  // the kubelet rotates the token
  auto after = (*api)->get(kConfigMaps, "default", "missing");
  BOOST_REQUIRE(!after.has_value());
  BOOST_TEST(code(after.error()) == code(ErrorCode::NotFound));  // authenticated now
}

BOOST_AUTO_TEST_CASE(a_wrong_ca_fails_the_tls_handshake_with_a_clear_error) {
  TestApiServer server;
  struct Case {
    std::string desc;
    ClientConfig cfg;
    std::string trust;
  };
  ClientConfig wrong = server.config();
  wrong.ca_data = otherCa(server);
  ClientConfig system_roots = server.config();
  system_roots.ca_data.clear();
  const std::vector<Case> cases = {{"another CA", wrong, "the configured CA data"},
                                   {"system roots only", system_roots, "the system trust store"}};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto api = makeRestClient(c.cfg);
      BOOST_REQUIRE(api.has_value());
      auto r = (*api)->get(kConfigMaps, "default", "x");
      BOOST_REQUIRE(!r.has_value());
      BOOST_TEST(code(r.error()) == code(ErrorCode::Unavailable));
      BOOST_TEST(r.error().message.find("SSL handshake") != std::string::npos, r.error().message);
      BOOST_TEST(r.error().message ==
                     "GET /api/v1/namespaces/default/configmaps/x: TLS handshake failed (Error in "
                     "SSL handshake); check that the API server's certificate is signed by " +
                         c.trust + " and valid for the server address",
                 r.error().message);
    }
  }
}

BOOST_AUTO_TEST_CASE(insecure_skip_tls_verify_connects_without_a_ca) {
  TestApiServer server;
  ClientConfig cfg = server.config();
  cfg.ca_data.clear();
  cfg.insecure_skip_tls_verify = true;
  auto api = makeRestClient(cfg);
  BOOST_REQUIRE(api.has_value());
  BOOST_TEST((*api)->list(kConfigMaps, "default", {}).has_value());
}

BOOST_AUTO_TEST_CASE(bad_tls_material_is_rejected_when_the_client_is_built) {
  TestApiServer server;
  const std::string dir = server.dir() + "/client";
  std::filesystem::create_directories(dir);
  const std::string gen =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
      "-nodes -days 1 -subj /CN=client 2>/dev/null ";
  BOOST_REQUIRE(run(gen + "-keyout " + dir + "/a.key -out " + dir + "/a.crt") == 0);
  BOOST_REQUIRE(run(gen + "-keyout " + dir + "/b.key -out " + dir + "/b.crt") == 0);
  struct Case {
    std::string desc;
    std::function<void(ClientConfig&)> edit;
    std::string want;  ///< "" = builds and can talk to the server
  };
  const std::vector<Case> cases = {
      {"matching client certificate and key",
       [&](ClientConfig& c) {
         c.client_certificate_file = dir + "/a.crt";
         c.client_key_file = dir + "/a.key";
       },
       ""},
      {"key of another certificate",
       [&](ClientConfig& c) {
         c.client_certificate_file = dir + "/a.crt";
         c.client_key_file = dir + "/b.key";
       },
       "REST client: TLS: client key is not valid or does not match"},
      {"CA that is not PEM", [](ClientConfig& c) { c.ca_data = "not a certificate"; },
       "REST client: TLS: CA certificate is not valid PEM"},
      {"missing CA file",
       [&](ClientConfig& c) {
         c.ca_data.clear();
         c.ca_file = dir + "/nope.crt";
       },
       "REST client: cannot read CA certificate " + dir + "/nope.crt"},
      {"not a URL", [](ClientConfig& c) { c.server = "ftp://x"; },
       "REST client: server ftp://x is not an http(s) URL"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      ClientConfig cfg = server.config();
      c.edit(cfg);
      auto api = makeRestClient(cfg);
      if (c.want.empty()) {
        BOOST_REQUIRE(api.has_value());
        BOOST_TEST((*api)->list(kConfigMaps, "default", {}).has_value());
      } else {
        BOOST_REQUIRE(!api.has_value());
        BOOST_TEST(api.error().message.rfind(c.want, 0) == 0, api.error().message);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(plain_http_servers_work_for_tests) {
  TestApiServer server(ApiServerOptions{{}, false});
  ClientConfig cfg = server.config();
  BOOST_TEST(cfg.server.rfind("http://", 0) == 0);
  auto api = makeRestClient(cfg);
  BOOST_REQUIRE(api.has_value());
  must((*api)->create(kConfigMaps, "default", configMap("default", "cm", "v")));
}

BOOST_AUTO_TEST_CASE(watch_streams_events_and_stops_on_request) {
  TestApiServer server(ApiServerOptions{{"--bookmark-interval", "0.2"}});
  auto api = server.client();
  auto writer = server.client();
  auto listed = api->list(kConfigMaps, "default", {});
  BOOST_REQUIRE(listed.has_value());

  std::mutex mu;
  std::vector<std::string> seen;
  int bookmarks = 0;
  std::stop_source stop;
  WatchOutcome outcome;
  std::thread watcher([&] {
    WatchOptions o;
    o.resource_version = listed->resource_version;
    outcome = api->watch(
        kConfigMaps, "default", o,
        [&](const WatchEvent& e) {
          std::lock_guard lock(mu);
          if (e.type == WatchEventType::Bookmark) {
            ++bookmarks;
          } else {
            seen.push_back(std::string(watchEventTypeName(e.type)) + " " +
                           fieldOf(e.object, {"metadata", "name"}) + " " +
                           fieldOf(e.object, {"data", "k"}));
          }
          return true;
        },
        stop.get_token());
  });
  must(writer->create(kConfigMaps, "default", configMap("default", "w", "é€😀")));
  must(writer->patch(kConfigMaps, "default", "w", PatchType::Merge, R"({"data":{"k":"2"}})"));
  BOOST_TEST(writer->remove(kConfigMaps, "default", "w").has_value());
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lock(mu);
      if (seen.size() >= 3 && bookmarks >= 1) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  // Cancelling must end the open watch without waiting for the server; the bound only keeps a
  // regression from hanging the suite.
  stop.request_stop();
  auto joined = std::async(std::launch::async, [&watcher] { watcher.join(); });
  BOOST_REQUIRE((joined.wait_for(30s) == std::future_status::ready));
  BOOST_TEST((outcome.end == WatchEnd::Cancelled));
  std::lock_guard lock(mu);
  BOOST_TEST((seen == std::vector<std::string>{"ADDED w é€😀", "MODIFIED w 2", "DELETED w 2"}));
  BOOST_TEST(bookmarks >= 1);
}

BOOST_AUTO_TEST_CASE(watch_reports_gone_for_an_expired_version_and_closed_at_timeout) {
  TestApiServer server(ApiServerOptions{{"--history", "3"}});
  auto api = server.client();
  auto first = api->list(kConfigMaps, "default", {});
  BOOST_REQUIRE(first.has_value());
  for (int i = 0; i < 6; ++i) {
    must(api->create(kConfigMaps, "default", configMap("default", "c" + std::to_string(i), "v")));
  }
  WatchOptions old;
  old.resource_version = first->resource_version;
  auto gone = api->watch(kConfigMaps, "default", old, [](const WatchEvent&) { return true; }, {});
  BOOST_TEST((gone.end == WatchEnd::Gone));
  BOOST_TEST(code(gone.error) == code(ErrorCode::Gone));
  BOOST_TEST(gone.error.message.find("too old resource version") != std::string::npos,
             gone.error.message);

  auto now = api->list(kConfigMaps, "default", {});
  WatchOptions current;
  current.resource_version = now->resource_version;
  current.timeout_seconds = 1;
  const auto start = std::chrono::steady_clock::now();
  auto closed =
      api->watch(kConfigMaps, "default", current, [](const WatchEvent&) { return true; }, {});
  BOOST_TEST((closed.end == WatchEnd::Closed));
  BOOST_TEST((std::chrono::steady_clock::now() - start >= 900ms));
}

BOOST_AUTO_TEST_CASE(client_side_qps_limit_paces_requests) {
  TestApiServer server;
  RestOptions o;
  o.qps = 20;
  o.burst = 1;
  auto api = makeRestClient(server.config(), o);
  BOOST_REQUIRE(api.has_value());
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 6; ++i) BOOST_TEST((*api)->list(kConfigMaps, "default", {}).has_value());
  BOOST_TEST((std::chrono::steady_clock::now() - start >= 240ms));  // 5 waits of 50 ms
}

BOOST_AUTO_TEST_SUITE_END()
