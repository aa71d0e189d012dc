// SPDX-License-Identifier: Apache-2.0
#include "common/http/listener.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <unistd.h>

namespace ingot::http {
namespace {

/// Endpoint is a socket address ready for bind().
struct Endpoint {
  sockaddr_storage ss{};
  socklen_t len = 0;
  int family = AF_INET6;
};

/// endpointFor parses address ("" = every interface, IPv6 dual-stack) and port.
Result<Endpoint> endpointFor(const std::string& address, int port) {
  Endpoint e;
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&e.ss);
  auto* v4 = reinterpret_cast<sockaddr_in*>(&e.ss);
  if (address.empty() || inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    if (address.empty()) v6->sin6_addr = in6addr_any;
    e.len = sizeof(sockaddr_in6);
    return e;
  }
  if (inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    e.family = AF_INET;
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    e.len = sizeof(sockaddr_in);
    return e;
  }
  return invalidArgument("listen " + address + ":" + std::to_string(port) + ": not an IP address");
}

/// anyIpv4 is every IPv4 interface, for hosts without IPv6.
Endpoint anyIpv4(int port) {
  Endpoint e;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&e.ss);
  e.family = AF_INET;
  v4->sin_family = AF_INET;
  v4->sin_port = htons(static_cast<uint16_t>(port));
  v4->sin_addr.s_addr = htonl(INADDR_ANY);
  e.len = sizeof(sockaddr_in);
  return e;
}

}  // namespace

Result<int> bindListener(const std::string& address, int port) {
  const std::string where =
      (address.empty() ? std::string("*") : address) + ":" + std::to_string(port);
  if (port < 0 || port > 65535) {
    return invalidArgument("listen " + where + ": port is out of range 0-65535");
  }
  auto endpoint = endpointFor(address, port);
  if (!endpoint) return endpoint.error();
  constexpr int kFlags = SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK;
  int fd = socket(endpoint->family, kFlags, 0);
  if (fd < 0 && address.empty()) {
    endpoint = anyIpv4(port);
    fd = socket(endpoint->family, kFlags, 0);
  }
  if (fd < 0) {
    return Error{ErrorCode::Unavailable, "listen " + where + ": " + std::strerror(errno)};
  }
  const int one = 1;
  const int zero = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (endpoint->family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  // SOMAXCONN: a burst of connects waits in the kernel for the loop to accept it, instead of
  // being refused while the loop is busy.
  if (bind(fd, reinterpret_cast<const sockaddr*>(&endpoint->ss), endpoint->len) != 0 ||
      listen(fd, SOMAXCONN) != 0) {
    Error e{ErrorCode::Unavailable, "listen " + where + ": " + std::strerror(errno)};
    close(fd);
    return e;
  }
  return fd;
}

int boundPort(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
}

std::string peerText(const sockaddr_storage& ss) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &v4->sin_addr, buf, sizeof buf);
    return buf;
  }
  if (ss.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
      inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], buf, sizeof buf);
    } else {
      inet_ntop(AF_INET6, &v6->sin6_addr, buf, sizeof buf);
    }
    return buf;
  }
  return "unknown";
}

}  // namespace ingot::http
