// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/http_server.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ingot::daemon {
namespace {

constexpr int kReadTimeoutMs = 2000;
constexpr int kListenBacklog = 16;

std::string errnoText() {
  return std::strerror(errno);
}

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

/// bindListener binds a listening socket to address:port; address "" means every interface
/// (a dual-stack IPv6 socket, falling back to IPv4 when the host has no IPv6).
Result<int> bindListener(const std::string& address, int port) {
  const std::string where =
      (address.empty() ? std::string("*") : address) + ":" + std::to_string(port);
  auto endpoint = endpointFor(address, port);
  if (!endpoint) return endpoint.error();
  int fd = socket(endpoint->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 && address.empty()) {
    endpoint = anyIpv4(port);
    fd = socket(endpoint->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  }
  if (fd < 0) return Error{ErrorCode::Unavailable, "listen " + where + ": " + errnoText()};
  const int one = 1;
  const int zero = 0;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (endpoint->family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&endpoint->ss), endpoint->len) != 0 ||
      listen(fd, kListenBacklog) != 0) {
    Error e{ErrorCode::Unavailable, "listen " + where + ": " + errnoText()};
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

/// readHead reads until the blank line that ends a request head, the size limit or the timeout.
std::string readHead(int fd) {
  std::string head;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kReadTimeoutMs);
  char buf[1024];
  while (head.size() < kMaxRequestHeaderBytes && head.find("\r\n\r\n") == std::string::npos &&
         head.find("\n\n") == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    head.append(buf, static_cast<size_t>(n));
  }
  return head;
}

void writeAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

}  // namespace

Result<HttpRequest> parseRequestHead(std::string_view head) {
  const size_t eol = head.find('\n');
  if (eol == std::string_view::npos) return invalidArgument("request line is incomplete");
  std::string_view line = head.substr(0, eol);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || sp1 == 0 ||
      sp2 == sp1 + 1) {
    return invalidArgument("request line must be \"METHOD PATH HTTP/1.x\"");
  }
  const std::string_view version = line.substr(sp2 + 1);
  if (version.rfind("HTTP/1.", 0) != 0) {
    return invalidArgument("unsupported protocol \"" + std::string(version) + "\"");
  }
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (target.front() != '/') return invalidArgument("request target must start with /");
  if (const size_t q = target.find_first_of("?#"); q != std::string_view::npos) {
    target = target.substr(0, q);
  }
  return HttpRequest{std::string(line.substr(0, sp1)), std::string(target)};
}

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string renderResponse(const HttpResponse& response, bool head_only) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                    std::string(reasonPhrase(response.status)) + "\r\n";
  out += "Content-Type: " + response.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  out += "Connection: close\r\n\r\n";
  if (!head_only) out += response.body;
  return out;
}

Result<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& address,
                                                      int port,
                                                      HttpHandler handler) {
  if (port < 0 || port > 65535) {
    return invalidArgument("listen port " + std::to_string(port) + " is out of range 0-65535");
  }
  auto fd = bindListener(address, port);
  if (!fd) return fd.error();
  const int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    close(*fd);
    return Error{ErrorCode::Unavailable, "eventfd: " + errnoText()};
  }
  std::unique_ptr<HttpServer> server(new HttpServer(*fd, wake, boundPort(*fd), std::move(handler)));
  server->thread_ = std::jthread([s = server.get()](std::stop_token stop) { s->serve(stop); });
  return server;
}

HttpServer::HttpServer(int listen_fd, int wake_fd, int port, HttpHandler handler)
    : listen_fd_(listen_fd), wake_fd_(wake_fd), port_(port), handler_(std::move(handler)) {}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof one);
    thread_.join();
  }
  if (listen_fd_ >= 0) close(listen_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
  listen_fd_ = wake_fd_ = -1;
}

void HttpServer::serve(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0 || stop.stop_requested()) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int conn = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (conn < 0) continue;
    handleConnection(conn);
    close(conn);
  }
}

void HttpServer::handleConnection(int fd) {
  const std::string head = readHead(fd);
  auto request = parseRequestHead(head);
  HttpResponse response;
  bool head_only = false;
  if (!request) {
    response = {400, "text/plain; charset=utf-8", request.error().message + "\n"};
  } else if (request->method != "GET" && request->method != "HEAD") {
    response = {405, "text/plain; charset=utf-8", "only GET and HEAD are supported\n"};
  } else {
    head_only = request->method == "HEAD";
    response = handler_(*request);
  }
  writeAll(fd, renderResponse(response, head_only));
}

}  // namespace ingot::daemon
