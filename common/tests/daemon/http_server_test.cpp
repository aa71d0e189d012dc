// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

using namespace ingot::daemon;

namespace {

/// exchange sends raw bytes to 127.0.0.1:port and returns everything the server answers.
std::string exchange(int port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return "connect failed";
  }
  (void)!send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  shutdown(fd, SHUT_WR);
  std::string out;
  char buf[1024];
  ssize_t n = 0;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_server)

BOOST_AUTO_TEST_CASE(request_heads_are_parsed_or_rejected_with_a_reason) {
  struct Case {
    std::string desc;
    std::string head;
    bool ok;
    std::string method;
    std::string path;
  };
  const std::vector<Case> cases = {
      {"simple GET", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", true, "GET", "/metrics"},
      {"query string dropped", "HEAD /readyz?verbose=1 HTTP/1.0\r\n\r\n", true, "HEAD", "/readyz"},
      {"bare newlines accepted", "GET /healthz HTTP/1.1\n\n", true, "GET", "/healthz"},
      {"no version", "GET /x\r\n\r\n", false, "", ""},
      {"not HTTP", "GET /x SPDY/3\r\n\r\n", false, "", ""},
      {"absolute target", "GET http://x/ HTTP/1.1\r\n\r\n", false, "", ""},
      {"incomplete line", "GET /x HTTP/1.1", false, "", ""},
      {"empty", "", false, "", ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = parseRequestHead(c.head);
      BOOST_TEST(r.has_value() == c.ok);
      if (c.ok && r) {
        BOOST_TEST(r->method == c.method);
        BOOST_TEST(r->path == c.path);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(responses_carry_length_and_close_and_head_has_no_body) {
  const HttpResponse r{503, "text/plain", "not ready\n"};
  BOOST_TEST(renderResponse(r, false) ==
             "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: "
             "10\r\nConnection: close\r\n\r\nnot ready\n");
  BOOST_TEST(renderResponse(r, true).find("not ready") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(server_answers_handler_responses_and_rejects_bad_requests) {
  auto server = HttpServer::start("127.0.0.1", 0, [](const HttpRequest& r) {
    if (r.path == "/ok") return HttpResponse{200, "text/plain", "fine\n"};
    return HttpResponse{404, "text/plain", "nope\n"};
  });
  BOOST_REQUIRE_MESSAGE(server.has_value(),
                        (server.has_value() ? std::string() : server.error().message));
  const int port = (*server)->port();
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
      {"other methods", "POST /ok HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed", ""},
      {"garbage", "hello\r\n\r\n", "HTTP/1.1 400 Bad Request", ""},
      {"HEAD has headers only", "HEAD /ok HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK", ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const std::string reply = exchange(port, c.request);
      BOOST_TEST(reply.rfind(c.status_line + "\r\n", 0) == 0u, reply);
      if (!c.body.empty()) BOOST_TEST(reply.substr(reply.find("\r\n\r\n") + 4) == c.body);
    }
  }
  (*server)->stop();
  BOOST_TEST(exchange(port, "GET /ok HTTP/1.1\r\n\r\n") == "connect failed");
}

BOOST_AUTO_TEST_CASE(binding_a_port_in_use_fails_with_the_address) {
  auto first = HttpServer::start("127.0.0.1", 0, [](const HttpRequest&) { return HttpResponse{}; });
  BOOST_REQUIRE(first.has_value());
  auto second = HttpServer::start("127.0.0.1", (*first)->port(),
                                  [](const HttpRequest&) { return HttpResponse{}; });
  BOOST_REQUIRE(!second.has_value());
  BOOST_TEST(second.error().message.find("127.0.0.1:" + std::to_string((*first)->port())) !=
             std::string::npos);
  auto bad = HttpServer::start("not-an-ip", 0, [](const HttpRequest&) { return HttpResponse{}; });
  BOOST_TEST(!bad.has_value());
}

BOOST_AUTO_TEST_SUITE_END()
