// SPDX-License-Identifier: Apache-2.0
// The responder's side of address conflict detection: probes sent on the interfaces an address
// is to be answered on, claims read from every ARP/NDP frame received there, and the addresses
// found free moved to the answered ones. The schedule and the classification are in probe.cpp.
#include <utility>

#include "agent/l2/core/probe.h"
#include "agent/l2/responder_state.h"

namespace ingot::agent::l2 {

namespace {

// pendingOn reports whether ip is to be answered on the named interface once it is free.
bool pendingOn(const ResponderState& s, const net::IpAddress& ip, const std::string& link) {
  return onLink(s.pending, ip, link);
}

void sendProbe(ResponderState& s, const net::IpAddress& ip) {
  for (const auto& [index, link] : s.links) {
    if (!pendingOn(s, ip, link.info.name)) {
      continue;
    }
    int fd = -1;
    Bytes frame;
    if (ip.isV4() && link.info.arp) {
      fd = link.arp.get();
      frame = arpProbe(link.info.mac, toIp4(ip));
    } else if (ip.isV6() && link.info.ndp) {
      fd = link.ndp.get();
      frame = dadSolicit(link.info.mac, toIp6(ip));
    } else {
      continue;
    }
    if (sendFrame(fd, index, frame)) {
      ++s.stats.probes_sent;
    } else {
      ++s.stats.send_errors;
    }
  }
}

// answerFree moves the owners of a probed address to the answered ones and announces it.
void answerFree(ResponderState& s, const net::IpAddress& ip, Clock::time_point now) {
  auto pending = s.pending.find(ip);
  if (pending == s.pending.end()) {
    return;
  }
  s.owned[ip].merge(pending->second);
  s.pending.erase(pending);
  startBurst(s, ip, now);
  s.memberships_dirty = true;
}

std::set<Mac> ownMacs(const ResponderState& s) {
  std::set<Mac> out;
  for (const auto& [index, link] : s.links) {
    out.insert(link.info.mac);
  }
  return out;
}

}  // namespace

Clock::time_point runProbes(ResponderState& s, Clock::time_point now) {
  if (s.probes.entries().empty()) {
    return Clock::time_point::max();
  }
  const auto step = s.probes.advance(now);
  for (const auto& ip : step.send) {
    sendProbe(s, ip);
  }
  for (const auto& ip : step.free) {
    answerFree(s, ip, now);
    s.probe_changed = true;
  }
  return s.probes.nextDue();
}

void observeClaim(ResponderState& s, const Link& link, bool arp, ByteView frame) {
  if (s.probes.entries().empty()) {
    return;
  }
  const auto claim = arp ? arpClaim(frame) : ndpClaim(frame);
  if (!claim) {
    return;
  }
  const bool probed = s.probes.running(claim->ip) && pendingOn(s, claim->ip, link.info.name);
  if (classifyClaim(*claim, probed, ownMacs(s), s.member_macs) != ClaimKind::Conflict) {
    return;
  }
  if (s.probes.conflict(claim->ip, Conflict{claim->mac, link.info.name}, Clock::now())) {
    s.probe_changed = true;
  }
}

void notifyProbeChange(ResponderState& s) {
  std::function<void()> listener;
  {
    std::lock_guard lock(s.mu);
    if (!s.probe_changed) {
      return;
    }
    s.probe_changed = false;
    listener = s.probe_listener;
  }
  if (listener) {
    listener();
  }
}

}  // namespace ingot::agent::l2
