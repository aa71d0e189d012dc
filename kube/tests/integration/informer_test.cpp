// SPDX-License-Identifier: Apache-2.0
// Informers against the test API server: convergence on another client's writes, and no lost or
// duplicated objects while watches are cut every 2 s and relists follow 410s.
#include "kube/informer.h"

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "kube/resources.h"
#include "kube/tests/integration/api_server.h"

using namespace ingot::k8s;
namespace json = ingot::json;
using namespace ingot::k8s::testing;
using namespace std::chrono_literals;

namespace {

struct Cm {
  std::string key;
  std::string value;
};

ingot::Result<Cm> decodeCm(std::string_view j) {
  auto ns = json::stringAt(j, {"metadata", "namespace"});
  auto name = json::stringAt(j, {"metadata", "name"});
  auto value = json::stringAt(j, {"data", "k"});
  if (!ns || !name || !value) return ingot::invalidArgument("not a ConfigMap with data.k");
  return Cm{objectKey(*ns, *name), *value};
}

/// Ledger follows handler calls and flags an add for a present key or a delete/update for an
/// absent one (a duplicated or lost object).
struct Ledger {
  std::mutex mu;
  std::map<std::string, std::string> present;
  int adds = 0;
  int anomalies = 0;
  std::vector<std::string> errors;

