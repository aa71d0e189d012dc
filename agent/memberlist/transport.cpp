// SPDX-License-Identifier: Apache-2.0
// Node: binding, the poll loop, UDP datagrams and command hand-off. TCP streams are in
// connections.cpp.
#include "agent/memberlist/transport.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/memberlist/transport_internal.h"

namespace ingot::agent::memberlist {

namespace {

constexpr size_t kMaxDatagram = 65536;
constexpr int kDatagramsPerWake = 64;  // keeps a flood from starving timers and streams

}  // namespace

Result<Endpoint> parseHostPort(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 >= text.size()) {
    return invalidArgument("memberlist seed \"" + text + "\": expected host:port");
  }
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  char* end = nullptr;
  const unsigned long port = std::strtoul(text.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port == 0 || port > 65535) {
    return invalidArgument("memberlist seed \"" + text + "\": bad port");
  }
  Endpoint e;
  e.port = static_cast<uint16_t>(port);
  uint8_t buf[16];
  if (inet_pton(AF_INET, host.c_str(), buf) == 1) {
    e.ip.assign(buf, buf + 4);
  } else if (inet_pton(AF_INET6, host.c_str(), buf) == 1) {
    e.ip.assign(buf, buf + 16);
  } else {
    return invalidArgument("memberlist seed \"" + text + "\": host is not an IP address");
  }
  return e;
}

socklen_t toSockaddr(const Endpoint& e, int family, sockaddr_storage& ss) {
  std::memset(&ss, 0, sizeof(ss));
  Bytes ip = e.ip;
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (family == AF_INET && ip.size() == 16 && std::equal(kMapped, kMapped + 12, ip.begin())) {
    ip.erase(ip.begin(), ip.begin() + 12);
  }
  if (family == AF_INET && ip.size() == 4) {
    auto* sin = reinterpret_cast<sockaddr_in*>(&ss);
    sin->sin_family = AF_INET;
    sin->sin_port = htons(e.port);
    std::memcpy(&sin->sin_addr, ip.data(), 4);
    return sizeof(sockaddr_in);
  }
  if (family == AF_INET6 && ip.size() == 16) {
    auto* sin6 = reinterpret_cast<sockaddr_in6*>(&ss);
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(e.port);
    std::memcpy(&sin6->sin6_addr, ip.data(), 16);
    return sizeof(sockaddr_in6);
  }
  return 0;
}

