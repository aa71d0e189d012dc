// SPDX-License-Identifier: Apache-2.0
// Membership state transitions: memberlist's aliveNode, suspectNode, deadNode, refutation,
// suspicion timers and the UDP request handlers. Scheduling lives in probe.cpp.
#include "agent/memberlist/core/membership.h"

#include <algorithm>
#include <cmath>

namespace ingot::agent::memberlist {

Timing Timing::fast() {
  Timing t;
  t.probe_interval = Duration{100};
  t.probe_timeout = Duration{50};
  t.gossip_interval = Duration{50};
  t.push_pull_interval = Duration{10000};
  t.gossip_to_the_dead = Duration{10000};
  t.tcp_timeout = Duration{1000};
  t.suspicion_mult = 2;
  t.suspicion_max_timeout_mult = 2;
  return t;
}

Bytes protocolVersions() {
  return {1, 5, 2, 0, 0, 0};
}

Membership::Membership(
    std::string name, Endpoint self, Timing timing, uint32_t seed, TimePoint now, Bytes meta)
    : name_(std::move(name)),
      timing_(timing),
      rng_(seed),
      next_probe_(now + timing.probe_interval),
      next_gossip_(now + timing.gossip_interval),
      next_push_pull_(now + timing.push_pull_interval) {
  Outbox ignored;
  Alive a{1, name_, self.ip, self.port, std::move(meta), protocolVersions()};
  aliveNode(a, now, ignored, true);
}

Alive Membership::selfAlive() const {
  const Member& self = members_.at(name_);
  return Alive{self.incarnation, name_, self.addr.ip, self.addr.port, self.meta, self.vsn};
}

size_t Membership::liveCount() const {
  return static_cast<size_t>(std::count_if(members_.begin(), members_.end(), [](const auto& kv) {
    return kv.second.state == NodeState::Alive || kv.second.state == NodeState::Suspect;
  }));
}

void Membership::onMessage(const Message& m, const Endpoint& from, TimePoint now, Outbox& out) {
  if (const auto* p = std::get_if<Ping>(&m)) {
    handlePing(*p, from, out);
  } else if (const auto* ip = std::get_if<IndirectPing>(&m)) {
    handleIndirect(*ip, from, now, out);
  } else if (const auto* a = std::get_if<Ack>(&m)) {
    handleAck(*a, now, out);
  } else if (const auto* n = std::get_if<Nack>(&m)) {
    if (probe_ && probe_->seq_no == n->seq_no) {
      ++probe_->nacks;
    }
  } else if (const auto* s = std::get_if<Suspect>(&m)) {
    suspectNode(*s, now, out);
  } else if (const auto* al = std::get_if<Alive>(&m)) {
    aliveNode(*al, now, out, false);
  } else if (const auto* d = std::get_if<Dead>(&m)) {
    deadNode(*d, now, out);
  }
}

void Membership::handlePing(const Ping& p, const Endpoint& from, Outbox& out) {
  if (!p.node.empty() && p.node != name_) {
    ++counters_.ignored;  // meant for a previous owner of this address
    return;
  }
  const bool direct = !p.source_addr.empty() && p.source_port != 0;
  const Endpoint to = direct ? Endpoint{p.source_addr, p.source_port} : from;
  auto it = members_.find(p.source_node);
  const bool crc = it != members_.end() && it->second.vsn.size() > 1 && it->second.vsn[1] >= 5;
  send(to, crc, encodeMessage(Ack{p.seq_no, {}}), out);
}

void Membership::handleIndirect(const IndirectPing& p,
                                const Endpoint& from,
                                TimePoint now,
                                Outbox& out) {
  const uint32_t local = ++seq_no_;
  const bool direct = !p.source_addr.empty() && p.source_port != 0;
  relays_[local] = Relay{p.seq_no, direct ? Endpoint{p.source_addr, p.source_port} : from, p.nack,
                         now + timing_.probe_timeout};
  const Member& self = members_.at(name_);
  Ping ping{local, p.node, self.addr.ip, self.addr.port, name_};
  auto it = members_.find(p.node);
  const bool crc = it != members_.end() && it->second.vsn.size() > 1 && it->second.vsn[1] >= 5;
  send(Endpoint{p.target, p.port != 0 ? p.port : self.addr.port}, crc, encodeMessage(ping), out);
}

void Membership::handleAck(const Ack& a, TimePoint now, Outbox& out) {
  (void)now;
  if (auto it = relays_.find(a.seq_no); it != relays_.end()) {
    send(it->second.reply_to, false, encodeMessage(Ack{it->second.orig_seq, {}}), out);
    relays_.erase(it);
    return;
  }
  if (probe_ && probe_->seq_no == a.seq_no) {
    probe_.reset();
    adjustAwareness(-1);
  }
}

void Membership::onStreamAck(uint32_t seq_no) {
  if (probe_ && probe_->seq_no == seq_no) {
    probe_.reset();
  }
}

void Membership::aliveNode(const Alive& a, TimePoint now, Outbox& out, bool bootstrap) {
  const Endpoint addr{a.addr, a.port};
  auto it = members_.find(a.node);
  if (it == members_.end()) {
    Member m{a.node, addr, a.meta, a.vsn, a.incarnation, NodeState::Alive, now};
    members_.emplace(a.node, m);
    probe_order_.insert(
        probe_order_.begin() + static_cast<long>(rng_() % (probe_order_.size() + 1)), a.node);
    queueBroadcast(a.node, a);
    out.events.push_back({Outbox::Event::Kind::Join, a.node, addr, false, a.meta});
    return;
  }
  Member& m = it->second;
  const bool local = a.node == name_;
  bool reclaim = false;
  if (!local && !(m.addr == addr)) {
    // Another address for a known name: only a node that left may come back elsewhere.
    if (m.state != NodeState::Left) {
      ++counters_.address_conflicts;
      return;
    }
    reclaim = true;
  }
  if ((a.incarnation <= m.incarnation && !local && !reclaim) ||
      (a.incarnation < m.incarnation && local)) {
    ++counters_.ignored;
    return;
  }
  suspicions_.erase(a.node);
  if (local && !bootstrap) {
    if (a.incarnation == m.incarnation && a.meta == m.meta && a.vsn == m.vsn) {
      return;  // our own news coming back
    }
    refute(m, a.incarnation);
    return;
  }
  const NodeState old = m.state;
  queueBroadcast(a.node, a);
  m.incarnation = a.incarnation;
  m.meta = a.meta;
  m.vsn = a.vsn;
  m.addr = addr;
  if (old != NodeState::Alive) {
    m.state = NodeState::Alive;
    m.state_change = now;
  }
  if (old == NodeState::Dead || old == NodeState::Left) {
    out.events.push_back({Outbox::Event::Kind::Join, a.node, addr, false, a.meta});
  } else if (old == NodeState::Alive && !bootstrap) {
    out.events.push_back({Outbox::Event::Kind::Update, a.node, addr, false, a.meta});
  }
}

void Membership::refute(Member& self, uint32_t accused) {
  self.incarnation = std::max(self.incarnation, accused) + 1;
  ++counters_.refutations;
  adjustAwareness(1);
  queueBroadcast(name_, selfAlive());
}

void Membership::suspectNode(const Suspect& s, TimePoint now, Outbox& out) {
  auto it = members_.find(s.node);
  if (it == members_.end() || s.incarnation < it->second.incarnation) {
    ++counters_.ignored;
    return;
  }
  Member& m = it->second;
  if (suspicions_.count(s.node) != 0) {
    if (confirmSuspicion(s.node, s.from)) {
      queueBroadcast(s.node, s);
    }
    return;
  }
  if (m.state != NodeState::Alive) {
    return;
  }
  if (s.node == name_) {
    refute(m, s.incarnation);
    return;
  }
  queueBroadcast(s.node, s);
  ++counters_.suspicions;
  m.incarnation = s.incarnation;
  m.state = NodeState::Suspect;
  m.state_change = now;
  startSuspicion(m, s.from, now);
  (void)out;
}

void Membership::deadNode(const Dead& d, TimePoint now, Outbox& out) {
  auto it = members_.find(d.node);
  if (it == members_.end() || d.incarnation < it->second.incarnation) {
    ++counters_.ignored;
    return;
  }
  Member& m = it->second;
  suspicions_.erase(d.node);
  if (m.state == NodeState::Dead || m.state == NodeState::Left) {
    return;
  }
  if (d.node == name_ && !leaving_) {
    refute(m, d.incarnation);
    return;
  }
  queueBroadcast(d.node, d);
  m.incarnation = d.incarnation;
  m.state = d.node == d.from ? NodeState::Left : NodeState::Dead;
  m.state_change = now;
  if (m.state == NodeState::Dead) {
    ++counters_.deaths;
  }
  out.events.push_back(
      {Outbox::Event::Kind::Leave, d.node, m.addr, m.state == NodeState::Left, {}});
}

// startSuspicion follows memberlist's suspicion: the timeout starts at max and shrinks
// towards min (log scale) as independent confirmations arrive; with k < 1 it is min.
void Membership::startSuspicion(const Member& m, const std::string& from, TimePoint now) {
  const size_t n = liveCount();
  const double scale = std::max(1.0, std::log10(std::max<double>(1.0, static_cast<double>(n))));
  Suspicion s;
  s.start = now;
  s.min = Duration{static_cast<int64_t>(timing_.suspicion_mult * scale *
                                        static_cast<double>(timing_.probe_interval.count()))};
  s.max = s.min * timing_.suspicion_max_timeout_mult;
  s.k = std::min(timing_.suspicion_mult - 2, std::max(0, static_cast<int>(n) - 2));
  s.confirmations.insert(from);
  s.deadline = now + (s.k < 1 ? s.min : s.max);
  suspicions_[m.name] = s;
}

bool Membership::confirmSuspicion(const std::string& node, const std::string& from) {
  Suspicion& s = suspicions_.at(node);
  if (s.k < 1 || static_cast<int>(s.confirmations.size()) > s.k ||
      !s.confirmations.insert(from).second) {
    return false;
  }
  const double c = static_cast<double>(s.confirmations.size() - 1);
  const double frac = std::log(c + 1.0) / std::log(static_cast<double>(s.k) + 1.0);
  const auto span = static_cast<double>((s.max - s.min).count());
  const Duration timeout = std::max(
      s.min, Duration{static_cast<int64_t>(static_cast<double>(s.max.count()) - frac * span)});
  s.deadline = s.start + timeout;
  return true;
}

void Membership::merge(const std::vector<PushNodeState>& remote, TimePoint now, Outbox& out) {
  for (const PushNodeState& r : remote) {
    switch (r.state) {
      case NodeState::Alive:
        aliveNode(Alive{r.incarnation, r.name, r.addr, r.port, r.meta, r.vsn}, now, out, false);
        break;
      case NodeState::Left:
        deadNode(Dead{r.incarnation, r.name, r.name}, now, out);
        break;
      case NodeState::Dead:  // a remote death is only a suspicion here, as in memberlist
      case NodeState::Suspect:
        suspectNode(Suspect{r.incarnation, r.name, name_}, now, out);
        break;
    }
  }
}

std::vector<PushNodeState> Membership::localState() const {
  std::vector<PushNodeState> states;
  for (const auto& [name, m] : members_) {
    states.push_back({name, m.addr.ip, m.addr.port, m.meta, m.incarnation, m.state, m.vsn});
  }
  return states;
}

void Membership::join(const std::vector<Endpoint>& seeds, Outbox& out) const {
  for (const Endpoint& e : seeds) {
    out.streams.push_back({Outbox::Stream::Kind::PushPull, e, true, 0, {}});
  }
}

void Membership::leave(TimePoint now, Outbox& out) {
  leaving_ = true;
  Member& self = members_.at(name_);
  const Dead d{self.incarnation, name_, name_};
  deadNode(d, now, out);
  for (const auto& [name, m] : members_) {
    if (name != name_ && (m.state == NodeState::Alive || m.state == NodeState::Suspect)) {
      sendTo(m, d, out);
    }
  }
}

}  // namespace ingot::agent::memberlist
