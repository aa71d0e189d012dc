// SPDX-License-Identifier: Apache-2.0
// Clients that try to exhaust the server: trickled heads (slow loris), idle connects, floods
// from one address, oversized heads and bodies. Each test holds the abuse open while a normal
// client, from another loopback address, must get its answer within its own timeout: a server
// that serves one connection at a time, or queues behind slow clients, fails them.
#include <atomic>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/http/server.h"
#include "test_client.h"

using namespace ingot::http;
using namespace ingot::http::testing;

namespace {

constexpr int kRounds = 3;
const std::string kGet = "GET /ok HTTP/1.1\r\nConnection: close\r\n\r\n";

std::unique_ptr<Server> serve(ServerOptions o) {
  o.address = "127.0.0.1";
  auto s = Server::start(std::move(o), [](const Request& r) {
    return Response{200, "text/plain", r.path == "/ok" ? "fine\n" : "other\n"};
  });
  BOOST_REQUIRE_MESSAGE(s.has_value(), (s.has_value() ? std::string() : s.error().message));
  return std::move(*s);
}

/// attackerAddress spreads probes over 127.0.0.2-127.0.0.11 (the normal client is 127.0.0.1).
std::string attackerAddress(int i) {
  return "127.0.0." + std::to_string(2 + i % 10);
}

/// expectNormalRequestsServed runs kRounds normal requests, each within the client timeout.
void expectNormalRequestsServed(int port) {
  for (int i = 0; i < kRounds; ++i) {
    const Reply r = roundTrip(port, kGet, kClientTimeout);
    BOOST_TEST(r.error.empty(), r.error);
    BOOST_TEST(r.status() == 200);
    BOOST_TEST(r.body() == "fine\n");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_abuse)

// Slow loris: connections that send one byte of their head at a time keep the server busy only
// while they are read; the head deadline closes them although bytes keep coming.
BOOST_AUTO_TEST_CASE(trickled_heads_do_not_delay_others_and_hit_the_head_deadline) {
  ServerOptions o;
  o.head_timeout = milliseconds(1500);
  auto server = serve(o);
  const int tricklers = 20 * kScale;
  Sockets s;
  for (int i = 0; i < tricklers; ++i) {
    const int fd = connectTo(server->port(), attackerAddress(i));
    BOOST_REQUIRE(fd >= 0);
    s.fds.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::atomic<int> cut{0};
  std::thread trickle([&] {
    const std::string head = "GET /ok HTTP/1.1\r\nX-Slow: " + std::string(200, 'a');
    std::vector<bool> closed(s.fds.size(), false);
    for (size_t b = 0; b < head.size() && !done.load(); ++b) {
      for (size_t i = 0; i < s.fds.size(); ++i) {
        if (!closed[i] && send(s.fds[i], &head[b], 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
          closed[i] = true;
          cut.fetch_add(1);
        }
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
  });
  expectNormalRequestsServed(server->port());
  // Every trickler is closed by its head deadline well before its head could end (20 s).
  for (const int fd : s.fds) BOOST_TEST(closedByServer(fd, milliseconds(15000)));
  done.store(true);
  trickle.join();
  BOOST_TEST(server->stats().timed_out >= static_cast<uint64_t>(tricklers));
}

// A body sent slowly after a prompt head is bounded by the whole-request deadline.
BOOST_AUTO_TEST_CASE(trickled_bodies_hit_the_request_deadline) {
  ServerOptions o;
  o.max_body_bytes = 1000;
  o.request_timeout = milliseconds(1500);
  auto server = serve(o);
  const int fd = connectTo(server->port(), attackerAddress(0));
  BOOST_REQUIRE(fd >= 0);
  const std::string head = "POST /ok HTTP/1.1\r\nContent-Length: 1000\r\n\r\n";
  (void)!send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  bool closed = false;
  for (int i = 0; i < 200 && !closed; ++i) {
    closed = send(fd, "x", 1, MSG_NOSIGNAL) < 0 || closedByServer(fd, milliseconds(50));
  }
  BOOST_TEST(closed);
  close(fd);
  expectNormalRequestsServed(server->port());
}

// Idle connects (no byte sent) from many addresses: the server holds them without a thread
// each, and a normal request is answered at once.
BOOST_AUTO_TEST_CASE(idle_connections_do_not_delay_others) {
  auto server = serve({});
  const int idle_count = 500 * kScale;
  Sockets s;
  for (int i = 0; i < idle_count; ++i) {
    const int fd = connectTo(server->port(), attackerAddress(i));
    BOOST_REQUIRE(fd >= 0);
    s.fds.push_back(fd);
  }
  expectNormalRequestsServed(server->port());
}

// Past the total cap, the connection that has waited longest for its request makes room for
// the new one, so a flood of idle connections cannot lock normal clients out.
BOOST_AUTO_TEST_CASE(a_full_server_evicts_the_oldest_waiting_connection) {
  ServerOptions o;
  o.max_connections = 16;
  auto server = serve(o);
  Sockets s;
  for (int i = 0; i < 40; ++i) {
    const int fd = connectTo(server->port(), attackerAddress(i));
    BOOST_REQUIRE(fd >= 0);
    s.fds.push_back(fd);
  }
  expectNormalRequestsServed(server->port());
  BOOST_TEST(closedByServer(s.fds.front(), milliseconds(3000)));
  BOOST_TEST(server->stats().evicted >= 24u);
  BOOST_TEST(server->stats().open <= 16u);
}

// One address may hold at most max_connections_per_client: the next one is closed at once,
// while another address is still served.
BOOST_AUTO_TEST_CASE(connections_per_client_are_capped_and_the_excess_closed_at_once) {
  ServerOptions o;
  o.max_connections_per_client = 4;
  o.head_timeout = milliseconds(30000);
  auto server = serve(o);
  Sockets s;
  for (int i = 0; i < 4; ++i) s.fds.push_back(connectTo(server->port(), "127.0.0.2"));
  const int excess = connectTo(server->port(), "127.0.0.2");
  BOOST_REQUIRE(excess >= 0);
  s.fds.push_back(excess);
  BOOST_TEST(closedByServer(excess, milliseconds(3000)));
  BOOST_TEST(!closedByServer(s.fds.front(), milliseconds(100)));
  BOOST_TEST(server->stats().refused == 1u);
  expectNormalRequestsServed(server->port());
  // The earlier connections of 127.0.0.2 still work.
  (void)!send(s.fds.front(), kGet.data(), kGet.size(), MSG_NOSIGNAL);
  char buf[256];
  const ssize_t n = recv(s.fds.front(), buf, sizeof buf, 0);
  BOOST_REQUIRE(n > 0);
  BOOST_TEST(std::string(buf, static_cast<size_t>(n)).rfind("HTTP/1.1 200 OK", 0) == 0u);
}

// A 1 MB request head is refused with 431 once the limit is passed (the old responder answered
// it 200 after reading a prefix).
BOOST_AUTO_TEST_CASE(oversized_heads_get_431) {
  auto server = serve({});
  const std::string big = "GET /ok HTTP/1.1\r\nX-Big: " + std::string(1 << 20, 'a') + "\r\n\r\n";
  const Reply r = roundTrip(server->port(), big, kClientTimeout);
  BOOST_TEST(r.status() == 431, r.text + r.error);
  const std::string many = "GET /ok HTTP/1.1\r\n" + [] {
    std::string h;
    for (int i = 0; i < 1000; ++i) h += "X-H" + std::to_string(i) + ": v\r\n";
    return h;
  }() + "\r\n";
  BOOST_TEST(roundTrip(server->port(), many, kClientTimeout).status() == 431);
  expectNormalRequestsServed(server->port());
}

// A handler that takes long occupies a worker, never the loop: other requests are answered.
BOOST_AUTO_TEST_CASE(a_slow_handler_does_not_block_other_requests) {
  std::atomic<bool> release{false};
  std::atomic<bool> in_slow{false};
  ServerOptions o;
  o.address = "127.0.0.1";
  o.workers = 2;
  auto started = Server::start(o, [&](const Request& r) {
    if (r.path == "/slow") {
      in_slow.store(true);
      while (!release.load()) std::this_thread::sleep_for(milliseconds(10));
    }
    return Response{200, "text/plain", "fine\n"};
  });
  BOOST_REQUIRE(started.has_value());
  auto& server = *started;
  std::thread slow(
      [&] { roundTrip(server->port(), "GET /slow HTTP/1.1\r\n\r\n", milliseconds(30000)); });
  for (int i = 0; i < 1000 && !in_slow.load(); ++i) std::this_thread::sleep_for(milliseconds(10));
  BOOST_REQUIRE(in_slow.load());
  // One worker is busy with /slow; the other answers.
  expectNormalRequestsServed(server->port());
  release.store(true);
  slow.join();
}

BOOST_AUTO_TEST_SUITE_END()
