// SPDX-License-Identifier: Apache-2.0
// The server's ordinary behaviour on real loopback sockets: handler answers, framing, keep-alive,
// bodies, refusals of bad requests, binding errors.
#include "common/http/server.h"

#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "test_client.h"

using namespace ingot::http;
using namespace ingot::http::testing;

namespace {

std::unique_ptr<Server> serve(ServerOptions o, Handler h) {
  o.address = "127.0.0.1";
  auto s = Server::start(std::move(o), std::move(h));
  BOOST_REQUIRE_MESSAGE(s.has_value(), (s.has_value() ? std::string() : s.error().message));
  return std::move(*s);
}

ServerOptions at(const std::string& address, int port) {
  ServerOptions o;
  o.address = address;
  o.port = port;
  return o;
}

Response echo(const Request& r) {
  if (r.path == "/ok") return Response{200, "text/plain", "fine\n"};
  if (r.path == "/echo") return Response{200, "text/plain", r.method + " " + r.body};
  if (r.path == "/throw") throw std::runtime_error("boom");
  return Response{404, "text/plain", "nope\n"};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_server)

BOOST_AUTO_TEST_CASE(server_answers_handler_responses_and_rejects_bad_requests) {
  for (const int workers : {0, 2}) {
    ServerOptions o;
    o.workers = workers;
    o.max_body_bytes = 16;
    auto server = serve(o, echo);
    const int port = server->port();
    BOOST_REQUIRE(port > 0);
    struct Case {
      std::string desc;
      std::string request;
      std::string status_line;
      std::string body;
    };
    const std::vector<Case> cases = {
        {"known path", "GET /ok HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK", "fine\n"},
        {"unknown path", "GET /x HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found", "nope\n"},
        {"body delivered", "POST /echo HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
         "HTTP/1.1 200 OK", "POST hello"},
        {"garbage", "hello\r\n\r\n", "HTTP/1.1 400 Bad Request", ""},
        {"HEAD has headers only", "HEAD /ok HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK", ""},
        {"body too large", "POST /echo HTTP/1.1\r\nContent-Length: 17\r\n\r\n",
         "HTTP/1.1 413 Content Too Large", ""},
        {"chunked refused", "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
         "HTTP/1.1 411 Length Required", ""},
        {"handler exception", "GET /throw HTTP/1.1\r\n\r\n", "HTTP/1.1 500 Internal Server Error",
         "internal error: boom\n"},
    };
    for (const auto& c : cases) {
      BOOST_TEST_CONTEXT(c.desc << ", workers " << workers) {
        const std::string reply = exchange(port, c.request);
        BOOST_TEST(reply.rfind(c.status_line + "\r\n", 0) == 0u, reply);
        if (!c.body.empty()) BOOST_TEST(reply.substr(reply.find("\r\n\r\n") + 4) == c.body);
      }
    }
    server->stop();
    BOOST_TEST(exchange(port, "GET /ok HTTP/1.1\r\n\r\n") == "connect failed");
  }
}

// A keep-alive connection carries several requests, pipelined ones included, and each answer
// says whether the connection stays open.
BOOST_AUTO_TEST_CASE(keep_alive_connections_serve_pipelined_requests_in_order) {
  ServerOptions o;
  o.max_body_bytes = 64;
  auto server = serve(o, echo);
  const std::string two =
      "POST /echo HTTP/1.1\r\nContent-Length: 3\r\n\r\none"
      "POST /echo HTTP/1.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\ntwo";
  const std::string reply = exchange(server->port(), two);
  const size_t first = reply.find("POST one");
  const size_t second = reply.find("POST two");
  BOOST_TEST(first != std::string::npos, reply);
  BOOST_TEST(second != std::string::npos, reply);
  BOOST_TEST(first < second);
  BOOST_TEST(reply.find("Connection: keep-alive") < first);
  BOOST_TEST(reply.find("Connection: close") > first);
}

// After max_requests_per_connection answers the server closes the connection.
BOOST_AUTO_TEST_CASE(keep_alive_is_bounded_by_requests_per_connection) {
  ServerOptions o;
  o.max_requests_per_connection = 2;
  auto server = serve(o, echo);
  std::string three;
  for (int i = 0; i < 3; ++i) three += "GET /ok HTTP/1.1\r\n\r\n";
  const int fd = connectTo(server->port());
  BOOST_REQUIRE(fd >= 0);
  (void)!send(fd, three.data(), three.size(), MSG_NOSIGNAL);
  std::string got;
  char buf[4096];
  ssize_t n = 0;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) got.append(buf, static_cast<size_t>(n));
  close(fd);
  size_t answers = 0;
  for (size_t p = got.find("HTTP/1.1 200"); p != std::string::npos;
       p = got.find("HTTP/1.1 200", p + 1)) {
    ++answers;
  }
  BOOST_TEST(answers == 2u, got);
}

BOOST_AUTO_TEST_CASE(expect_continue_gets_an_interim_response_before_the_body) {
  ServerOptions o;
  o.max_body_bytes = 64;
  auto server = serve(o, echo);
  const int fd = connectTo(server->port());
  BOOST_REQUIRE(fd >= 0);
  const std::string head =
      "POST /echo HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n";
  (void)!send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  char buf[256];
  const ssize_t n = recv(fd, buf, sizeof buf, 0);
  BOOST_REQUIRE(n > 0);
  BOOST_TEST(std::string(buf, static_cast<size_t>(n)) == "HTTP/1.1 100 Continue\r\n\r\n");
  (void)!send(fd, "body", 4, MSG_NOSIGNAL);
  const ssize_t m = recv(fd, buf, sizeof buf, 0);
  BOOST_REQUIRE(m > 0);
  BOOST_TEST(std::string(buf, static_cast<size_t>(m)).find("POST body") != std::string::npos);
  close(fd);
}

BOOST_AUTO_TEST_CASE(binding_a_port_in_use_fails_with_the_address) {
  auto first = Server::start(at("127.0.0.1", 0), echo);
  BOOST_REQUIRE(first.has_value());
  auto second = Server::start(at("127.0.0.1", (*first)->port()), echo);
  BOOST_REQUIRE(!second.has_value());
  BOOST_TEST(second.error().message.find("127.0.0.1:" + std::to_string((*first)->port())) !=
             std::string::npos);
  BOOST_TEST(!Server::start(at("not-an-ip", 0), echo).has_value());
  BOOST_TEST(!Server::start(at("127.0.0.1", 70000), echo).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
