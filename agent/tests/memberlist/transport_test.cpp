// SPDX-License-Identifier: Apache-2.0
// memberlist::Node on real sockets (127.0.0.1, ports from the kernel): one join call with more
// seeds than the node may hold streams reaches every seed, the extra push/pulls waiting for a
// free stream instead of being refused.
#define BOOST_TEST_MODULE ingot_memberlist_transport
#include "agent/memberlist/transport.h"

#include <memory>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "testing/wait.h"

namespace ml = ingot::agent::memberlist;
using ingot::testing::Millis;
using ingot::testing::waitFor;

namespace {

/// startNode starts a member on 127.0.0.1 with MetalLB's LAN timing (few packets: the test's
/// members share the machine), at most max_connections concurrent streams and max_waiting joins
/// waiting for one.
std::unique_ptr<ml::Node> startNode(ingot::log::Logger& logger,
                                    int i,
                                    size_t max_connections,
                                    size_t max_waiting = 8192) {
  ml::TransportConfig cfg;
  cfg.name = "node-" + std::to_string(i);
  cfg.port = 0;
  cfg.timing = ml::Timing::lan();
  cfg.max_connections = max_connections;
  cfg.max_waiting_joins = max_waiting;
  cfg.seed = static_cast<uint32_t>(i + 1);
  auto node = ml::Node::start(cfg, &logger);
  BOOST_REQUIRE_MESSAGE(node.has_value(), (node ? "" : node.error().message));
  return std::move(*node);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(transport)

BOOST_AUTO_TEST_CASE(one_join_call_reaches_more_seeds_than_max_connections) {
  constexpr int kSeeds = 39;
  constexpr size_t kMaxConnections = 4;
  ingot::log::Logger logger(ingot::log::Level::Error);
  std::vector<std::unique_ptr<ml::Node>> seeds;
  std::vector<std::string> addresses;
  for (int i = 1; i <= kSeeds; ++i) {
    seeds.push_back(startNode(logger, i, 32));
    addresses.push_back("127.0.0.1:" + std::to_string(seeds.back()->port()));
  }
  auto joiner = startNode(logger, 0, kMaxConnections);

  joiner->join(addresses);
  BOOST_REQUIRE(waitFor(Millis(60000), [&] { return joiner->joinsInFlight() == 0; }));

  // Every push/pull was started, none refused; all but the first max_connections waited.
  const ml::TransportCounters c = joiner->counters();
  BOOST_TEST(c.tcp_refused == 0U);
  BOOST_TEST(c.tcp_connected == static_cast<uint64_t>(kSeeds));
  BOOST_TEST(c.tcp_waited == kSeeds - kMaxConnections);
  // Every seed answered the joiner itself: it lists all of them, and each seed took a stream.
  BOOST_TEST(joiner->members().size() == static_cast<size_t>(kSeeds + 1));
  for (const auto& seed : seeds) {
    BOOST_TEST(seed->counters().tcp_accepted >= 1U);
  }
}

BOOST_AUTO_TEST_CASE(joins_beyond_the_wait_bound_are_refused) {
  // A node that holds one stream and lets one join wait: a third seed is refused at once.
  ingot::log::Logger logger(ingot::log::Level::Error);
  std::vector<std::unique_ptr<ml::Node>> seeds;
  std::vector<std::string> addresses;
  for (int i = 1; i <= 3; ++i) {
    seeds.push_back(startNode(logger, i, 32));
    addresses.push_back("127.0.0.1:" + std::to_string(seeds.back()->port()));
  }
  auto joiner = startNode(logger, 0, 1, 1);

  joiner->join(addresses);
  BOOST_REQUIRE(waitFor(Millis(60000), [&] { return joiner->joinsInFlight() == 0; }));
  const ml::TransportCounters c = joiner->counters();
  BOOST_TEST(c.tcp_connected == 2U);
  BOOST_TEST(c.tcp_waited == 1U);
  BOOST_TEST(c.tcp_refused == 1U);
  BOOST_TEST(joiner->members().size() == 3U);
}

BOOST_AUTO_TEST_SUITE_END()
