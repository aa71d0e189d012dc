// SPDX-License-Identifier: Apache-2.0
// Address conflict detection, the pure part: the probe schedule of the addresses this node is
// about to answer for for the first time, the backoff after a conflict, and which claims seen on
// the wire are conflicts. The responder loop (responder_probe.cpp) sends and receives the frames.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/l2/core/probe_frames.h"

namespace ingot::agent::l2 {

/// ProbeTiming is how an address is probed. RFC 5227 spaces its 3 probes 1-2 s apart and waits
/// 2 s more, which would delay every new Service by about 5 s; on a LAN segment an owner answers
/// within milliseconds, so the defaults send 3 probes 100 ms apart and wait 200 ms after the
/// last: a free address is answered about 400 ms after it was assigned.
struct ProbeTiming {
  int count = 3;                                    ///< probes per round
  std::chrono::milliseconds interval{100};          ///< between the probes of a round
  std::chrono::milliseconds wait{200};              ///< after the last probe of a round
  std::chrono::milliseconds backoff_initial{1000};  ///< first retry after a conflict
  std::chrono::milliseconds backoff_max{30000};     ///< retries double up to this
};

/// Conflict is an answer for a probed address from a MAC that is neither this node's nor a
/// cluster member's.
struct Conflict {
  Mac mac{};
  std::string interface;  ///< where it was seen
  friend bool operator==(const Conflict&, const Conflict&) = default;
};

/// ProbeStatus is the state of one probed address.
struct ProbeStatus {
  int sent = 0;  ///< probes sent in the current round
  /// conflict is the latest conflict, kept across retries until a round finds the address free.
  std::optional<Conflict> conflict;
  bool waiting = false;  ///< between rounds after a conflict (no probe in flight)
  std::chrono::steady_clock::time_point next;  ///< next probe, round end or retry
  std::chrono::milliseconds backoff{0};        ///< delay of the next retry
  friend bool operator==(const ProbeStatus&, const ProbeStatus&) = default;
};

/// ClaimKind classifies a claim seen on the wire.
enum class ClaimKind {
  Unrelated,  ///< not about an address being probed, or a probe round is not running
  Own,        ///< from one of this node's MACs
  Member,     ///< from a cluster member's MAC (memberlist metadata)
  Conflict,   ///< anyone else: the address is in use (or being probed) by another host
};

/// classifyClaim decides what a claim means for an address in `probed` (only addresses with a
/// probe round running count, so a late answer between rounds is not double counted).
ClaimKind classifyClaim(const Claim& claim,
                        bool probed,
                        const std::set<Mac>& own,
                        const std::set<Mac>& members);

/// ProbeTable is the schedule of every address being probed.
class ProbeTable {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  /// Step is what advance() asks for: probes to send now, and addresses found free (removed
  /// from the table; they may be answered now).
  struct Step {
    std::vector<net::IpAddress> send;
    std::vector<net::IpAddress> free;
  };

  explicit ProbeTable(ProbeTiming timing = {}) : timing_(timing) {}

  /// add starts probing ip now (the first probe is due at once); nothing if it is already here.
  void add(const net::IpAddress& ip, TimePoint now);
  /// remove forgets ip (withdrawn, or answered without probing).
  void remove(const net::IpAddress& ip);
  /// contains reports whether ip is being probed (or waits for a retry).
  bool contains(const net::IpAddress& ip) const { return entries_.contains(ip); }
  /// running reports whether a probe round of ip is in flight (answers count as conflicts).
  bool running(const net::IpAddress& ip) const;
  /// advance moves every address whose time has come.
  Step advance(TimePoint now);
  /// conflict records a conflicting answer for ip during a round: the round stops and a retry
  /// is scheduled after the backoff, which then doubles up to the maximum. Returns true when ip
  /// was not in conflict before, or the MAC changed (what deserves an Event).
  bool conflict(const net::IpAddress& ip, const Conflict& c, TimePoint now);
  /// nextDue is the earliest time advance() has something to do (max() when empty).
  TimePoint nextDue() const;
  /// entries is every address and its state.
  const std::map<net::IpAddress, ProbeStatus>& entries() const { return entries_; }
  /// detections counts the transitions of an address into conflict.
  uint64_t detections() const { return detections_; }

 private:
  bool step(ProbeStatus& s, TimePoint now);

  ProbeTiming timing_;
  std::map<net::IpAddress, ProbeStatus> entries_;
  uint64_t detections_ = 0;
};

}  // namespace ingot::agent::l2
