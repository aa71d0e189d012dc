// SPDX-License-Identifier: Apache-2.0
// Shared by transport.cpp and connections.cpp only.
#pragma once

#include <string>
#include <sys/socket.h>

#include "agent/memberlist/transport.h"

namespace ingot::agent::memberlist {

/// Node::Conn is one TCP stream: an accepted peer, or our push/pull or fallback ping.
struct Node::Conn {
  enum class Role { Inbound, PushPull, Ping };
  int fd = -1;
  Role role = Role::Inbound;
  Endpoint peer;
  bool connecting = false;
  bool reply_sent = false;  ///< inbound: our answer is queued; close once written
  bool join = false;
  uint32_t seq_no = 0;
  Bytes in;
  Bytes out;
  size_t out_off = 0;
  TimePoint deadline;

  bool wantWrite() const { return connecting || out_off < out.size(); }
};

/// toSockaddr fills `ss` for `e` in `family` (IPv4-mapped IPv6 becomes IPv4); 0 when the
/// address does not fit the family.
socklen_t toSockaddr(const Endpoint& e, int family, sockaddr_storage& ss);
/// fromSockaddr is the inverse for AF_INET and AF_INET6.
Endpoint fromSockaddr(const sockaddr_storage& ss);
/// endpointText renders "ip:port" for logs.
std::string endpointText(const Endpoint& e);

}  // namespace ingot::agent::memberlist
