// SPDX-License-Identifier: Apache-2.0
// rtnetlink dump of links and IPv6 addresses for the interface scan.
#include <cerrno>
#include <cstring>
#include <functional>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <map>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/l2/interfaces.h"
#include "agent/l2/socket_io.h"

namespace ingot::agent::l2 {

namespace {

Error ioError(const std::string& what) {
  return Error{ErrorCode::Unavailable, "interface scan: " + what + ": " + std::strerror(errno)};
}

// dump sends one RTM_GET* dump request and calls `each` for every reply message.
Result<void> dump(int fd,
                  uint16_t type,
                  uint8_t family,
                  const std::function<void(const nlmsghdr*)>& each) {
  struct {
    nlmsghdr hdr;
    rtgenmsg gen;
  } req{};
  req.hdr.nlmsg_len = sizeof req;
  req.hdr.nlmsg_type = type;
  req.hdr.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.hdr.nlmsg_seq = type;
  req.gen.rtgen_family = family;
  if (send(fd, &req, sizeof req, 0) < 0) {
    return ioError("send");
  }
  alignas(nlmsghdr) static thread_local char buf[32768];
  for (;;) {
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0) {
      return ioError("recv");
    }
    int len = static_cast<int>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_type == NLMSG_DONE) {
        return {};
      }
      if (h->nlmsg_type == NLMSG_ERROR) {
        errno = -reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
        return ioError("dump");
      }
      each(h);
    }
  }
}

void readLink(const nlmsghdr* h, std::map<int, InterfaceFacts>& out) {
  const auto* info = reinterpret_cast<const ifinfomsg*>(NLMSG_DATA(h));
  if (info->ifi_type != ARPHRD_ETHER) {
    return;  // the responder speaks Ethernet only
  }
  InterfaceFacts f;
  f.index = info->ifi_index;
  f.flags = info->ifi_flags;
  int len = static_cast<int>(IFLA_PAYLOAD(h));
  for (const auto* a = IFLA_RTA(info); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
    if (a->rta_type == IFLA_IFNAME) {
      f.name = static_cast<const char*>(RTA_DATA(a));
    } else if (a->rta_type == IFLA_MASTER) {
      f.enslaved = true;
    } else if (a->rta_type == IFLA_ADDRESS && RTA_PAYLOAD(a) == 6) {
      std::memcpy(f.mac.data(), RTA_DATA(a), 6);
    }
  }
  out[f.index] = std::move(f);
}

void readAddress(const nlmsghdr* h, std::map<int, InterfaceFacts>& out) {
  const auto* info = reinterpret_cast<const ifaddrmsg*>(NLMSG_DATA(h));
  auto it = out.find(static_cast<int>(info->ifa_index));
  if (info->ifa_family != AF_INET6 || info->ifa_scope != RT_SCOPE_LINK || it == out.end()) {
    return;
  }
  int len = static_cast<int>(IFA_PAYLOAD(h));
  for (const auto* a = IFA_RTA(info); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
    if (a->rta_type == IFA_ADDRESS && RTA_PAYLOAD(a) == 16 && !it->second.link_local) {
      Ip6 ip;
      std::memcpy(ip.data(), RTA_DATA(a), 16);
      it->second.link_local = ip;
    }
  }
}

}  // namespace

Result<std::vector<InterfaceFacts>> scanInterfaces() {
  Fd sock(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (sock.get() < 0) {
    return ioError("netlink socket");
  }
  std::map<int, InterfaceFacts> by_index;
  auto links =
      dump(sock.get(), RTM_GETLINK, AF_UNSPEC, [&](const nlmsghdr* h) { readLink(h, by_index); });
  if (!links) {
    return links.error();
  }
  auto addrs =
      dump(sock.get(), RTM_GETADDR, AF_INET6, [&](const nlmsghdr* h) { readAddress(h, by_index); });
  if (!addrs) {
    return addrs.error();
  }
  std::vector<InterfaceFacts> out;
  out.reserve(by_index.size());
  for (auto& [index, f] : by_index) {
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace ingot::agent::l2
