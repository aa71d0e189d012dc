// SPDX-License-Identifier: Apache-2.0
// Raw loopback clients for the server tests: well-behaved requests with a client timeout (the
// pass criterion), and the misbehaving connections the server must survive. Clients can bind a
// source address in 127.0.0.0/8 so that "another client" is another address on loopback.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

struct ssl_ctx_st;

namespace ingot::http::testing {

using std::chrono::milliseconds;

/// kScale multiplies the abuse tests' probe counts (raise it to stress a fast machine).
inline constexpr int kScale = 1;
/// kClientTimeout is a normal request's own timeout: the pass criterion under abuse.
inline constexpr milliseconds kClientTimeout{3000};

/// Sockets closes every descriptor it holds.
struct Sockets {
  std::vector<int> fds;
  Sockets() = default;
  Sockets(const Sockets&) = delete;
  Sockets& operator=(const Sockets&) = delete;
  ~Sockets();
};

/// Reply is one exchange's outcome: the bytes answered, or why there are none.
struct Reply {
  std::string text;   ///< the whole response (head and body)
  std::string error;  ///< "" when a complete response arrived within the timeout
  int status() const;
  std::string body() const;
};

/// connectTo opens a blocking TCP connection to 127.0.0.1:port from source; -1 on failure.
int connectTo(int port, const std::string& source = "127.0.0.1");

/// roundTrip sends request on a new connection and reads one complete response (by its
/// Content-Length), all within timeout.
Reply roundTrip(int port,
                const std::string& request,
                milliseconds timeout,
                const std::string& source = "127.0.0.1");

/// exchange sends request, shuts the write side and reads until the server closes.
std::string exchange(int port, const std::string& request);

/// closedByServer waits up to timeout for the server to close fd (end of stream or reset).
bool closedByServer(int fd, milliseconds timeout);

/// serverContext returns a TLS server context whose certificate (self-signed, EC P-256, CN
/// common_name) is installed by a certificate callback reading *current (so tests can rotate).
std::shared_ptr<ssl_ctx_st> serverContext(const std::shared_ptr<std::string>& current_cn);

/// tlsRoundTrip is roundTrip over TLS (no verification); peer_cn receives the server
/// certificate's common name.
Reply tlsRoundTrip(int port,
                   const std::string& request,
                   milliseconds timeout,
                   std::string* peer_cn = nullptr);

}  // namespace ingot::http::testing
