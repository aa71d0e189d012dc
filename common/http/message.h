// SPDX-License-Identifier: Apache-2.0
// HTTP/1.1 messages as the server sees them: the parsed request head (request line, headers,
// body framing, keep-alive) and the rendered response. Pure functions on text, so every rule is
// table-tested without a socket.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/util/result.h"

namespace ingot::http {

/// Request is what a handler sees.
struct Request {
  std::string method;                                        ///< as sent ("GET", "POST", ...)
  std::string path;                                          ///< without the query string
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower-cased
  std::string body;
  std::string peer;  ///< the client's address

  /// header returns the first value of the header name (lower case), or nullptr.
  const std::string* header(std::string_view name) const;
};

/// Response is what a handler returns.
struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

/// Head is a parsed request head with its body framing.
struct Head {
  Request request;               ///< without body and peer
  size_t content_length = 0;     ///< bytes of body that follow the head
  bool keep_alive = true;        ///< HTTP/1.1 unless "Connection: close"; HTTP/1.0 only if asked
  bool expect_continue = false;  ///< "Expect: 100-continue"
};

/// HeadError says how a head was refused: the status to answer and why.
struct HeadError {
  int status = 400;
  std::string message;
};

/// headLength returns the length of the head at the start of buf, its blank line included
/// ("\r\n\r\n" or a bare "\n\n"), or 0 while the blank line has not arrived.
size_t headLength(std::string_view buf);

/// parseHead parses a complete request head. Refusals: 400 (malformed request line, header or
/// Content-Length), 411 (Transfer-Encoding: bodies must carry a Content-Length), 505 (not
/// HTTP/1.x). The query string is dropped from the path.
std::variant<Head, HeadError> parseHead(std::string_view head);

/// parseRequestHead is parseHead with refusals as errors (for callers that need no status).
Result<Head> parseRequestHead(std::string_view head);

/// renderResponse renders a complete HTTP/1.1 response with Content-Length and a Connection
/// header; for HEAD the body is omitted but its length is announced.
std::string renderResponse(const Response& response, bool head_only, bool keep_alive = false);

/// reasonPhrase returns the standard phrase for the status codes the server uses.
std::string_view reasonPhrase(int status);

}  // namespace ingot::http
