// SPDX-License-Identifier: Apache-2.0
// The daemons' endpoints on real loopback sockets: what each path answers, and health staying
// responsive while /metrics is slow to render.
#include "common/daemon/endpoints.h"

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

using namespace ingot::daemon;
using namespace std::chrono_literals;

namespace {

/// options enables the endpoints (1) or not (0), with a ports file.
EndpointOptions options(int metrics, int health, std::string not_ready, std::string ports_file) {
  EndpointOptions o;
  o.metrics_port = metrics;
  o.health_port = health;
  o.not_ready_message = std::move(not_ready);
  o.ports_file = std::move(ports_file);
  return o;
}

/// connectLoopback connects to 127.0.0.1:port; -1 on failure.
int connectLoopback(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/// get sends a GET to 127.0.0.1:port and returns the response, or "" when none came within
/// timeout (the pass criterion of a probe).
std::string get(int port, const std::string& path, std::chrono::milliseconds timeout) {
  const int fd = connectLoopback(port);
  if (fd < 0) return "";
  const std::string req = "GET " + path + " HTTP/1.1\r\nConnection: close\r\n\r\n";
  (void)!send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0) {
      out.clear();
      break;
    }
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("ingot-ports-" + std::to_string(getpid()) + ".txt"))
                         .string();
  ~TempFile() { std::filesystem::remove(path); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(endpoints)

BOOST_AUTO_TEST_CASE(paths_answer_as_the_probes_and_scrapers_expect) {
  TempFile ports;
  std::atomic<bool> ready{false};
  EndpointOptions o = options(1, 1, "not ready yet\n", ports.path);
  auto served = serveEndpoints(
      o, [] { return std::string("m 1\n"); }, [&] { return ready.load(); });
  BOOST_REQUIRE_MESSAGE(served.has_value(),
                        (served.has_value() ? std::string() : served.error().message));
  auto p = readPortsFile(ports.path);
  BOOST_REQUIRE(p.has_value());
  const auto [metrics, health] = *p;
  BOOST_TEST(metrics == served->metrics->port());
  BOOST_TEST(health == served->health->port());
  BOOST_TEST(get(metrics, "/metrics", 3s).find("\r\n\r\nm 1\n") != std::string::npos);
  BOOST_TEST(get(metrics, "/other", 3s).rfind("HTTP/1.1 404", 0) == 0u);
  BOOST_TEST(get(health, "/healthz", 3s).rfind("HTTP/1.1 200", 0) == 0u);
  BOOST_TEST(get(health, "/livez", 3s).rfind("HTTP/1.1 200", 0) == 0u);
  const std::string not_ready = get(health, "/readyz", 3s);
  BOOST_TEST(not_ready.rfind("HTTP/1.1 503", 0) == 0u);
  BOOST_TEST(not_ready.find("not ready yet") != std::string::npos);
  ready.store(true);
  BOOST_TEST(get(health, "/readyz", 3s).rfind("HTTP/1.1 200", 0) == 0u);
}

// A /metrics render that does not finish holds neither the health endpoint nor other scrapes.
BOOST_AUTO_TEST_CASE(health_and_other_scrapes_answer_while_a_render_is_stuck) {
  TempFile ports;
  std::atomic<bool> release{false};
  std::atomic<int> renders{0};
  EndpointOptions o = options(1, 1, "", ports.path);
  auto served = serveEndpoints(
      o,
      [&] {
        if (renders.fetch_add(1) == 0) {
          while (!release.load()) std::this_thread::sleep_for(10ms);
        }
        return std::string("m 1\n");
      },
      [] { return true; });
  BOOST_REQUIRE(served.has_value());
  const int metrics = served->metrics->port();
  const int health = served->health->port();
  std::thread stuck([&] { get(metrics, "/metrics", 60s); });
  for (int i = 0; i < 1000 && renders.load() == 0; ++i) std::this_thread::sleep_for(10ms);
  BOOST_REQUIRE(renders.load() == 1);
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST(get(health, "/healthz", 1s).rfind("HTTP/1.1 200", 0) == 0u);
    BOOST_TEST(get(health, "/readyz", 1s).rfind("HTTP/1.1 200", 0) == 0u);
  }
  BOOST_TEST(get(metrics, "/metrics", 3s).find("m 1\n") != std::string::npos);
  release.store(true);
  stuck.join();
}

BOOST_AUTO_TEST_CASE(only_get_and_head_are_served) {
  TempFile ports;
  EndpointOptions o = options(1, 0, "", ports.path);
  auto served = serveEndpoints(
      o, [] { return std::string("m 1\n"); }, [] { return true; });
  BOOST_REQUIRE(served.has_value());
  BOOST_TEST(!served->health);
  const int fd = connectLoopback(served->metrics->port());
  BOOST_REQUIRE(fd >= 0);
  const std::string req = "DELETE /metrics HTTP/1.1\r\n\r\n";
  (void)!send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  char buf[512];
  const ssize_t n = recv(fd, buf, sizeof buf, 0);
  close(fd);
  BOOST_REQUIRE(n > 0);
  BOOST_TEST(std::string(buf, static_cast<size_t>(n)).rfind("HTTP/1.1 405", 0) == 0u);
}

// Clients that read a response to the end of the stream (as the endpoints always closed after
// one answer) get it without waiting for a keep-alive timeout.
BOOST_AUTO_TEST_CASE(every_answer_closes_the_connection) {
  TempFile ports;
  EndpointOptions o = options(0, 1, "", ports.path);
  auto served = serveEndpoints(
      o, [] { return std::string(); }, [] { return true; });
  BOOST_REQUIRE(served.has_value());
  const int fd = connectLoopback(served->health->port());
  BOOST_REQUIRE(fd >= 0);
  const std::string req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  (void)!send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string got;
  bool eof = false;
  char buf[512];
  for (int i = 0; i < 20 && !eof; ++i) {  // 2 s, well below the 5 s idle timeout
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    eof = n <= 0;
    if (n > 0) got.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  BOOST_TEST(eof);
  BOOST_TEST(got.find("Connection: close\r\n") != std::string::npos, got);
  BOOST_TEST(got.find("\r\n\r\nok\n") != std::string::npos, got);
}

BOOST_AUTO_TEST_SUITE_END()
