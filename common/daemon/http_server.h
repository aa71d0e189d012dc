// SPDX-License-Identifier: Apache-2.0
// A tiny blocking HTTP/1.1 responder on POSIX sockets for /metrics, /healthz and /readyz. It
// answers GET and HEAD, one connection at a time, closes every connection after one response,
// and bounds every read (size and time), so a slow or hostile client cannot wedge it for long.
// Not a general web server: no keep-alive, no request bodies, no TLS.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "common/util/result.h"

namespace ingot::daemon {

/// HttpRequest is the part of a request the handlers see.
struct HttpRequest {
  std::string method;  ///< "GET" or "HEAD" (others are answered 405 before the handler)
  std::string path;    ///< without the query string
};

/// HttpResponse is what a handler returns.
struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

/// kMaxRequestHeaderBytes bounds the request head the server reads.
inline constexpr size_t kMaxRequestHeaderBytes = 8192;

/// parseRequestHead parses the request line of an HTTP/1.x request head ("GET /path?x HTTP/1.1
/// ..."). Errors say what is malformed; the query string is dropped from the path.
Result<HttpRequest> parseRequestHead(std::string_view head);

/// renderResponse renders a complete HTTP/1.1 response with Content-Length and
/// "Connection: close"; for HEAD the body is omitted but its length is announced.
std::string renderResponse(const HttpResponse& response, bool head_only);

/// reasonPhrase returns the standard phrase for the status codes the server uses.
std::string_view reasonPhrase(int status);

/// HttpServer serves one handler on address:port from its own thread.
class HttpServer {
 public:
  /// start binds and listens (address "" = every interface, IPv6 and IPv4; port 0 = any free
  /// port) and starts serving. Errors name the address and the reason (e.g. port in use).
  static Result<std::unique_ptr<HttpServer>> start(const std::string& address,
                                                   int port,
                                                   HttpHandler handler);
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// port returns the bound port (the chosen one when started with 0).
  int port() const { return port_; }

  /// stop closes the listener and joins the serving thread; idempotent.
  void stop();

 private:
  HttpServer(int listen_fd, int wake_fd, int port, HttpHandler handler);
  void serve(const std::stop_token& stop);
  void handleConnection(int fd);

  int listen_fd_ = -1;
  int wake_fd_ = -1;  ///< eventfd that interrupts poll() on stop
  int port_ = 0;
  HttpHandler handler_;
  std::jthread thread_;
};

}  // namespace ingot::daemon
