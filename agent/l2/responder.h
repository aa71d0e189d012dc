// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "agent/l2/core/probe.h"
#include "agent/l2/interfaces.h"
#include "common/net/ip.h"
#include "common/util/result.h"

namespace ingot::agent::l2 {

/// ResponderOptions tunes the responder; the defaults are MetalLB's.
struct ResponderOptions {
  /// Gratuitous ARP / unsolicited NA: sent at once on every announce, then every
  /// `gratuitous_interval` until `gratuitous_window` after the latest announce of the address.
  std::chrono::milliseconds gratuitous_interval{1100};
  std::chrono::milliseconds gratuitous_window{5000};
  /// Interfaces are rescanned this often and on every rtnetlink link change.
  std::chrono::milliseconds rescan_interval{10000};
  /// Interfaces whose name matches are never used.
  ExcludeList exclude;
  /// How addresses announced with `probe` are probed before they are answered.
  ProbeTiming probe;
};

/// IpCounters are the per-address counters (MetalLB's metallb_layer2_* with label ip).
struct IpCounters {
  uint64_t requests_received = 0;  ///< ARP requests / NS for the address on an announcing interface
  uint64_t responses_sent = 0;
  uint64_t gratuitous_sent = 0;
};

/// ResponderStats is a snapshot of every counter.
struct ResponderStats {
  std::map<net::IpAddress, IpCounters> per_ip;
  std::array<uint64_t, kDropReasonCount> drops{};  ///< indexed by DropReason
  uint64_t send_errors = 0;
  uint64_t scan_errors = 0;
  /// probes is every address probed before it is answered (absent once answered).
  std::map<net::IpAddress, ProbeStatus> probes;
  uint64_t probes_sent = 0;         ///< ARP probes and DAD solicitations
  uint64_t conflicts_detected = 0;  ///< transitions of an address into conflict
};

struct ResponderState;

/// Responder answers ARP and NDP for the addresses it is told it owns, on the host's usable
/// interfaces, from one poll-loop thread. It never adds addresses to interfaces. Every public
/// method is thread-safe; after withdraw() returns no reply for that address is sent.
class Responder {
 public:
  /// start scans the interfaces (in the calling thread's network namespace) and starts the loop.
  static Result<std::unique_ptr<Responder>> start(ResponderOptions options);
  ~Responder();
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  /// announce records that `owner` (e.g. "namespace/name" of a Service) announces `ip`, on the
  /// named interfaces or (nullopt) on all usable ones. Owners sharing an address are counted;
  /// every call starts or extends the gratuitous burst for the address. With `probe`, an
  /// address not answered yet is first probed (ARP probes / DAD solicitations) and answered
  /// only once a round finds no other host using it; a conflict is retried with backoff. An
  /// announce without `probe` answers at once (and ends a probe of the address).
  void announce(const std::string& owner,
                const net::IpAddress& ip,
                const std::optional<std::set<std::string>>& interfaces,
                bool probe = false);
  /// setMemberMacs sets the MACs of the cluster's other members: their answers for a probed
  /// address are not conflicts (this node's own MACs never are).
  void setMemberMacs(std::set<Mac> macs);
  /// setProbeListener sets what is called (from the responder's thread, without its lock)
  /// when an address is found in conflict or free; it must not block.
  void setProbeListener(std::function<void()> listener);
  /// withdraw removes one owner of `ip`; the address stops being answered when none is left.
  /// Nothing is sent on withdraw.
  void withdraw(const std::string& owner, const net::IpAddress& ip);
  /// owned reports whether some owner announces `ip`.
  bool owned(const net::IpAddress& ip) const;
  /// interfaces returns the usable interfaces of the latest scan.
  std::vector<AnnounceInterface> interfaces() const;
  /// rescan asks the loop for an interface scan now (also done periodically and on link events).
  void rescan();
  /// stats returns a snapshot of the counters.
  ResponderStats stats() const;

 private:
  explicit Responder(std::unique_ptr<ResponderState> state);
  void run();

  std::unique_ptr<ResponderState> state_;
  std::thread thread_;
};

}  // namespace ingot::agent::l2
