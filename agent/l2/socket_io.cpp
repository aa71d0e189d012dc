// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/socket_io.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/rtnetlink.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <string>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ingot::agent::l2 {

namespace {

Error sysError(const std::string& what) {
  return Error{ErrorCode::Unavailable, "l2 responder: " + what + ": " + std::strerror(errno)};
}

// Classic BPF programs: accept the whole frame (0xffff bytes) or drop it (0).
constexpr sock_filter kArpFilter[] = {
    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),                // EtherType
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_ARP, 0, 1),  //
    BPF_STMT(BPF_RET | BPF_K, 0xffff),
    BPF_STMT(BPF_RET | BPF_K, 0),
};
// Neighbor Solicitations (answered) and Advertisements (read by the address conflict probes).
constexpr sock_filter kSolicitFilter[] = {
    BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),                 // EtherType
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 6),  //
    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 20),                 // IPv6 next header
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_ICMPV6, 0, 4),
    BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 54),  // ICMPv6 type
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ND_NEIGHBOR_SOLICIT, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ND_NEIGHBOR_ADVERT, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, 0xffff),
    BPF_STMT(BPF_RET | BPF_K, 0),
};

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) {
      close(fd_);
    }
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) {
    close(fd_);
  }
}

Result<Fd> openPacketSocket(int ifindex, PacketKind kind) {
  // Protocol 0 receives nothing until bind, so no frame gets past before the filter is set.
  Fd fd(socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) {
    return sysError("AF_PACKET socket");
  }
  const bool arp = kind == PacketKind::Arp;
  sock_fprog prog{};
  prog.len = arp ? std::size(kArpFilter) : std::size(kSolicitFilter);
  prog.filter = const_cast<sock_filter*>(arp ? kArpFilter : kSolicitFilter);
  if (setsockopt(fd.get(), SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) < 0) {
    return sysError("attach BPF filter");
  }
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(arp ? ETH_P_ARP : ETH_P_IPV6);
  addr.sll_ifindex = ifindex;
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    return sysError("bind to interface " + std::to_string(ifindex));
  }
  return fd;
}

Result<Fd> openMembershipSocket() {
  Fd fd(socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_ICMPV6));
  if (fd.get() < 0) {
    return sysError("ICMPv6 socket");
  }
  icmp6_filter block{};
  ICMP6_FILTER_SETBLOCKALL(&block);
  if (setsockopt(fd.get(), IPPROTO_ICMPV6, ICMP6_FILTER, &block, sizeof block) < 0) {
    return sysError("ICMP6_FILTER");
  }
  return fd;
}

Result<void> setMembership(int fd, int ifindex, const Ip6& group, bool join) {
  ipv6_mreq req{};
  std::memcpy(&req.ipv6mr_multiaddr, group.data(), 16);
  req.ipv6mr_interface = static_cast<unsigned>(ifindex);
  if (setsockopt(fd, IPPROTO_IPV6, join ? IPV6_JOIN_GROUP : IPV6_LEAVE_GROUP, &req, sizeof req) <
      0) {
    return sysError(join ? "join solicited-node group" : "leave solicited-node group");
  }
  return {};
}

std::optional<Received> receiveFrame(int fd, Bytes& buf) {
  for (;;) {
    sockaddr_ll from{};
    socklen_t len = sizeof from;
    const ssize_t n =
        recvfrom(fd, buf.data(), buf.size(), 0, reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) {
      return std::nullopt;
    }
    if (from.sll_pkttype != PACKET_OUTGOING) {
      return Received{static_cast<size_t>(n),
                      from.sll_pkttype == PACKET_OTHERHOST ? Delivery::OtherHost : Delivery::ForUs};
    }
  }
}

bool sendFrame(int fd, int ifindex, const Bytes& frame) {
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = ifindex;
  to.sll_halen = 6;
  std::memcpy(to.sll_addr, frame.data(), 6);
  return sendto(fd, frame.data(), frame.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to) ==
         static_cast<ssize_t>(frame.size());
}

Result<Fd> openLinkEvents() {
  Fd fd(socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (fd.get() < 0) {
    return sysError("netlink socket");
  }
  sockaddr_nl addr{};
  addr.nl_family = AF_NETLINK;
  addr.nl_groups = RTMGRP_LINK | RTMGRP_IPV6_IFADDR;
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    return sysError("netlink bind");
  }
  return fd;
}

bool drainLinkEvents(int fd) {
  char buf[8192];
  bool any = false;
  while (recv(fd, buf, sizeof buf, 0) > 0) {
    any = true;
  }
  return any;
}

Result<Fd> openWakeup() {
  Fd fd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (fd.get() < 0) {
    return sysError("eventfd");
  }
  return fd;
}

void wake(int fd) {
  const uint64_t one = 1;
  (void)!write(fd, &one, sizeof one);
}

void drainWakeup(int fd) {
  uint64_t v = 0;
  (void)!read(fd, &v, sizeof v);
}

}  // namespace ingot::agent::l2
