// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/memberlist/core/membership.h"
#include "agent/memberlist/core/security.h"
#include "agent/memberlist/core/wire.h"
#include "common/util/log.h"
#include "common/util/result.h"

namespace ingot::agent::memberlist {

/// TransportConfig configures one gossip member.
struct TransportConfig {
  std::string name;                     ///< member name (MetalLB: the node name)
  std::string bind_addr = "127.0.0.1";  ///< IPv4 or IPv6 literal; also the advertised address
  uint16_t port = 7946;                 ///< TCP and UDP; 0 picks a free port for both
  Timing timing = Timing::fast();
  std::optional<Keyring> keyring;     ///< none: plaintext (MetalLB without a secret)
  size_t max_stream_bytes = 4 << 20;  ///< bound on one TCP message (Go allows 20 MiB)
  size_t max_connections = 32;        ///< concurrent TCP streams; more are refused
  /// Join push/pulls that may wait for a stream once max_connections are taken; more are
  /// refused. 0 (the default): none wait. Measured with bench/memberlist_scale.cpp, waiting
  /// slows the start of 200 members that all join each other (every member then exchanges its
  /// full state with every other one); one join call with many seeds and few streams is what
  /// it serves.
  size_t max_waiting_joins = 0;
  uint32_t seed = 0;  ///< 0: seeded from the clock
  Bytes meta;         ///< advertised metadata (at most kMaxMetaLength bytes)
};

/// TransportCounters are totals since start (for metrics, logs and tests).
struct TransportCounters {
  uint64_t udp_in = 0;
  uint64_t udp_out = 0;
  uint64_t udp_bytes_in = 0;
  uint64_t udp_bytes_out = 0;
  uint64_t tcp_accepted = 0;
  uint64_t tcp_connected = 0;
  uint64_t tcp_refused = 0;  ///< over max_connections (joins: over max_waiting_joins too)
  uint64_t tcp_waited = 0;   ///< join push/pulls that waited for a free stream
  uint64_t tcp_timeouts = 0;
  std::map<std::string, uint64_t> drops;  ///< by dropReasonName, packets and streams
};

/// MemberView is one member of a snapshot.
struct MemberView {
  std::string name;
  Endpoint addr;
  NodeState state = NodeState::Alive;
  uint32_t incarnation = 0;
  Bytes meta;
};

/// Node runs one memberlist member: a UDP socket and a TCP listener on the same port, and one
/// I/O thread that owns the sockets and the Membership state machine. Public methods are
/// thread-safe. Every buffer is bounded (datagram size, stream size, connection count).
class Node {
 public:
  using EventFn = std::function<void(const Outbox::Event&)>;

  /// start binds, starts the I/O thread and returns the member. `on_event` runs on the I/O
  /// thread and must not call back into the Node.
  static Result<std::unique_ptr<Node>> start(TransportConfig cfg,
                                             log::Logger* logger,
                                             EventFn on_event = {});
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// port is the bound TCP/UDP port (useful with port 0).
  uint16_t port() const { return port_; }
  /// join starts a join push/pull with each "host:port" seed (bad entries are logged). Seeds
  /// beyond max_connections wait, in order, for streams to finish (up to max_waiting_joins).
  void join(const std::vector<std::string>& seeds);
  /// joinsInFlight counts the join push/pulls not finished yet (queued, connecting or waiting
  /// for the answer). Once it is 0, every answer that came back has been merged and its
  /// membership events delivered.
  size_t joinsInFlight() const;
  /// leave announces this member's departure and waits up to `wait` for it to be sent.
  void leave(std::chrono::milliseconds wait);
  /// members returns the current table, sorted by name.
  std::vector<MemberView> members() const;
  TransportCounters counters() const;
  Counters membershipCounters() const;

 private:
  struct Conn;
  Node(TransportConfig cfg, log::Logger* logger, EventFn on_event);
  Result<void> bind();
  void loop();
  void readUdp(TimePoint now, Outbox& out);
  void execute(Outbox& out, TimePoint now);
  void sendPacket(const Outbox::Packet& p);
  void accept(TimePoint now);
  void openStream(const Outbox::Stream& s, TimePoint now);
  void connectStream(const Outbox::Stream& s, TimePoint now);
  void openWaiting(TimePoint now);
  void serviceConn(Conn& c, short revents, TimePoint now, Outbox& out);
  bool finishRead(Conn& c, TimePoint now, Outbox& out);
  void closeConn(Conn& c, const char* drop);
  void noteDrop(DropReason r, const std::string& from);
  void wake();

  TransportConfig cfg_;
  log::Logger* logger_;
  EventFn on_event_;
  Security sec_;
  Endpoint self_;
  int family_ = 0;
  int udp_fd_ = -1;
  int tcp_fd_ = -1;
  int wake_fd_ = -1;
  uint16_t port_ = 0;
  mutable std::mutex mu_;  // guards membership_, pending_, counters_, conns_, waiting_
  std::unique_ptr<Membership> membership_;
  Outbox pending_;
  TransportCounters counters_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::deque<Outbox::Stream> waiting_;  ///< join push/pulls for the next free streams, in order
  std::map<std::string, TimePoint> last_drop_log_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

/// parseHostPort splits "host:port" or "[v6]:port" into an endpoint (IP literals only).
Result<Endpoint> parseHostPort(const std::string& text);

}  // namespace ingot::agent::memberlist
