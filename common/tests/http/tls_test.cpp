// SPDX-License-Identifier: Apache-2.0
// HTTPS: requests over TLS, the certificate callback consulted at each handshake (rotation),
// and clients that connect but never finish (or never start) their handshake or their head.
#include <atomic>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/http/server.h"
#include "test_client.h"

using namespace ingot::http;
using namespace ingot::http::testing;

namespace {

const std::string kPost = "POST /hook HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}";

struct TlsServer {
  std::shared_ptr<std::string> cn = std::make_shared<std::string>("first");
  std::unique_ptr<Server> server;
  explicit TlsServer(ServerOptions o = {}) {
    o.address = "127.0.0.1";
    o.tls = serverContext(cn);
    o.max_body_bytes = 1024;
    auto s = Server::start(std::move(o), [](const Request& r) {
      return Response{200, "application/json", r.method + " " + r.path + " " + r.body};
    });
    BOOST_REQUIRE_MESSAGE(s.has_value(), (s.has_value() ? std::string() : s.error().message));
    server = std::move(*s);
  }
  int port() const { return server->port(); }
};

void expectTlsRequestsServed(int port) {
  for (int i = 0; i < 3; ++i) {
    const Reply r = tlsRoundTrip(port, kPost, kClientTimeout);
    BOOST_TEST(r.error.empty(), r.error);
    BOOST_TEST(r.body() == "POST /hook {}");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_tls)

// Each handshake asks the callback for the certificate: a rotated one serves the next
// connection without a restart.
BOOST_AUTO_TEST_CASE(requests_over_tls_use_the_certificate_current_at_the_handshake) {
  TlsServer s;
  std::string seen;
  Reply r = tlsRoundTrip(s.port(), kPost, kClientTimeout, &seen);
  BOOST_TEST(r.error.empty(), r.error);
  BOOST_TEST(r.status() == 200);
  BOOST_TEST(r.body() == "POST /hook {}");
  BOOST_TEST(seen == "first");
  *s.cn = "second";
  r = tlsRoundTrip(s.port(), kPost, kClientTimeout, &seen);
  BOOST_TEST(r.error.empty(), r.error);
  BOOST_TEST(seen == "second");
}

// Plain HTTP to the TLS port is not a handshake: the connection is closed, nothing answered.
BOOST_AUTO_TEST_CASE(plain_http_to_the_tls_port_is_closed) {
  TlsServer s;
  const Reply r = roundTrip(s.port(), "GET / HTTP/1.1\r\n\r\n", kClientTimeout);
  BOOST_TEST(r.text.find("200") == std::string::npos);
  BOOST_TEST(!r.error.empty());
  expectTlsRequestsServed(s.port());
}

// TCP connects that never start TLS wait in no queue: a real client is served meanwhile, and
// the handshake deadline closes them.
BOOST_AUTO_TEST_CASE(connections_that_never_start_tls_do_not_delay_others) {
  ServerOptions o;
  o.handshake_timeout = milliseconds(1500);
  TlsServer s(o);
  Sockets idle;
  for (int i = 0; i < 20 * kScale; ++i) {
    idle.fds.push_back(connectTo(s.port(), "127.0.0." + std::to_string(2 + i % 4)));
    BOOST_REQUIRE(idle.fds.back() >= 0);
  }
  expectTlsRequestsServed(s.port());
  for (const int fd : idle.fds) BOOST_TEST(closedByServer(fd, milliseconds(15000)));
}

// Slow loris over TLS: handshakes complete, then the head trickles in; the head deadline
// applies to the whole head, and others are served meanwhile.
BOOST_AUTO_TEST_CASE(trickled_heads_over_tls_do_not_delay_others) {
  ServerOptions o;
  o.head_timeout = milliseconds(1500);
  TlsServer s(o);
  struct Slow {
    int fd = -1;
    SSL* ssl = nullptr;
  };
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  std::vector<Slow> slow;
  for (int i = 0; i < 8 * kScale; ++i) {
    Slow c;
    c.fd = connectTo(s.port(), "127.0.0." + std::to_string(2 + i % 4));
    BOOST_REQUIRE(c.fd >= 0);
    c.ssl = SSL_new(ctx);
    SSL_set_fd(c.ssl, c.fd);
    BOOST_REQUIRE(SSL_connect(c.ssl) == 1);
    slow.push_back(c);
  }
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const std::string head = "POST /hook HTTP/1.1\r\nX-Slow: " + std::string(200, 'a');
    for (size_t b = 0; b < head.size() && !done.load(); ++b) {
      for (auto& c : slow) {
        if (c.ssl != nullptr && SSL_write(c.ssl, &head[b], 1) <= 0) {
          SSL_free(c.ssl);
          c.ssl = nullptr;
          ERR_clear_error();
        }
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
  });
  expectTlsRequestsServed(s.port());
  for (const auto& c : slow) BOOST_TEST(closedByServer(c.fd, milliseconds(15000)));
  done.store(true);
  trickle.join();
  for (auto& c : slow) {
    if (c.ssl != nullptr) SSL_free(c.ssl);
    close(c.fd);
  }
  SSL_CTX_free(ctx);
  BOOST_TEST(s.server->stats().timed_out >= static_cast<uint64_t>(8 * kScale));
}

BOOST_AUTO_TEST_SUITE_END()
