// SPDX-License-Identifier: Apache-2.0
// ServiceBGPStatus writes against a cache that moves during a pass (the watch echo of the
// agent's own write landing between two reads), and the configuration key with nothing changed.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/reconcile/writes.h"
#include "agent/tests/daemon/fixtures.h"
#include "api/codec.h"

namespace ingot::agent {
namespace {

using testing::firstPass;
using testing::Harness;
using testing::node1;

size_t statusWrites(const Harness& h, const std::string& verb) {
  const auto writes = h.writes(verb);
  return static_cast<size_t>(std::count_if(writes.begin(), writes.end(), [&](const auto& w) {
    return verb == "create" ? w.body.find("\"ServiceBGPStatus\"") != std::string::npos
                            : w.name.starts_with("bgp-");
  }));
}

/// drainLandingMidPass drains the queue like Harness::drain, but runs land the first time the
/// status pass reads the clock: after it read the cache, before it looks at its pending writes.
std::vector<std::string> drainLandingMidPass(Harness& h, std::function<void()> land) {
  std::vector<std::string> seen;
  while (auto key = h.queue.tryGet()) {
    seen.push_back(*key);
    if (*key == keys::kStatus && land) {
      h.clock.on_now = std::exchange(land, nullptr);
    }
    h.last = h.reconciler.reconcile(*key);
    h.queue.done(*key);
  }
  BOOST_TEST(!land, "the status pass never ran");
  return seen;
}

/// The echo of the agent's own create and status patch of shop/checkout's ServiceBGPStatus.
api::ServiceBGPStatus echoOf(const Harness& h, const std::string& name) {
  api::ServiceBGPStatus echo;
  echo.metadata.name = name;
  echo.metadata.namespace_ = "metallb-system";
  echo.metadata.labels = {{"metallb.io/node", "node1"},
                          {"metallb.io/service-name", "checkout"},
                          {"metallb.io/service-namespace", "shop"}};
  echo.metadata.resource_version = h.client.rvs.at(name);
  echo.status = {"node1", "checkout", "shop", {"tor1"}};
  return echo;
}

// The watch echo of a created ServiceBGPStatus lands after the pass read the cache (which did not
// show it yet) and before it checks its pending writes: the pending create must still count, or
// the Service looks status-less and gets a second object (then one of the two is deleted).
void echoLandsMidPass(const std::string& key) {
  Harness h(node1());
  firstPass(h);
  BOOST_REQUIRE_EQUAL(statusWrites(h, "create"), 1u);
  const api::ServiceBGPStatus echo =
      echoOf(h, statusObjectName("bgp-", "node1", "shop", "checkout"));
  h.queue.add(key);
  drainLandingMidPass(h, [&] {
    testing::World::upsert(h.world.bgp_statuses, echo, echo.metadata.resource_version);
  });
  BOOST_TEST(statusWrites(h, "create") == 1u);
  BOOST_TEST(statusWrites(h, "remove") == 0u);
  // Once the cache shows the object, further passes write nothing.
  const size_t writes = h.api.writes().size();
  h.queue.add(std::string(keys::kSync));
  h.drain();
  BOOST_TEST(h.api.writes().size() == writes);
}

// A create answered 504 although it committed: the server holds the object, the cache does not
// show it yet. The next pass creates the same name again, meets AlreadyExists and only writes
// the status: one object, never a second (MetalLB's generateName would make a duplicate).
BOOST_AUTO_TEST_CASE(a_create_repeated_after_a_timeout_adopts_the_object_it_made) {
  Harness h(node1());
  h.client.status_create_errors.push_back(
      Error{ErrorCode::Unavailable, "POST servicebgpstatuses: Timeout (HTTP 504 Timeout)"});
  firstPass(h);
  BOOST_REQUIRE_EQUAL(statusWrites(h, "create"), 1u);
  BOOST_TEST(statusWrites(h, "patchStatus") == 0u);
  h.client.status_create_errors.push_back(
      Error{ErrorCode::AlreadyExists, "servicebgpstatuses already exists (HTTP 409)"});
  h.queue.add(std::string(keys::kStatus));
  h.drain();
  const std::string name = statusObjectName("bgp-", "node1", "shop", "checkout");
  std::vector<std::string> created;
  for (const auto& w : h.writes("create")) {
    if (testing::contains(w.body, "\"ServiceBGPStatus\"")) {
      auto obj = api::decodeJson<api::ServiceBGPStatus>(w.body);
      BOOST_REQUIRE(obj.has_value());
      created.push_back(obj->metadata.name);
    }
  }
  BOOST_TEST(created == (std::vector<std::string>{name, name}), boost::test_tools::per_element());
  const auto patches = h.writes("patchStatus");
  BOOST_REQUIRE_EQUAL(statusWrites(h, "patchStatus"), 1u);
  BOOST_TEST(std::any_of(patches.begin(), patches.end(), [&](const auto& w) {
    return w.name == name && testing::contains(w.body, "\"peers\":[\"tor1\"]");
  }));
  BOOST_TEST(statusWrites(h, "remove") == 0u);
  BOOST_TEST(h.results.at(std::string(keys::kStatus)).ok());
}

BOOST_AUTO_TEST_CASE(echo_landing_mid_full_pass_makes_no_second_status) {
  echoLandsMidPass(std::string(keys::kSync));
}

BOOST_AUTO_TEST_CASE(echo_landing_mid_service_pass_makes_no_second_status) {
  echoLandsMidPass(keys::service("shop/checkout"));
}

// A pool change the configuration does not see (its status) decides nothing again; a change it
// sees (a new pool) does.
BOOST_AUTO_TEST_CASE(unchanged_configuration_starts_no_full_pass) {
  Harness h(node1());
  firstPass(h);
  auto pools = h.world.pools.list();
  BOOST_REQUIRE(!pools.empty());
  api::IPAddressPool pool = *pools.front();
  pool.status = api::IPAddressPoolStatus{};
  pool.status->assigned_ipv4 = 3;
  testing::World::upsert(h.world.pools, pool, "9");
  h.queue.add(std::string(keys::kConfig));
  auto seen = h.drain();
  BOOST_TEST((std::find(seen.begin(), seen.end(), keys::kStatus) == seen.end()));
  pool.metadata.name = "another";
  pool.spec.addresses = {"10.250.0.0/29"};
  testing::World::upsert(h.world.pools, pool, "10");
  h.queue.add(std::string(keys::kConfig));
  seen = h.drain();
  BOOST_TEST((std::find(seen.begin(), seen.end(), keys::kStatus) != seen.end()));
}

}  // namespace
}  // namespace ingot::agent
