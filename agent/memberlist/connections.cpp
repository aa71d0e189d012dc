// SPDX-License-Identifier: Apache-2.0
// Node's TCP streams: accepted push/pull and ping requests, our push/pulls and fallback pings.
// Non-blocking, each with a deadline (TCPTimeout) and a byte bound (max_stream_bytes). Join
// push/pulls beyond max_connections wait for a free stream instead of being refused.
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include "agent/memberlist/transport.h"
#include "agent/memberlist/transport_internal.h"

namespace ingot::agent::memberlist {

void Node::accept(TimePoint now) {
  for (;;) {
    sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    const int fd =
        ::accept4(tcp_fd_, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      return;
    }
    if (conns_.size() >= cfg_.max_connections) {
      ++counters_.tcp_refused;
      ::close(fd);
      continue;
    }
    ++counters_.tcp_accepted;
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    c->peer = fromSockaddr(ss);
    c->deadline = now + cfg_.timing.tcp_timeout;
    conns_.push_back(std::move(c));
  }
}

// openStream starts s now, or, for a join push/pull while every stream is taken (or earlier
// joins still wait), queues it behind them; what fits neither is refused.
void Node::openStream(const Outbox::Stream& s, TimePoint now) {
  const bool full = conns_.size() >= cfg_.max_connections;
  if (s.join && (full || !waiting_.empty())) {
    if (waiting_.size() >= cfg_.max_waiting_joins) {
      ++counters_.tcp_refused;
      return;
    }
    ++counters_.tcp_waited;
    waiting_.push_back(s);
    return;
  }
  if (full) {
    ++counters_.tcp_refused;
    return;
  }
  connectStream(s, now);
}

// openWaiting starts the waiting joins, oldest first, on the streams free now.
void Node::openWaiting(TimePoint now) {
  while (!waiting_.empty() && conns_.size() < cfg_.max_connections) {
    const Outbox::Stream s = std::move(waiting_.front());
    waiting_.pop_front();
    connectStream(s, now);
  }
}

void Node::connectStream(const Outbox::Stream& s, TimePoint now) {
  sockaddr_storage ss;
  const socklen_t len = toSockaddr(s.to, family_, ss);
  const Bytes plain = s.kind == Outbox::Stream::Kind::Ping
                          ? encodeMessage(Ping{s.seq_no, s.node, {}, 0, {}})
                          : encodePushPull(membership_->localState(), s.join);
  auto sealed = sealStream(plain, sec_);
  if (len == 0 || !sealed) {
    return;
  }
  const int fd = socket(family_, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return;
  }
  if (::connect(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 && errno != EINPROGRESS) {
    ::close(fd);
    return;
  }
  ++counters_.tcp_connected;
  auto c = std::make_unique<Conn>();
  c->fd = fd;
  c->role = s.kind == Outbox::Stream::Kind::Ping ? Conn::Role::Ping : Conn::Role::PushPull;
  c->peer = s.to;
  c->connecting = true;
  c->seq_no = s.seq_no;
  c->join = s.join;
  c->out = std::move(*sealed);
  c->deadline = now + (s.kind == Outbox::Stream::Kind::Ping ? cfg_.timing.probe_interval
                                                            : cfg_.timing.tcp_timeout);
  conns_.push_back(std::move(c));
}

void Node::closeConn(Conn& c, const char* drop) {
  if (drop != nullptr) {
    ++counters_.drops[drop];
  }
  ::close(c.fd);
  c.fd = -1;
}

// finishRead acts on a complete stream; returns false when the connection should close now.
bool Node::finishRead(Conn& c, TimePoint now, Outbox& out) {
  StreamMessage msg;
  DropReason drop = DropReason::None;
  const StreamStatus st = parseStream(c.in, sec_, cfg_.max_stream_bytes, msg, drop);
  if (st == StreamStatus::Incomplete) {
    return true;
  }
  if (st == StreamStatus::Invalid) {
    noteDrop(drop, endpointText(c.peer));
    return false;
  }
  if (c.role == Conn::Role::Ping) {
    if (msg.type == MessageType::Ack && msg.ack.seq_no == c.seq_no) {
      membership_->onStreamAck(c.seq_no);
    }
    return false;
  }
  if (msg.type != MessageType::PushPull) {
    if (c.role == Conn::Role::Inbound && msg.type == MessageType::Ping &&
        (msg.ping.node.empty() || msg.ping.node == cfg_.name)) {
      auto sealed = sealStream(encodeMessage(Ack{msg.ping.seq_no, {}}), sec_);
      c.out = sealed ? std::move(*sealed) : Bytes{};
      c.reply_sent = true;
      return !c.out.empty();
    }
    if (msg.type == MessageType::Err) {
      logger_->warn("memberlist", "push_pull", "peer refused the exchange",
                    {{"peer", endpointText(c.peer)}, {"error", msg.error}});
    }
    return false;
  }
  if (c.role == Conn::Role::Inbound) {
    auto sealed = sealStream(encodePushPull(membership_->localState(), msg.header.join), sec_);
    c.out = sealed ? std::move(*sealed) : Bytes{};
    c.reply_sent = true;
  }
  membership_->merge(msg.states, now, out);
  return c.role == Conn::Role::Inbound && !c.out.empty();
}

void Node::serviceConn(Conn& c, short revents, TimePoint now, Outbox& out) {
  if (c.fd < 0) {
    return;
  }
  if (now >= c.deadline) {
    ++counters_.tcp_timeouts;
    closeConn(c, c.in.empty() ? nullptr : "stream_timeout");
    return;
  }
  if ((revents & (POLLERR | POLLNVAL)) != 0 || (c.connecting && (revents & POLLHUP) != 0)) {
    closeConn(c, nullptr);
    return;
  }
  if ((revents & POLLOUT) != 0) {
    c.connecting = false;
    const ssize_t n =
        ::send(c.fd, c.out.data() + c.out_off, c.out.size() - c.out_off, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN) {
      closeConn(c, nullptr);
      return;
    }
    c.out_off += n > 0 ? static_cast<size_t>(n) : 0;
    if (c.reply_sent && c.out_off >= c.out.size()) {
      closeConn(c, nullptr);
    }
    return;
  }
  if ((revents & (POLLIN | POLLHUP)) == 0 || c.reply_sent) {
    return;
  }
  // A plaintext stream has no length prefix, so it is re-parsed from the start on every read;
  // large reads keep that work small (≈ max_stream_bytes² / 64 KiB at worst).
  static thread_local std::vector<uint8_t> buf(65536);
  const ssize_t n = ::recv(c.fd, buf.data(), buf.size(), 0);
  if (n <= 0) {
    if (n == 0 || errno != EAGAIN) {
      closeConn(c, c.in.empty() ? nullptr : "stream_truncated");
    }
    return;
  }
  // parseStream refuses input past max_stream_bytes, so c.in never grows beyond it + 64 KiB.
  c.in.insert(c.in.end(), buf.begin(), buf.begin() + n);
  if (!finishRead(c, now, out)) {
    closeConn(c, nullptr);
  }
}

}  // namespace ingot::agent::memberlist
