// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "agent/memberlist/core/messages.h"

namespace ingot::agent::memberlist {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = std::chrono::milliseconds;

/// Timing is memberlist's tuning (same names as Go's Config fields).
struct Timing {
  Duration probe_interval{1000};
  Duration probe_timeout{500};
  Duration gossip_interval{200};
  Duration push_pull_interval{30000};
  Duration gossip_to_the_dead{30000};
  Duration tcp_timeout{10000};
  int indirect_checks = 3;
  int retransmit_mult = 4;
  int suspicion_mult = 4;
  int suspicion_max_timeout_mult = 6;
  int gossip_nodes = 3;
  int awareness_max_multiplier = 8;
  bool disable_tcp_pings = false;
  bool gossip_verify_incoming = true;  ///< refuse plaintext input when a key is set
  size_t udp_buffer_size = 1400;

  /// lan returns Go's DefaultLANConfig() timing, MetalLB's default.
  static Timing lan() { return Timing{}; }
  /// fast returns Ingot's default: a stopped node is declared dead within ~0.7 s on a small
  /// cluster (see docs/performance.md for the measurements behind the values).
  static Timing fast();
};

/// Endpoint is an IP (4 or 16 bytes) and port.
struct Endpoint {
  Bytes ip;
  uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

/// Member is one node as this node sees it.
struct Member {
  std::string name;
  Endpoint addr;
  Bytes meta;
  Bytes vsn;
  uint32_t incarnation = 0;
  NodeState state = NodeState::Alive;
  TimePoint state_change;
};

/// Outbox collects what the state machine wants done; the transport performs it.
struct Outbox {
  /// Packet is one UDP datagram payload (plaintext; the transport adds CRC and encryption).
  struct Packet {
    Endpoint to;
    Bytes payload;
    bool crc = false;
  };
  /// Stream is a TCP exchange to start: a push/pull (join or anti-entropy) or a fallback ping.
  struct Stream {
    enum class Kind { PushPull, Ping } kind = Kind::PushPull;
    Endpoint to;
    bool join = false;
    uint32_t seq_no = 0;
    std::string node;
  };
  /// Event reports a membership change of `name`.
  struct Event {
    enum class Kind { Join, Leave, Update } kind = Kind::Join;
    std::string name;
    Endpoint addr;      ///< the member's address as this node knows it
    bool left = false;  ///< Leave: the member left gracefully (false: it was declared dead)
    Bytes meta;         ///< Join/Update: the member's metadata (empty from MetalLB speakers)
  };
  std::vector<Packet> packets;
  std::vector<Stream> streams;
  std::vector<Event> events;
};

/// Counters are monotonic totals for metrics and tests.
struct Counters {
  uint64_t probes = 0;
  uint64_t probe_failures = 0;
  uint64_t indirect_pings_sent = 0;
  uint64_t suspicions = 0;  ///< nodes this node marked suspect (own probe or gossip)
  uint64_t deaths = 0;
  uint64_t refutations = 0;
  uint64_t address_conflicts = 0;
  uint64_t ignored = 0;  ///< messages about unknown nodes or stale incarnations
};

/// Membership is memberlist's SWIM state machine without I/O or clocks: feed it decoded
/// messages, push/pull states and ticks with the current time; read the Outbox it fills.
/// Deterministic for a given seed and input sequence. Not thread-safe.
class Membership {
 public:
  /// Membership starts with only this node alive at incarnation 1, advertising `meta` (at most
  /// kMaxMetaLength bytes; longer metadata is refused by peers).
  Membership(std::string name,
             Endpoint self,
             Timing timing,
             uint32_t seed,
             TimePoint now,
             Bytes meta = {});

  /// onMessage handles one message received from `from` over UDP.
  void onMessage(const Message& m, const Endpoint& from, TimePoint now, Outbox& out);
  /// onStreamAck records the answer to a TCP fallback ping.
  void onStreamAck(uint32_t seq_no);
  /// merge applies the states a push/pull exchange received (memberlist's mergeState).
  void merge(const std::vector<PushNodeState>& remote, TimePoint now, Outbox& out);
  /// tick runs every timer due at `now`: probes, suspicion expiry, gossip, push/pull, reaping.
  void tick(TimePoint now, Outbox& out);
  /// nextWakeup is the earliest time tick has work to do.
  TimePoint nextWakeup() const;
  /// join asks for a join push/pull with each seed.
  void join(const std::vector<Endpoint>& seeds, Outbox& out) const;
  /// leave marks this node left and sends the news directly to every live member.
  void leave(TimePoint now, Outbox& out);

