// SPDX-License-Identifier: Apache-2.0
// The responder's shared state (internal to agent/l2). Everything is guarded by `mu`.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "agent/l2/core/addresses.h"
#include "agent/l2/responder.h"
#include "agent/l2/socket_io.h"

namespace ingot::agent::l2 {

using Clock = std::chrono::steady_clock;

/// Link is one interface in use: its sockets and the solicited-node groups joined on it.
struct Link {
  AnnounceInterface info;
  Fd arp;
  Fd ndp;
  std::set<Ip6> joined;
};

/// Owners maps each owner of an address to its interface restriction (nullopt: all).
using Owners = std::map<std::string, std::optional<std::set<std::string>>>;

/// Burst is the gratuitous schedule of one address.
struct Burst {
  Clock::time_point next;
  Clock::time_point until;
};

struct ResponderState {
  ResponderOptions options;
  mutable std::mutex mu;
  std::map<net::IpAddress, Owners> owned;
  std::map<net::IpAddress, Burst> bursts;
  std::map<int, Link> links;  // by ifindex
  ResponderStats stats;
  Fd wakeup;
  Fd link_events;
  Fd membership;
  bool stopping = false;
  bool scan_requested = false;
  bool memberships_dirty = false;
  Clock::time_point next_scan;
  /// Addresses announced with a probe and not answered yet, with their owners.
  std::map<net::IpAddress, Owners> pending;
  ProbeTable probes;
  std::set<Mac> member_macs;
  std::function<void()> probe_listener;
  bool probe_changed = false;  ///< the listener is due
};

/// startBurst starts or extends the gratuitous burst of ip (state.mu held).
void startBurst(ResponderState& s, const net::IpAddress& ip, Clock::time_point now);

/// runProbes sends the due probes and answers the addresses found free; returns when it is
/// next due (state.mu held).
Clock::time_point runProbes(ResponderState& s, Clock::time_point now);

/// observeClaim checks a received ARP/NDP frame against the probed addresses (state.mu held).
void observeClaim(ResponderState& s, const Link& link, bool arp, ByteView frame);

/// notifyProbeChange calls the probe listener if a probe changed state (state.mu not held).
void notifyProbeChange(ResponderState& s);

/// scanNow runs an interface scan in the calling thread (state.mu not held).
void scanNow(ResponderState& s);

/// onLink reports whether some owner of ip in table wants it on the named interface.
bool onLink(const std::map<net::IpAddress, Owners>& table,
            const net::IpAddress& ip,
            const std::string& link);

/// ownedOn reports whether `ip` is announced on the named interface (state.mu held).
bool ownedOn(const ResponderState& state, const net::IpAddress& ip, const std::string& link);

}  // namespace ingot::agent::l2
