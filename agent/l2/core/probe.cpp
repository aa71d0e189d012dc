// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/probe.h"

#include <algorithm>

namespace ingot::agent::l2 {

ClaimKind classifyClaim(const Claim& claim,
                        bool probed,
                        const std::set<Mac>& own,
                        const std::set<Mac>& members) {
  if (!probed) {
    return ClaimKind::Unrelated;
  }
  if (own.contains(claim.mac)) {
    return ClaimKind::Own;
  }
  if (members.contains(claim.mac)) {
    return ClaimKind::Member;
  }
  return ClaimKind::Conflict;
}

void ProbeTable::add(const net::IpAddress& ip, TimePoint now) {
  entries_.try_emplace(ip, ProbeStatus{0, std::nullopt, false, now, timing_.backoff_initial});
}

void ProbeTable::remove(const net::IpAddress& ip) {
  entries_.erase(ip);
}

bool ProbeTable::running(const net::IpAddress& ip) const {
  auto it = entries_.find(ip);
  return it != entries_.end() && !it->second.waiting;
}

// step advances one address by one action; true when the address was found free.
bool ProbeTable::step(ProbeStatus& s, TimePoint now) {
  if (s.waiting) {
    s.waiting = false;  // retry: a new round starts at once
    s.sent = 0;
    s.next = now;
    return false;
  }
  if (s.sent < timing_.count) {
    ++s.sent;
    s.next = now + (s.sent < timing_.count ? timing_.interval : timing_.wait);
    return false;
  }
  return true;  // the round ended without a conflicting answer
}

ProbeTable::Step ProbeTable::advance(TimePoint now) {
  Step out;
  for (auto it = entries_.begin(); it != entries_.end();) {
    ProbeStatus& s = it->second;
    bool free = false;
    while (!free && s.next <= now) {
      const int sent = s.sent;
      const bool was_waiting = s.waiting;
      free = step(s, now);
      if (!was_waiting && s.sent > sent) {
        out.send.push_back(it->first);
      }
    }
    if (free) {
      out.free.push_back(it->first);
      it = entries_.erase(it);
      continue;
    }
    ++it;
  }
  return out;
}

bool ProbeTable::conflict(const net::IpAddress& ip, const Conflict& c, TimePoint now) {
  auto it = entries_.find(ip);
  if (it == entries_.end() || it->second.waiting) {
    return false;
  }
  ProbeStatus& s = it->second;
  const bool fresh = !s.conflict;
  const bool changed = fresh || *s.conflict != c;
  if (fresh) {
    ++detections_;
  }
  s.conflict = c;
  s.waiting = true;
  s.next = now + s.backoff;
  s.backoff = std::min(s.backoff * 2, timing_.backoff_max);
  return changed;
}

ProbeTable::TimePoint ProbeTable::nextDue() const {
  TimePoint next = TimePoint::max();
  for (const auto& [ip, s] : entries_) {
    next = std::min(next, s.next);
  }
  return next;
}

}  // namespace ingot::agent::l2
