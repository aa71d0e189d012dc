// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/responder.h"

#include <algorithm>
#include <poll.h>
#include <vector>

#include "agent/l2/core/arp_codec.h"
#include "agent/l2/core/ndp_codec.h"
#include "agent/l2/responder_state.h"

namespace ingot::agent::l2 {

bool onLink(const std::map<net::IpAddress, Owners>& table,
            const net::IpAddress& ip,
            const std::string& link) {
  auto it = table.find(ip);
  if (it == table.end()) {
    return false;
  }
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](const auto& owner) { return !owner.second || owner.second->count(link); });
}

bool ownedOn(const ResponderState& state, const net::IpAddress& ip, const std::string& link) {
  return onLink(state.owned, ip, link);
}

Responder::Responder(std::unique_ptr<ResponderState> state) : state_(std::move(state)) {}

Result<std::unique_ptr<Responder>> Responder::start(ResponderOptions options) {
  auto state = std::make_unique<ResponderState>();
  state->options = std::move(options);
  state->probes = ProbeTable(state->options.probe);
  auto wakeup = openWakeup();
  auto events = openLinkEvents();
  auto membership = openMembershipSocket();
  for (const Error* e : {wakeup ? nullptr : &wakeup.error(), events ? nullptr : &events.error(),
                         membership ? nullptr : &membership.error()}) {
    if (e != nullptr) {
      return *e;
    }
  }
  state->wakeup = std::move(wakeup.value());
  state->link_events = std::move(events.value());
  state->membership = std::move(membership.value());
  scanNow(*state);
  std::unique_ptr<Responder> r(new Responder(std::move(state)));
  r->thread_ = std::thread([raw = r.get()] { raw->run(); });
  return r;
}

Responder::~Responder() {
  {
    std::lock_guard lock(state_->mu);
    state_->stopping = true;
  }
  wake(state_->wakeup.get());
  thread_.join();
}

void startBurst(ResponderState& s, const net::IpAddress& ip, Clock::time_point now) {
  auto [it, fresh] = s.bursts.try_emplace(ip, Burst{now, now});
  it->second.until = now + s.options.gratuitous_window;
  if (fresh) {
    it->second.next = now;
  }
}

void Responder::announce(const std::string& owner,
                         const net::IpAddress& ip,
                         const std::optional<std::set<std::string>>& interfaces,
                         bool probe) {
  {
    std::lock_guard lock(state_->mu);
    const auto now = Clock::now();
    if (probe && !state_->owned.contains(ip)) {
      state_->pending[ip][owner] = interfaces;
      state_->probes.add(ip, now);
    } else {
      Owners& owners = state_->owned[ip];
      if (auto pending = state_->pending.find(ip); pending != state_->pending.end()) {
        owners.merge(pending->second);  // answered without probing: the probe ends
        state_->pending.erase(pending);
        state_->probes.remove(ip);
      }
      owners[owner] = interfaces;
      startBurst(*state_, ip, now);
    }
    state_->memberships_dirty = true;
  }
  wake(state_->wakeup.get());
}

void Responder::withdraw(const std::string& owner, const net::IpAddress& ip) {
  {
    std::lock_guard lock(state_->mu);
    if (auto pending = state_->pending.find(ip); pending != state_->pending.end()) {
      pending->second.erase(owner);
      if (pending->second.empty()) {
        state_->pending.erase(pending);
        state_->probes.remove(ip);
      }
    }
    auto it = state_->owned.find(ip);
    if (it == state_->owned.end()) {
      return;
    }
    it->second.erase(owner);
    if (it->second.empty()) {
      state_->owned.erase(it);
      state_->bursts.erase(ip);
    }
    state_->memberships_dirty = true;
  }
  wake(state_->wakeup.get());
}

void Responder::setMemberMacs(std::set<Mac> macs) {
  std::lock_guard lock(state_->mu);
  state_->member_macs = std::move(macs);
}

void Responder::setProbeListener(std::function<void()> listener) {
  std::lock_guard lock(state_->mu);
  state_->probe_listener = std::move(listener);
}

bool Responder::owned(const net::IpAddress& ip) const {
  std::lock_guard lock(state_->mu);
  return state_->owned.count(ip) > 0;
}

std::vector<AnnounceInterface> Responder::interfaces() const {
  std::lock_guard lock(state_->mu);
  std::vector<AnnounceInterface> out;
  for (const auto& [index, link] : state_->links) {
    out.push_back(link.info);
  }
  return out;
}

void Responder::rescan() {
  {
    std::lock_guard lock(state_->mu);
    state_->scan_requested = true;
  }
  wake(state_->wakeup.get());
}

ResponderStats Responder::stats() const {
  std::lock_guard lock(state_->mu);
  ResponderStats out = state_->stats;
  out.probes = state_->probes.entries();
  out.conflicts_detected = state_->probes.detections();
  return out;
}

}  // namespace ingot::agent::l2
