// SPDX-License-Identifier: Apache-2.0
#include "common/http/message.h"

#include <boost/test/unit_test.hpp>

using namespace ingot::http;

BOOST_AUTO_TEST_SUITE(http_message)

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
        BOOST_TEST(r->request.method == c.method);
        BOOST_TEST(r->request.path == c.path);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(heads_give_framing_keep_alive_or_the_status_that_refuses_them) {
  struct Case {
    std::string desc;
    std::string head;
    int refusal;  // 0 = accepted
    size_t length;
    bool keep_alive;
    bool expect;
  };
  const std::vector<Case> cases = {
      {"1.1 keeps alive by default", "GET / HTTP/1.1\r\n\r\n", 0, 0, true, false},
      {"1.1 close", "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 0, 0, false, false},
      {"1.0 closes by default", "GET / HTTP/1.0\r\n\r\n", 0, 0, false, false},
      {"1.0 keep-alive asked", "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", 0, 0, true,
       false},
      {"content length", "POST /v HTTP/1.1\r\ncontent-length: 42\r\n\r\n", 0, 42, true, false},
      {"same length twice", "POST /v HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 4\r\n\r\n", 0,
       4, true, false},
      {"100-continue", "POST /v HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n", 0,
       4, true, true},
      {"conflicting lengths", "POST / HTTP/1.1\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n",
       400, 0, false, false},
      {"negative length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, 0, false, false},
      {"huge length", "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 400, 0,
       false, false},
      {"chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411, 0, false, false},
      {"header without colon", "GET / HTTP/1.1\r\nnonsense\r\n\r\n", 400, 0, false, false},
      {"space in header name", "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400, 0, false, false},
      {"folded header", "GET / HTTP/1.1\r\nA: b\r\n  c\r\n\r\n", 400, 0, false, false},
      {"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\n", 505, 0, false, false},
      {"HTTP/2 version", "GET / HTTP/2.0\r\n\r\n", 505, 0, false, false},
      {"other expectation", "POST / HTTP/1.1\r\nExpect: magic\r\n\r\n", 417, 0, false, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto parsed = parseHead(c.head);
      if (c.refusal != 0) {
        BOOST_REQUIRE(std::holds_alternative<HeadError>(parsed));
        BOOST_TEST(std::get<HeadError>(parsed).status == c.refusal);
        BOOST_TEST(!std::get<HeadError>(parsed).message.empty());
        continue;
      }
      BOOST_REQUIRE(std::holds_alternative<Head>(parsed));
      const Head& h = std::get<Head>(parsed);
      BOOST_TEST(h.content_length == c.length);
      BOOST_TEST(h.keep_alive == c.keep_alive);
      BOOST_TEST(h.expect_continue == c.expect);
    }
  }
}

BOOST_AUTO_TEST_CASE(headers_are_kept_with_lower_case_names) {
  auto parsed = parseRequestHead("POST /x HTTP/1.1\r\nContent-Type:  application/json \r\n\r\n");
  BOOST_REQUIRE(parsed.has_value());
  const std::string* type = parsed->request.header("content-type");
  BOOST_REQUIRE(type != nullptr);
  BOOST_TEST(*type == "application/json");
  BOOST_TEST(parsed->request.header("accept") == nullptr);
}

BOOST_AUTO_TEST_CASE(head_length_finds_the_blank_line) {
  const std::vector<std::pair<std::string, size_t>> cases = {
      {"GET / HTTP/1.1\r\n\r\nbody", 18},
      {"GET / HTTP/1.1\n\nbody", 16},
      {"GET / HTTP/1.1\r\nHost: x\r\n", 0},
      {"", 0},
  };
  for (const auto& [text, want] : cases) {
    BOOST_TEST_CONTEXT(text) {
      BOOST_TEST(headLength(text) == want);
    }
  }
}

BOOST_AUTO_TEST_CASE(responses_carry_length_and_connection_and_head_has_no_body) {
  const Response r{503, "text/plain", "not ready\n"};
  BOOST_TEST(renderResponse(r, false) ==
             "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: "
             "10\r\nConnection: close\r\n\r\nnot ready\n");
  BOOST_TEST(renderResponse(r, true).find("not ready") == std::string::npos);
  BOOST_TEST(renderResponse(r, true).find("Content-Length: 10\r\n") != std::string::npos);
  BOOST_TEST(renderResponse(r, false, true).find("Connection: keep-alive\r\n") !=
             std::string::npos);
  BOOST_TEST(renderResponse({431, "text/plain", ""}, false)
                 .rfind("HTTP/1.1 431 Request Header Fields Too Large\r\n", 0) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
