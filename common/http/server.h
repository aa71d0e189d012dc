// SPDX-License-Identifier: Apache-2.0
// The daemons' one HTTP/1.1 server (plain or TLS): /metrics and the health endpoints of every
// daemon, and the controller's webhooks. One thread runs an epoll loop over non-blocking sockets:
// it accepts, runs TLS handshakes (OpenSSL's non-blocking SSL_do_handshake/SSL_read/SSL_write),
// reads request heads and bodies and writes responses, so a slow or silent client costs a buffer,
// never a thread. Complete requests go to the handler, on a small pool of worker threads (or on
// the loop itself for handlers that never block). Every phase has a deadline for the whole phase
// (handshake, head, whole request, response write), connections are capped per client address
// and in total (the excess is closed at once), and oversized or malformed requests are refused
// (431, 413, 400) before any handler runs.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/http/message.h"
#include "common/util/result.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX

namespace ingot::http {

using Handler = std::function<Response(const Request&)>;

/// ServerOptions say where the server listens and bound what one client may cost.
struct ServerOptions {
  std::string address;  ///< "" = every interface (IPv6 and IPv4)
  int port = 0;         ///< 0 = any free port
  /// tls, when set, makes the server speak HTTPS with this context (its certificate callback is
  /// consulted at each handshake, so a rotated certificate applies to the next connection).
  std::shared_ptr<ssl_ctx_st> tls;
  size_t max_head_bytes = 8192;                       ///< larger request heads get 431
  size_t max_body_bytes = 0;                          ///< larger bodies get 413 (0 = no bodies)
  std::chrono::milliseconds handshake_timeout{5000};  ///< accept → TLS handshake done
  std::chrono::milliseconds head_timeout{5000};  ///< ready for a request → its head read (also
                                                 ///< bounds an idle keep-alive connection)
  std::chrono::milliseconds request_timeout{10000};  ///< ready for a request → head and body read
  std::chrono::milliseconds write_timeout{10000};    ///< response ready → written
  size_t max_connections = 512;                      ///< open connections in total
  size_t max_connections_per_client = 64;            ///< open connections from one address
  size_t max_requests_per_connection = 100;
  /// workers run the handler; 0 runs it on the loop thread (only for handlers that never block).
  int workers = 1;
};

/// ServerStats count what the server refused or timed out (for tests and figures).
struct ServerStats {
  uint64_t accepted = 0;
  uint64_t refused = 0;  ///< closed at accept: the client had too many, or all were busy
  uint64_t evicted = 0;  ///< closed to make room: the oldest connection still waiting for a request
  uint64_t timed_out = 0;
  uint64_t requests = 0;  ///< requests handed to the handler
  size_t open = 0;        ///< connections open now
};

/// Server serves one handler on address:port until stopped.
class Server {
 public:
  /// start binds and listens (errors name address:port and the reason) and starts serving.
  static Result<std::unique_ptr<Server>> start(ServerOptions options, Handler handler);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// port returns the bound port (the chosen one when started with 0).
  int port() const;
  /// stats returns the counters so far.
  ServerStats stats() const;
  /// stop closes the listener and every connection and joins the threads; idempotent.
  void stop();

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ingot::http