  Informer<Cm>::Handlers handlers() {
    using Ptr = Informer<Cm>::Ptr;
    return {[this](const Ptr& c) {
              std::lock_guard lock(mu);
              ++adds;
              if (!present.emplace(c->key, c->value).second) ++anomalies;
            },
            [this](const Ptr& o, const Ptr& n) {
              std::lock_guard lock(mu);
              if (!present.contains(o->key)) ++anomalies;
              present[n->key] = n->value;
            },
            [this](const Ptr& c) {
              std::lock_guard lock(mu);
              if (present.erase(c->key) != 1) ++anomalies;
            },
            [this](const ingot::Error& e) {
              std::lock_guard lock(mu);
              errors.push_back(e.message);
            }};
  }
  std::map<std::string, std::string> snapshot() {
    std::lock_guard lock(mu);
    return present;
  }
};

/// serverState lists ConfigMaps of ns as key -> data.k.
std::map<std::string, std::string> serverState(ApiClient& api, const std::string& ns) {
  std::map<std::string, std::string> out;
  auto list = api.list(resources::kConfigMaps, ns, {});
  BOOST_REQUIRE(list.has_value());
  for (const auto& item : list->items) {
    auto cm = decodeCm(item);
    if (cm) out[cm->key] = cm->value;
  }
  return out;
}

std::map<std::string, std::string> storeState(const Informer<Cm>& inf) {
  std::map<std::string, std::string> out;
  for (const auto& c : inf.store().list()) out[c->key] = c->value;
  return out;
}

/// converged waits until the informer's store and ledger both equal the server's state.
bool converged(Informer<Cm>& inf, Ledger& ledger, ApiClient& api, const std::string& ns) {
  for (int i = 0; i < 200; ++i) {
    const auto want = serverState(api, ns);
    if (storeState(inf) == want && ledger.snapshot() == want) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

InformerOptions options() {
  InformerOptions o;
  o.reflector.page_size = 7;  // several pages even for small collections
  o.reflector.backoff = BackoffOptions{50ms, 500ms, 2.0, 0.5};
  return o;
}

std::string name(int i) {
  return "cm-" + std::to_string(i);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(informer)

BOOST_AUTO_TEST_CASE(converges_on_creates_updates_and_deletes_by_another_client) {
  TestApiServer server;
  auto writer = server.client();
  for (int i = 0; i < 10; ++i) {  // some objects exist before the informer starts
    BOOST_REQUIRE(
        writer->create(resources::kConfigMaps, "default", configMap("default", name(i), "a")));
  }
  auto reader = server.client();
  Ledger ledger;
  Informer<Cm> inf(*reader, resources::kConfigMaps, "default", decodeCm, ledger.handlers(),
                   options());
  inf.start();
  BOOST_REQUIRE(inf.waitForSync(10s));
  BOOST_TEST(inf.store().size() == 10u);

  for (int i = 10; i < 30; ++i) {
    BOOST_REQUIRE(
        writer->create(resources::kConfigMaps, "default", configMap("default", name(i), "a")));
  }
  for (int i = 0; i < 30; i += 3) {
    BOOST_REQUIRE(writer->patch(resources::kConfigMaps, "default", name(i), PatchType::Merge,
                                R"({"data":{"k":"b"}})"));
  }
  for (int i = 1; i < 30; i += 4) {
    BOOST_REQUIRE(writer->remove(resources::kConfigMaps, "default", name(i)).has_value());
  }
  BOOST_TEST(converged(inf, ledger, *writer, "default"));
  inf.stop();
  BOOST_TEST(ledger.anomalies == 0);
  BOOST_TEST(ledger.adds == 30);
  BOOST_TEST(inf.store().get("default/cm-3")->value == "b");
  BOOST_TEST(inf.store().get("default/cm-1") == nullptr);
  BOOST_TEST(ledger.errors.empty());
}

BOOST_AUTO_TEST_CASE(survives_watches_cut_every_two_seconds_and_relists_after_gone) {
  // Watches end every 2 s; the history keeps only 30 events, and bookmarks come once a second
  // (the server's default is a real server's minute: asked for here). The "quiet" informer's
  // namespace never changes, so it resumes from a bookmark while the writer below makes far
  // more than 30 changes a second: every reconnect of it meets 410.
  TestApiServer server(ApiServerOptions{{"--close-watches-after", "2", "--history", "30",
                                         "--bookmark-interval", "1", "--namespace", "quiet"}});
  auto writer = server.client();
  for (int i = 0; i < 3; ++i) {
    BOOST_REQUIRE(
        writer->create(resources::kConfigMaps, "quiet", configMap("quiet", name(i), "q")));
  }
  auto reader = server.client();
  Ledger busy_ledger;
  Ledger quiet_ledger;
  Informer<Cm> busy(*reader, resources::kConfigMaps, "default", decodeCm, busy_ledger.handlers(),
                    options());
  Informer<Cm> quiet(*reader, resources::kConfigMaps, "quiet", decodeCm, quiet_ledger.handlers(),
                     options());
  busy.start();
  quiet.start();
  BOOST_REQUIRE(busy.waitForSync(10s));
  BOOST_REQUIRE(quiet.waitForSync(10s));

  const auto until = std::chrono::steady_clock::now() + 5s;
  int writes = 0;
  for (int i = 0; std::chrono::steady_clock::now() < until; ++i) {
    const std::string n = name(i % 40);
    auto r = writer->create(resources::kConfigMaps, "default", configMap("default", n, "v0"));
    if (!r) {
      r = writer->patch(resources::kConfigMaps, "default", n, PatchType::Merge,
                        R"({"data":{"k":"v)" + std::to_string(i) + R"("}})");
    }
    if (i % 5 == 4) (void)writer->remove(resources::kConfigMaps, "default", name((i * 7) % 40));
    ++writes;
  }
  BOOST_TEST_MESSAGE("writes: " << writes);
  BOOST_TEST(writes > 200);

  BOOST_TEST(converged(busy, busy_ledger, *writer, "default"));
  BOOST_TEST(converged(quiet, quiet_ledger, *writer, "quiet"));
  busy.stop();
  quiet.stop();
  BOOST_TEST(busy_ledger.anomalies == 0);
  BOOST_TEST(quiet_ledger.anomalies == 0);
  BOOST_TEST(quiet_ledger.adds == 3);  // relists found nothing new: no duplicate adds
  BOOST_TEST(quiet.stats().gone_relists >= 1u);
  BOOST_TEST(busy.stats().watches >= 3u);  // reconnected after the cuts
  BOOST_TEST_MESSAGE("busy: watches " << busy.stats().watches << ", gone relists "
                                      << busy.stats().gone_relists << "; quiet: watches "
                                      << quiet.stats().watches << ", gone relists "
                                      << quiet.stats().gone_relists);
}

BOOST_AUTO_TEST_SUITE_END()
