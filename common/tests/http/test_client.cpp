// SPDX-License-Identifier: Apache-2.0
#include "test_client.h"

#include <arpa/inet.h>
#include <map>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace ingot::http::testing {
namespace {

using Clock = std::chrono::steady_clock;

sockaddr_in loopback(const std::string& ip, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip.c_str(), &a.sin_addr);
  return a;
}

/// complete reports whether text holds a whole response (head and Content-Length body).
bool complete(const std::string& text) {
  const size_t end = text.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  const std::string head = text.substr(0, end);
  size_t length = 0;
  if (const size_t p = head.find("Content-Length: "); p != std::string::npos) {
    length = std::stoul(head.substr(p + 16));
  }
  if (head.rfind("HTTP/1.1 100 ", 0) == 0) return complete(text.substr(end + 4));
  return text.size() >= end + 4 + length;
}

int remainingMs(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

void setTimeout(int fd, milliseconds timeout) {
  timeval tv{static_cast<time_t>(timeout.count() / 1000),
             static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/// CertState holds the certificates the callback has made, by common name.
struct CertState {
  std::shared_ptr<std::string> current;
  std::mutex mu;
  std::map<std::string, std::pair<X509*, EVP_PKEY*>> made;
  ~CertState() {
    for (auto& [cn, pair] : made) {
      X509_free(pair.first);
      EVP_PKEY_free(pair.second);
    }
  }
};

std::pair<X509*, EVP_PKEY*> selfSigned(const std::string& cn) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509_set_pubkey(cert, key);
  X509_sign(cert, key, EVP_sha256());
  return {cert, key};
}

int useCurrent(SSL* ssl, void* arg) {
  auto* state = static_cast<CertState*>(arg);
  std::lock_guard lock(state->mu);
  const std::string cn = *state->current;
  auto it = state->made.find(cn);
  if (it == state->made.end()) it = state->made.emplace(cn, selfSigned(cn)).first;
  return SSL_use_certificate(ssl, it->second.first) == 1 &&
                 SSL_use_PrivateKey(ssl, it->second.second) == 1
             ? 1
             : 0;
}

}  // namespace

Sockets::~Sockets() {
  for (const int fd : fds) close(fd);
}

int Reply::status() const {
  if (text.size() < 12 || text.rfind("HTTP/1.", 0) != 0) return 0;
  return std::stoi(text.substr(9, 3));
}

std::string Reply::body() const {
  const size_t end = text.find("\r\n\r\n");
  return end == std::string::npos ? "" : text.substr(end + 4);
}

int connectTo(int port, const std::string& source) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const sockaddr_in from = loopback(source, 0);
  const sockaddr_in to = loopback("127.0.0.1", port);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&from), sizeof from) != 0 ||
      connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

Reply roundTrip(int port,
                const std::string& request,
                milliseconds timeout,
                const std::string& source) {
  const auto deadline = Clock::now() + timeout;
  Reply reply;
  const int fd = connectTo(port, source);
  if (fd < 0) return {"", "connect failed"};
  setTimeout(fd, timeout);
  if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(request.size())) {
    reply.error = "send failed";
  }
  char buf[4096];
  while (reply.error.empty() && !complete(reply.text)) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, remainingMs(deadline)) <= 0) {
      reply.error = "no complete response within " + std::to_string(timeout.count()) + " ms";
      break;
    }
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      reply.error = "connection closed before a complete response";
      break;
    }
    reply.text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return reply;
}

std::string exchange(int port, const std::string& request) {
  const int fd = connectTo(port);
  if (fd < 0) return "connect failed";
  setTimeout(fd, milliseconds(5000));
  (void)!send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  shutdown(fd, SHUT_WR);
  std::string out;
  char buf[1024];
  ssize_t n = 0;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

bool closedByServer(int fd, milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  char buf[1024];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, remainingMs(deadline)) <= 0) return false;
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return true;
  }
}

std::shared_ptr<ssl_ctx_st> serverContext(const std::shared_ptr<std::string>& current_cn) {
  auto state = std::make_shared<CertState>();
  state->current = current_cn;
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  SSL_CTX_set_cert_cb(ctx, useCurrent, state.get());
  return {ctx, [state](SSL_CTX* c) { SSL_CTX_free(c); }};
}

Reply tlsRoundTrip(int port,
                   const std::string& request,
                   milliseconds timeout,
                   std::string* peer_cn) {
  const auto started = Clock::now();
  Reply reply;
  const int fd = connectTo(port);
  if (fd < 0) return {"", "connect failed"};
  setTimeout(fd, timeout);
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_connect(ssl) != 1) {
    reply.error = "TLS handshake failed";
  } else {
    if (peer_cn != nullptr) {
      X509* cert = SSL_get1_peer_certificate(ssl);
      char cn[256] = {};
      X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, cn, sizeof cn);
      *peer_cn = cn;
      X509_free(cert);
    }
    if (SSL_write(ssl, request.data(), static_cast<int>(request.size())) <= 0) {
      reply.error = "TLS write failed";
    }
  }
  char buf[4096];
  while (reply.error.empty() && !complete(reply.text)) {
    const int n = SSL_read(ssl, buf, sizeof buf);
    if (n <= 0) {
      reply.error = "no complete response (closed or timed out)";
      break;
    }
    reply.text.append(buf, static_cast<size_t>(n));
  }
  if (reply.error.empty() && Clock::now() - started > timeout) {
    reply.error = "response took longer than the client timeout";
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ERR_clear_error();
  close(fd);
  return reply;
}

}  // namespace ingot::http::testing