  /// localState is this node's table as sent in a push/pull.
  std::vector<PushNodeState> localState() const;
  const std::map<std::string, Member>& members() const { return members_; }
  const Counters& counters() const { return counters_; }
  const std::string& name() const { return name_; }
  const Timing& timing() const { return timing_; }

 private:
  struct Broadcast {
    std::string node;
    Bytes msg;
    int transmits = 0;
    uint64_t id = 0;
  };
  struct Suspicion {
    TimePoint start;
    Duration min{};
    Duration max{};
    int k = 0;
    std::set<std::string> confirmations;
    TimePoint deadline;
  };
  struct Probe {
    std::string target;
    uint32_t seq_no = 0;
    TimePoint indirect_at;
    TimePoint end_at;
    bool indirect_sent = false;
    int expected_nacks = 0;
    int nacks = 0;
  };
  struct Relay {
    uint32_t orig_seq = 0;
    Endpoint reply_to;
    bool nack = false;
    TimePoint deadline;
  };

  // State transitions (membership.cpp).
  void aliveNode(const Alive& a, TimePoint now, Outbox& out, bool bootstrap);
  void suspectNode(const Suspect& s, TimePoint now, Outbox& out);
  void deadNode(const Dead& d, TimePoint now, Outbox& out);
  void refute(Member& self, uint32_t accused);
  void startSuspicion(const Member& m, const std::string& from, TimePoint now);
  bool confirmSuspicion(const std::string& node, const std::string& from);
  void handlePing(const Ping& p, const Endpoint& from, Outbox& out);
  void handleIndirect(const IndirectPing& p, const Endpoint& from, TimePoint now, Outbox& out);
  void handleAck(const Ack& a, TimePoint now, Outbox& out);
  Alive selfAlive() const;
  size_t liveCount() const;

  // Probing, gossip and broadcasts (probe.cpp).
  void queueBroadcast(const std::string& node, const Message& m);
  std::vector<Bytes> takeBroadcasts(size_t budget);
  void send(const Endpoint& to, bool crc, Bytes msg, Outbox& out);
  void sendTo(const Member& m, const Message& msg, Outbox& out);
  void startProbe(TimePoint now, Outbox& out);
  void advanceProbe(TimePoint now, Outbox& out);
  void sendIndirect(const Member& target, Outbox& out);
  void gossip(TimePoint now, Outbox& out);
  void pushPull(Outbox& out);
  void expireSuspicions(TimePoint now, Outbox& out);
  void expireRelays(TimePoint now, Outbox& out);
  void reap(TimePoint now);
  std::vector<const Member*> randomMembers(size_t k,
                                           const std::string& exclude,
                                           bool dead_ok,
                                           TimePoint now);
  void adjustAwareness(int delta);
  Duration scaled(Duration d) const;
  Duration pushPullInterval() const;

  std::string name_;
  Timing timing_;
  std::mt19937 rng_;
  std::map<std::string, Member> members_;
  std::map<std::string, Suspicion> suspicions_;
  std::vector<Broadcast> broadcasts_;
  std::map<uint32_t, Relay> relays_;
  std::optional<Probe> probe_;
  std::vector<std::string> probe_order_;
  size_t probe_index_ = 0;
  TimePoint next_probe_;
  TimePoint next_gossip_;
  TimePoint next_push_pull_;
  uint32_t seq_no_ = 0;
  uint64_t broadcast_id_ = 0;
  int awareness_ = 0;
  bool leaving_ = false;
  Counters counters_;
};

/// protocolVersions is what Ingot advertises: pmin 1, pmax 5, pcur 2, no delegate protocol —
/// what Go's memberlist 0.2–0.5 advertises with MetalLB's configuration.
Bytes protocolVersions();

}  // namespace ingot::agent::memberlist