Endpoint fromSockaddr(const sockaddr_storage& ss) {
  Endpoint e;
  if (ss.ss_family == AF_INET) {
    const auto* sin = reinterpret_cast<const sockaddr_in*>(&ss);
    const auto* b = reinterpret_cast<const uint8_t*>(&sin->sin_addr);
    e.ip.assign(b, b + 4);
    e.port = ntohs(sin->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    const auto* b = reinterpret_cast<const uint8_t*>(&sin6->sin6_addr);
    e.ip.assign(b, b + 16);
    e.port = ntohs(sin6->sin6_port);
  }
  return e;
}

std::string endpointText(const Endpoint& e) {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(e.ip.size() == 4 ? AF_INET : AF_INET6, e.ip.data(), buf, sizeof(buf));
  return std::string(buf) + ":" + std::to_string(e.port);
}

Node::Node(TransportConfig cfg, log::Logger* logger, EventFn on_event)
    : cfg_(std::move(cfg)), logger_(logger), on_event_(std::move(on_event)) {}

Result<std::unique_ptr<Node>> Node::start(TransportConfig cfg,
                                          log::Logger* logger,
                                          EventFn on_event) {
  if (cfg.meta.size() > kMaxMetaLength) {
    return Error{ErrorCode::InvalidArgument,
                 "memberlist metadata is " + std::to_string(cfg.meta.size()) +
                     " bytes, more than the limit of " + std::to_string(kMaxMetaLength)};
  }
  std::unique_ptr<Node> node(new Node(std::move(cfg), logger, std::move(on_event)));
  auto bound = node->bind();
  if (!bound) {
    return bound.error();
  }
  const TimePoint now = Clock::now();
  const uint32_t seed = node->cfg_.seed != 0
                            ? node->cfg_.seed
                            : static_cast<uint32_t>(now.time_since_epoch().count());
  node->membership_ = std::make_unique<Membership>(node->cfg_.name, node->self_, node->cfg_.timing,
                                                   seed, now, node->cfg_.meta);
  node->sec_.ring = node->cfg_.keyring ? &*node->cfg_.keyring : nullptr;
  node->sec_.verify_incoming = node->cfg_.timing.gossip_verify_incoming;
  node->thread_ = std::thread([n = node.get()] { n->loop(); });
  return node;
}

Node::~Node() {
  running_ = false;
  wake();
  if (thread_.joinable()) {
    thread_.join();
  }
  for (auto& c : conns_) {
    ::close(c->fd);
  }
  for (int fd : {udp_fd_, tcp_fd_, wake_fd_}) {
    if (fd >= 0) {
      ::close(fd);
    }
  }
}

Result<void> Node::bind() {
  auto self =
      parseHostPort(cfg_.bind_addr.find(':') != std::string::npos ? "[" + cfg_.bind_addr + "]:1"
                                                                  : cfg_.bind_addr + ":1");
  if (!self) {
    return invalidArgument("memberlist bind address \"" + cfg_.bind_addr + "\" is not an IP");
  }
  self_ = *self;
  family_ = self_.ip.size() == 4 ? AF_INET : AF_INET6;
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  // Port 0: take the kernel's TCP port, then the same UDP port (retry if UDP is taken).
  for (int attempt = 0; attempt < 20; ++attempt) {
    tcp_fd_ = socket(family_, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    udp_fd_ = socket(family_, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int one = 1;
    setsockopt(tcp_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_storage ss;
    Endpoint want{self_.ip, cfg_.port};
    socklen_t len = toSockaddr(want, family_, ss);
    if (::bind(tcp_fd_, reinterpret_cast<sockaddr*>(&ss), len) == 0 && ::listen(tcp_fd_, 64) == 0) {
      socklen_t got = sizeof(ss);
      getsockname(tcp_fd_, reinterpret_cast<sockaddr*>(&ss), &got);
      port_ = fromSockaddr(ss).port;
      if (::bind(udp_fd_, reinterpret_cast<sockaddr*>(&ss), got) == 0) {
        self_.port = port_;
        const int buf = 2 << 20;
        setsockopt(udp_fd_, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
        return {};
      }
    }
    const std::string err = std::strerror(errno);
    ::close(tcp_fd_);
    ::close(udp_fd_);
    tcp_fd_ = udp_fd_ = -1;
    if (cfg_.port != 0) {
      return Error{ErrorCode::Unavailable, "memberlist: cannot bind " + cfg_.bind_addr + ":" +
                                               std::to_string(cfg_.port) + ": " + err};
    }
  }
  return Error{ErrorCode::Unavailable, "memberlist: no free port with both TCP and UDP"};
}

void Node::wake() {
  const uint64_t one = 1;
  if (wake_fd_ >= 0) {
    [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof(one));
  }
}

void Node::join(const std::vector<std::string>& seeds) {
  std::vector<Endpoint> eps;
  for (const std::string& s : seeds) {
    auto e = parseHostPort(s);
    if (!e) {
      logger_->warn("memberlist", "join", e.error().message);
      continue;
    }
    eps.push_back(*e);
  }
  {
    std::lock_guard lock(mu_);
    membership_->join(eps, pending_);
  }
  wake();
}

size_t Node::joinsInFlight() const {
  std::lock_guard lock(mu_);
  size_t n = 0;
  for (const auto& s : pending_.streams) {
    n += s.join ? 1 : 0;
  }
  n += waiting_.size();
  for (const auto& c : conns_) {
    n += c->fd >= 0 && c->role == Conn::Role::PushPull && c->join ? 1 : 0;
  }
  return n;
}

void Node::leave(std::chrono::milliseconds wait) {
  {
    std::lock_guard lock(mu_);
    membership_->leave(Clock::now(), pending_);
  }
  wake();
  const auto deadline = Clock::now() + wait;
  while (Clock::now() < deadline) {
    {
      std::lock_guard lock(mu_);
      if (pending_.packets.empty()) {
        return;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::vector<MemberView> Node::members() const {
  std::lock_guard lock(mu_);
  std::vector<MemberView> out;
  for (const auto& [name, m] : membership_->members()) {
    out.push_back({name, m.addr, m.state, m.incarnation, m.meta});
  }
  return out;
}

TransportCounters Node::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

Counters Node::membershipCounters() const {
  std::lock_guard lock(mu_);
  return membership_->counters();
}

void Node::noteDrop(DropReason r, const std::string& from) {
  const std::string reason = dropReasonName(r);
  ++counters_.drops[reason];
  const TimePoint now = Clock::now();
  auto& last = last_drop_log_[reason];
  if (last == TimePoint{} || now - last >= std::chrono::seconds(10)) {
    last = now;
    logger_->warn("memberlist", "drop", "dropped gossip input",
                  {{"reason", reason},
                   {"from", from},
                   log::num("total", static_cast<long long>(counters_.drops[reason]))});
  }
}

void Node::readUdp(TimePoint now, Outbox& out) {
  static thread_local std::vector<uint8_t> buf(kMaxDatagram);
  for (int i = 0; i < kDatagramsPerWake; ++i) {
    sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    const ssize_t n =
        recvfrom(udp_fd_, buf.data(), buf.size(), 0, reinterpret_cast<sockaddr*>(&ss), &len);
    if (n < 0) {
      return;
    }
    const Endpoint from = fromSockaddr(ss);
    ++counters_.udp_in;
    counters_.udp_bytes_in += static_cast<uint64_t>(n);
    const DecodedPacket p = openPacket({buf.data(), static_cast<size_t>(n)}, sec_);
    if (p.drop != DropReason::None) {
      noteDrop(p.drop, endpointText(from));
    }
    for (const Message& m : p.messages) {
      membership_->onMessage(m, from, now, out);
    }
  }
}

void Node::sendPacket(const Outbox::Packet& p) {
  auto sealed = sealPacket(p.payload, p.crc, sec_);
  sockaddr_storage ss;
  const socklen_t len = toSockaddr(p.to, family_, ss);
  if (!sealed || len == 0) {
    return;
  }
  const ssize_t n =
      sendto(udp_fd_, sealed->data(), sealed->size(), 0, reinterpret_cast<sockaddr*>(&ss), len);
  if (n > 0) {
    ++counters_.udp_out;
    counters_.udp_bytes_out += static_cast<uint64_t>(n);
  }
}

void Node::execute(Outbox& out, TimePoint now) {
  for (const auto& p : out.packets) {
    sendPacket(p);
  }
  for (const auto& s : out.streams) {
    openStream(s, now);
  }
  if (on_event_) {
    for (const auto& e : out.events) {
      on_event_(e);
    }
  }
  out = {};
}

void Node::loop() {
  std::vector<pollfd> fds;
  while (running_) {
    TimePoint wakeup;
    {
      std::lock_guard lock(mu_);
      wakeup = membership_->nextWakeup();
      for (const auto& c : conns_) {
        wakeup = std::min(wakeup, c->deadline);
      }
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wakeup - Clock::now());
    fds.assign({{wake_fd_, POLLIN, 0}, {udp_fd_, POLLIN, 0}, {tcp_fd_, POLLIN, 0}});
    for (const auto& c : conns_) {
      fds.push_back({c->fd, static_cast<short>(c->wantWrite() ? POLLOUT : POLLIN), 0});
    }
    ::poll(fds.data(), fds.size(),
           static_cast<int>(std::clamp<int64_t>(wait.count() + 1, 0, 1000)));
    const TimePoint now = Clock::now();
    std::lock_guard lock(mu_);
    uint64_t drained = 0;
    [[maybe_unused]] auto r = ::read(wake_fd_, &drained, sizeof(drained));
    Outbox out = std::move(pending_);
    pending_ = {};
    if ((fds[1].revents & POLLIN) != 0) {
      readUdp(now, out);
    }
    if ((fds[2].revents & POLLIN) != 0) {
      accept(now);
    }
    const size_t polled = fds.size() - 3;
    for (size_t i = 0; i < polled && i < conns_.size(); ++i) {
      serviceConn(*conns_[i], fds[i + 3].revents, now, out);
    }
    std::erase_if(conns_, [](const auto& c) { return c->fd < 0; });
    openWaiting(now);
    if (membership_->nextWakeup() <= now) {
      membership_->tick(now, out);
    }
    execute(out, now);
  }
}

}  // namespace ingot::agent::memberlist
