// SPDX-License-Identifier: Apache-2.0
// Membership scheduling: probe rounds (direct, indirect, TCP fallback), awareness, gossip of
// queued broadcasts, periodic push/pull and reaping of dead members.
#include <algorithm>
#include <cmath>

#include "agent/memberlist/core/membership.h"
#include "agent/memberlist/core/security.h"

namespace ingot::agent::memberlist {

namespace {

bool speaksCrc(const Member& m) {
  return m.vsn.size() > 1 && m.vsn[1] >= 5;
}
bool speaksNack(const Member& m) {
  return m.vsn.size() > 1 && m.vsn[1] >= 4;
}
bool live(const Member& m) {
  return m.state == NodeState::Alive || m.state == NodeState::Suspect;
}

}  // namespace

void Membership::queueBroadcast(const std::string& node, const Message& m) {
  // A newer message about a node replaces any older one still queued (memberlist's
  // invalidation by node name).
  std::erase_if(broadcasts_, [&](const Broadcast& b) { return b.node == node; });
  broadcasts_.push_back({node, encodeMessage(m), 0, ++broadcast_id_});
}

std::vector<Bytes> Membership::takeBroadcasts(size_t budget) {
  const int limit =
      timing_.retransmit_mult *
      static_cast<int>(std::ceil(std::log10(static_cast<double>(members_.size()) + 1.0)));
  // Least transmitted first, then newest first.
  std::sort(broadcasts_.begin(), broadcasts_.end(), [](const Broadcast& a, const Broadcast& b) {
    return a.transmits != b.transmits ? a.transmits < b.transmits : a.id > b.id;
  });
  std::vector<Bytes> picked;
  for (Broadcast& b : broadcasts_) {
    const size_t cost = b.msg.size() + 2;  // compound length entry
    if (cost > budget || picked.size() >= 254) {
      continue;
    }
    budget -= cost;
    picked.push_back(b.msg);
    ++b.transmits;
  }
  std::erase_if(broadcasts_, [&](const Broadcast& b) { return b.transmits >= std::max(1, limit); });
  return picked;
}

void Membership::send(const Endpoint& to, bool crc, Bytes msg, Outbox& out) {
  const size_t overhead = 2 + kEncryptOverhead + 5;
  const size_t budget = timing_.udp_buffer_size > msg.size() + overhead
                            ? timing_.udp_buffer_size - msg.size() - overhead
                            : 0;
  std::vector<Bytes> extra = takeBroadcasts(budget);
  if (extra.empty()) {
    out.packets.push_back({to, std::move(msg), crc});
    return;
  }
  extra.insert(extra.begin(), std::move(msg));
  out.packets.push_back({to, makeCompound(extra), crc});
}

void Membership::sendTo(const Member& m, const Message& msg, Outbox& out) {
  send(m.addr, speaksCrc(m), encodeMessage(msg), out);
}

Duration Membership::pushPullInterval() const {
  // memberlist stretches the interval above 32 members (its pushPullScale), so that the full
  // state exchanges, whose size grows with the cluster, do not grow its traffic linearly.
  constexpr double kThreshold = 32;
  const auto n = static_cast<double>(members_.size());
  if (n <= kThreshold) {
    return timing_.push_pull_interval;
  }
  const double mult = std::ceil(std::log2(n) - std::log2(kThreshold)) + 1.0;
  return timing_.push_pull_interval * static_cast<int>(mult);
}

Duration Membership::scaled(Duration d) const {
  return d * (awareness_ + 1);
}

void Membership::adjustAwareness(int delta) {
  awareness_ = std::clamp(awareness_ + delta, 0, std::max(0, timing_.awareness_max_multiplier - 1));
}

void Membership::tick(TimePoint now, Outbox& out) {
  advanceProbe(now, out);
  if (now >= next_probe_) {
    next_probe_ = std::max(next_probe_ + scaled(timing_.probe_interval), now);
    if (!probe_) {
      startProbe(now, out);
    }
  }
  expireSuspicions(now, out);
  expireRelays(now, out);
  if (now >= next_gossip_) {
    next_gossip_ = std::max(next_gossip_ + timing_.gossip_interval, now);
    gossip(now, out);
  }
  if (now >= next_push_pull_) {
    next_push_pull_ = now + pushPullInterval();
    pushPull(out);
  }
  reap(now);
}

TimePoint Membership::nextWakeup() const {
  TimePoint t = std::min({next_probe_, next_gossip_, next_push_pull_});
  if (probe_) {
    t = std::min(t, probe_->indirect_sent ? probe_->end_at : probe_->indirect_at);
  }
  for (const auto& [name, s] : suspicions_) {
    t = std::min(t, s.deadline);
  }
  for (const auto& [seq, r] : relays_) {
    t = std::min(t, r.deadline);
  }
  return t;
}

void Membership::startProbe(TimePoint now, Outbox& out) {
  // Round robin over a shuffled order, skipping this node and dead members (memberlist).
  for (size_t tries = 0; tries < probe_order_.size(); ++tries) {
    if (probe_index_ >= probe_order_.size()) {
      probe_index_ = 0;
      std::shuffle(probe_order_.begin(), probe_order_.end(), rng_);
    }
    const std::string name = probe_order_[probe_index_++];
    auto it = members_.find(name);
    if (it == members_.end() || name == name_ || !live(it->second)) {
      continue;
    }
    const Member& self = members_.at(name_);
    probe_ = Probe{name,
                   ++seq_no_,
                   now + scaled(timing_.probe_timeout),
                   now + scaled(timing_.probe_interval),
                   false,
                   0,
                   0};
    ++counters_.probes;
    sendTo(it->second, Ping{probe_->seq_no, name, self.addr.ip, self.addr.port, name_}, out);
    return;
  }
}

void Membership::sendIndirect(const Member& target, Outbox& out) {
  const Member& self = members_.at(name_);
  for (const Member* relay :
       randomMembers(static_cast<size_t>(timing_.indirect_checks), target.name, false, {})) {
    const bool nack = speaksNack(*relay);
    probe_->expected_nacks += nack ? 1 : 0;
    ++counters_.indirect_pings_sent;
    sendTo(*relay,
           IndirectPing{probe_->seq_no, target.addr.ip, target.addr.port, target.name, nack,
                        self.addr.ip, self.addr.port, name_},
           out);
  }
  if (!timing_.disable_tcp_pings && target.vsn.size() > 1 && target.vsn[1] >= 3) {
    out.streams.push_back(
        {Outbox::Stream::Kind::Ping, target.addr, false, probe_->seq_no, target.name});
  }
}

void Membership::advanceProbe(TimePoint now, Outbox& out) {
  if (!probe_) {
    return;
  }
  auto it = members_.find(probe_->target);
  if (it == members_.end() || !live(it->second)) {
    probe_.reset();
    return;
  }
  if (!probe_->indirect_sent && now >= probe_->indirect_at) {
    probe_->indirect_sent = true;
    sendIndirect(it->second, out);
  }
  if (now < probe_->end_at) {
    return;
  }
  // No ack in the whole interval: awareness grows when relays did not even nack (our own
  // network may be the problem), then the target is suspected.
  ++counters_.probe_failures;
  adjustAwareness(probe_->expected_nacks - probe_->nacks > 0 ? 1 : 0);
  const Member& target = it->second;
  const Suspect s{target.incarnation, target.name, name_};
  probe_.reset();
  suspectNode(s, now, out);
}

void Membership::expireSuspicions(TimePoint now, Outbox& out) {
  std::vector<std::string> expired;
  for (const auto& [name, s] : suspicions_) {
    if (now >= s.deadline) {
      expired.push_back(name);
    }
  }
  for (const std::string& name : expired) {
    const Member& m = members_.at(name);
    deadNode(Dead{m.incarnation, name, name_}, now, out);
  }
}

void Membership::expireRelays(TimePoint now, Outbox& out) {
  for (auto it = relays_.begin(); it != relays_.end();) {
    if (now < it->second.deadline) {
      ++it;
      continue;
    }
    if (it->second.nack) {
      send(it->second.reply_to, false, encodeMessage(Nack{it->second.orig_seq}), out);
    }
    it = relays_.erase(it);
  }
}

std::vector<const Member*> Membership::randomMembers(size_t k,
                                                     const std::string& exclude,
                                                     bool dead_ok,
                                                     TimePoint now) {
  std::vector<const Member*> pool;
  for (const auto& [name, m] : members_) {
    const bool recently_dead =
        dead_ok && !live(m) && now - m.state_change < timing_.gossip_to_the_dead;
    if (name != name_ && name != exclude &&
        (m.state == NodeState::Alive || recently_dead ||
         (dead_ok && m.state == NodeState::Suspect))) {
      pool.push_back(&m);
    }
  }
  std::shuffle(pool.begin(), pool.end(), rng_);
  pool.resize(std::min(pool.size(), k));
  return pool;
}

void Membership::gossip(TimePoint now, Outbox& out) {
  for (const Member* m : randomMembers(static_cast<size_t>(timing_.gossip_nodes), {}, true, now)) {
    std::vector<Bytes> msgs = takeBroadcasts(timing_.udp_buffer_size - kEncryptOverhead - 7);
    if (msgs.empty()) {
      return;
    }
    Bytes payload = msgs.size() == 1 ? std::move(msgs.front()) : makeCompound(msgs);
    out.packets.push_back({m->addr, std::move(payload), speaksCrc(*m)});
  }
}

void Membership::pushPull(Outbox& out) {
  const auto peers = randomMembers(1, {}, false, {});
  if (!peers.empty()) {
    out.streams.push_back({Outbox::Stream::Kind::PushPull, peers.front()->addr, false, 0, {}});
  }
}

void Membership::reap(TimePoint now) {
  for (auto it = members_.begin(); it != members_.end();) {
    const Member& m = it->second;
    if (it->first != name_ && !live(m) && now - m.state_change >= timing_.gossip_to_the_dead) {
      std::erase(probe_order_, it->first);
      it = members_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace ingot::agent::memberlist
