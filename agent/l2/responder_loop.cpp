// SPDX-License-Identifier: Apache-2.0
// The responder's poll loop: interface scans, multicast membership, gratuitous bursts, replies.
#include <algorithm>
#include <poll.h>
#include <vector>

#include "agent/l2/core/arp_codec.h"
#include "agent/l2/core/ndp_codec.h"
#include "agent/l2/responder.h"
#include "agent/l2/responder_state.h"

namespace ingot::agent::l2 {

namespace {

constexpr int kFramesPerWakeup = 64;  // bounds the time one busy socket holds the loop

// openLink opens the sockets an interface needs; false if one failed (the interface is skipped).
bool openLink(const AnnounceInterface& info, Link& link) {
  link.info = info;
  if (info.arp) {
    auto fd = openPacketSocket(info.index, PacketKind::Arp);
    if (!fd) {
      return false;
    }
    link.arp = std::move(fd.value());
  }
  if (info.ndp) {
    auto fd = openPacketSocket(info.index, PacketKind::NeighborSolicit);
    if (!fd) {
      return false;
    }
    link.ndp = std::move(fd.value());
  }
  return true;
}

void leaveAll(ResponderState& s, Link& link) {
  for (const auto& group : link.joined) {
    (void)setMembership(s.membership.get(), link.info.index, group, false);
  }
  link.joined.clear();
}

void applyScan(ResponderState& s) {
  auto facts = scanInterfaces();
  if (!facts) {
    ++s.stats.scan_errors;
    return;
  }
  std::map<int, Link> next;
  for (const auto& info : selectInterfaces(facts.value(), s.options.exclude)) {
    auto old = s.links.find(info.index);
    if (old != s.links.end() && old->second.info == info) {
      next[info.index] = std::move(old->second);
      s.links.erase(old);
      continue;
    }
    Link link;
    if (openLink(info, link)) {
      next[info.index] = std::move(link);
    } else {
      ++s.stats.scan_errors;
    }
  }
  for (auto& [index, gone] : s.links) {
    leaveAll(s, gone);
  }
  s.links = std::move(next);
  s.memberships_dirty = true;
}

void syncMemberships(ResponderState& s) {
  for (auto& [index, link] : s.links) {
    std::set<Ip6> want;
    for (const auto& [ip, owners] : s.owned) {
      if (link.info.ndp && ip.isV6() && ownedOn(s, ip, link.info.name)) {
        want.insert(solicitedNodeAddress(toIp6(ip)));
      }
    }
    for (auto it = link.joined.begin(); it != link.joined.end();) {
      if (want.count(*it) == 0) {
        (void)setMembership(s.membership.get(), index, *it, false);
        it = link.joined.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& group : want) {
      if (link.joined.count(group) == 0 && setMembership(s.membership.get(), index, group, true)) {
        link.joined.insert(group);
      }
    }
  }
  s.memberships_dirty = false;
}

void sendCounted(ResponderState& s, int fd, int ifindex, const Bytes& frame, uint64_t& counter) {
  if (sendFrame(fd, ifindex, frame)) {
    ++counter;
  } else {
    ++s.stats.send_errors;
  }
}

void sendGratuitous(ResponderState& s, const net::IpAddress& ip) {
  auto& counters = s.stats.per_ip[ip];
  for (auto& [index, link] : s.links) {
    if (!ownedOn(s, ip, link.info.name)) {
      continue;
    }
    if (ip.isV4() && link.info.arp) {
      for (uint16_t op : {kArpRequest, kArpReply}) {
        sendCounted(s, link.arp.get(), index, gratuitousArp(link.info.mac, toIp4(ip), op),
                    counters.gratuitous_sent);
      }
    } else if (ip.isV6() && link.info.ndp) {
      sendCounted(s, link.ndp.get(), index,
                  unsolicitedAdvert(link.info.mac, link.info.link_local, toIp6(ip)),
                  counters.gratuitous_sent);
    }
  }
}

// sendDueGratuitous sends every burst step that is due and returns the next due time.
Clock::time_point sendDueGratuitous(ResponderState& s, Clock::time_point now) {
  Clock::time_point next = Clock::time_point::max();
  for (auto it = s.bursts.begin(); it != s.bursts.end();) {
    auto& burst = it->second;
    while (burst.next <= now && burst.next <= burst.until) {
      sendGratuitous(s, it->first);
      burst.next += s.options.gratuitous_interval;
    }
    if (burst.next > burst.until) {
      it = s.bursts.erase(it);
      continue;
    }
    next = std::min(next, burst.next);
    ++it;
  }
  return next;
}

template <typename Addr>
void account(ResponderState& s,
             const Link& link,
             int fd,
             const Decision<Addr>& d,
             const net::IpAddress& target) {
  if (!d.reply) {
    ++s.stats.drops[static_cast<size_t>(d.reason)];
    return;
  }
  auto& counters = s.stats.per_ip[target];
  ++counters.requests_received;
  sendCounted(s, fd, link.info.index, *d.reply, counters.responses_sent);
}

// isAdvert reports whether a frame is an ICMPv6 Neighbor Advertisement (read only for probes).
bool isAdvert(ByteView frame) {
  constexpr size_t kNextHeader = kEthernetHeaderLen + 6;
  constexpr size_t kIcmpType = kEthernetHeaderLen + kIpv6HeaderLen;
  return frame.size() > kIcmpType && readU16(frame, 12) == kEtherTypeIpv6 &&
         frame[kNextHeader] == 58 && frame[kIcmpType] == kIcmpv6NeighborAdvert;
}

void handleFrame(ResponderState& s, const Link& link, bool arp, ByteView frame, Delivery delivery) {
  const std::string& name = link.info.name;
  if (delivery == Delivery::ForUs) {
    observeClaim(s, link, arp, frame);  // another VLAN's frames say nothing about this one
  }
  if (!arp && isAdvert(frame)) {
    return;  // the socket lets advertisements through for the probes only
  }
  if (arp) {
    auto d = processArpRequest(
        frame, link.info.mac, [&](const Ip4& ip) { return ownedOn(s, fromIp4(ip), name); },
        delivery);
    account(s, link, link.arp.get(), d, d.target ? fromIp4(*d.target) : net::IpAddress());
    return;
  }
  auto d = processNeighborSolicit(
      frame, link.info.mac, link.info.link_local,
      [&](const Ip6& ip) { return ownedOn(s, fromIp6(ip), name); }, delivery);
  account(s, link, link.ndp.get(), d, d.target ? fromIp6(*d.target) : net::IpAddress());
}

// drainSocket answers up to kFramesPerWakeup frames of one socket, taking the lock per frame so
// ownership changes interleave and a withdrawn address is never answered after withdraw().
void drainSocket(ResponderState& s, int fd, int ifindex, bool arp, Bytes& buf) {
  for (int i = 0; i < kFramesPerWakeup; ++i) {
    auto got = receiveFrame(fd, buf);
    if (!got) {
      return;
    }
    std::lock_guard lock(s.mu);
    auto it = s.links.find(ifindex);
    if (it == s.links.end()) {
      return;
    }
    handleFrame(s, it->second, arp, ByteView(buf.data(), got->size), got->delivery);
  }
}

struct Watch {
  int fd;
  int ifindex;  // 0 for the wakeup and link-event descriptors
  bool arp;
};

// prepare does the due housekeeping and lists the descriptors to poll; false when stopping.
bool prepare(ResponderState& s, std::vector<Watch>& watches, int& timeout_ms) {
  std::lock_guard lock(s.mu);
  if (s.stopping) {
    return false;
  }
  const auto now = Clock::now();
  if (s.scan_requested || now >= s.next_scan) {
    applyScan(s);
    s.scan_requested = false;
    s.next_scan = now + s.options.rescan_interval;
  }
  if (s.memberships_dirty) {
    syncMemberships(s);
  }
  const auto due = std::min({sendDueGratuitous(s, now), runProbes(s, now), s.next_scan});
  timeout_ms = static_cast<int>(std::clamp<int64_t>(
      std::chrono::ceil<std::chrono::milliseconds>(due - now).count(), 0, 60000));
  watches = {{s.wakeup.get(), 0, false}, {s.link_events.get(), 0, false}};
  for (const auto& [index, link] : s.links) {
    if (link.arp.get() >= 0) {
      watches.push_back({link.arp.get(), index, true});
    }
    if (link.ndp.get() >= 0) {
      watches.push_back({link.ndp.get(), index, false});
    }
  }
  return true;
}

}  // namespace

void Responder::run() {
  ResponderState& s = *state_;
  Bytes buf(65536);
  std::vector<Watch> watches;
  std::vector<pollfd> fds;
  int timeout_ms = 0;
  while (prepare(s, watches, timeout_ms)) {
    notifyProbeChange(s);
    fds.clear();
    for (const auto& w : watches) {
      fds.push_back(pollfd{w.fd, POLLIN, 0});
    }
    if (poll(fds.data(), fds.size(), timeout_ms) <= 0) {
      continue;
    }
    drainWakeup(s.wakeup.get());
    if ((fds[1].revents & POLLIN) != 0 && drainLinkEvents(s.link_events.get())) {
      std::lock_guard lock(s.mu);
      s.scan_requested = true;
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      if ((fds[i].revents & POLLIN) != 0) {
        drainSocket(s, watches[i].fd, watches[i].ifindex, watches[i].arp, buf);
      }
    }
    notifyProbeChange(s);
  }
}

/// scanNow runs the first scan in the caller's thread so interfaces() is filled on return.
void scanNow(ResponderState& s) {
  std::lock_guard lock(s.mu);
  applyScan(s);
  s.scan_requested = false;
  s.next_scan = Clock::now() + s.options.rescan_interval;
}

}  // namespace ingot::agent::l2
