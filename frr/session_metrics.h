// SPDX-License-Identifier: Apache-2.0
// BGP and BFD session visibility: the node's FRR is asked for its sessions through its JSON show
// commands and the answers become the metric families MetalLB's FRR mode exports (the agent in frr
// mode: metallb_bgp_session_up, metallb_bgp_announced_prefixes_total, metallb_bgp_updates_total,
// …, metallb_bfd_session_up, metallb_bfd_control_packet_input, …) or frr-k8s exports (ingot-frr:
// the same families named frrk8s_…, plus frrk8s_bgp_received_prefixes_total), with the same
// names, labels and meaning, so that dashboards and alerts written for either keep working.
//
// The parsers and sessionFamilies() are pure (table-driven tests on captured FRR 8.4 output);
// SessionMetrics runs the commands through a VtyshPort.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/daemon/prometheus.h"
#include "common/util/result.h"
#include "frr/vtysh_session.h"

namespace ingot::frr {

/// BgpNeighborStats is one neighbor of `show bgp vrf V neighbors json`.
struct BgpNeighborStats {
  std::string vrf;
  std::string address;
  int64_t port = 0;                ///< the peer's TCP port ("portForeign"; FRR says -1 unconnected)
  bool established = false;        ///< bgpState is "Established"
  uint64_t sent_prefixes = 0;      ///< sentPrefixCounter summed over the address families
  uint64_t received_prefixes = 0;  ///< acceptedPrefixCounter summed over the address families
  uint64_t opens_sent = 0;
  uint64_t opens_received = 0;
  uint64_t notifications_sent = 0;
  uint64_t updates_sent = 0;
  uint64_t updates_received = 0;
  uint64_t keepalives_sent = 0;
  uint64_t keepalives_received = 0;
  uint64_t route_refresh_sent = 0;
  uint64_t total_sent = 0;
  uint64_t total_received = 0;
  friend bool operator==(const BgpNeighborStats&, const BgpNeighborStats&) = default;
};

/// BfdPeerStats is one peer of `show bfd vrf V peers json`, with its counters from
/// `show bfd vrf V peers counters json` when that lists it.
struct BfdPeerStats {
  std::string vrf;
  std::string peer;
  bool up = false;  ///< status is "up"
  bool has_counters = false;
  uint64_t control_packet_input = 0;
  uint64_t control_packet_output = 0;
  uint64_t echo_packet_input = 0;
  uint64_t echo_packet_output = 0;
  uint64_t session_up_events = 0;
  uint64_t session_down_events = 0;
  uint64_t zebra_notifications = 0;
  friend bool operator==(const BfdPeerStats&, const BfdPeerStats&) = default;
};

/// SessionSnapshot is everything one read of FRR found.
struct SessionSnapshot {
  std::vector<BgpNeighborStats> bgp;
  std::vector<BfdPeerStats> bfd;
};

/// parseVrfNames returns the VRF names (the object's keys, sorted) of `show bgp vrf all json`.
Result<std::vector<std::string>> parseVrfNames(std::string_view json);

/// parseBgpNeighbors reads `show bgp vrf <vrf> neighbors json` (an object keyed by the neighbor's
/// address). Errors name the neighbor and the field.
Result<std::vector<BgpNeighborStats>> parseBgpNeighbors(std::string_view json,
                                                        const std::string& vrf);

/// parseBfdPeers reads `show bfd vrf <vrf> peers json` and `… peers counters json` (arrays of
/// peers, matched by peer address and local address).
Result<std::vector<BfdPeerStats>> parseBfdPeers(std::string_view peers,
                                                std::string_view counters,
                                                const std::string& vrf);

/// SessionMetricStyle says whose session families to export. The two differ in the name prefix,
/// the BGP peer label and one family; help texts, types and the other labels are the same.
struct SessionMetricStyle {
  std::string_view prefix;         ///< "metallb" or "frrk8s"
  bool peer_port = true;           ///< BGP peer label "address:port" (MetalLB) or the address
  bool received_prefixes = false;  ///< export <prefix>_bgp_received_prefixes_total (frr-k8s)
};

/// kMetalLbSessions: MetalLB's FRR mode (its frr-metrics sidecar), for the agent in frr mode.
inline constexpr SessionMetricStyle kMetalLbSessions{"metallb", true, false};
/// kFrrK8sSessions: frr-k8s' metrics, for ingot-frr.
inline constexpr SessionMetricStyle kFrrK8sSessions{"frrk8s", false, true};

/// sessionFamilies returns the style's families for the snapshot: labels peer (see
/// SessionMetricStyle for BGP; the address for BFD) and vrf. Every family is present even without
/// samples.
std::vector<daemon::MetricFamily> sessionFamilies(const SessionSnapshot& snapshot,
                                                  const SessionMetricStyle& style);

/// SessionMetrics reads the sessions through its own vtysh (not the applier's). Thread-safe.
class SessionMetrics {
 public:
  /// vtysh must outlive this object and be used by nothing else.
  SessionMetrics(VtyshPort& vtysh, const SessionMetricStyle& style)
      : vtysh_(vtysh), style_(style) {}

  /// read asks FRR for every VRF's BGP neighbors and BFD peers.
  Result<SessionSnapshot> read();

  /// families is sessionFamilies(read()), or no families when FRR cannot be read (the error
  /// is kept for lastError()).
  std::vector<daemon::MetricFamily> families();

  /// lastError is the last read's error ("" when it worked).
  std::string lastError() const;

 private:
  Result<SessionSnapshot> readLocked();
  Result<void> readVrf(const std::string& vrf, SessionSnapshot& snap);

  mutable std::mutex mu_;
  VtyshPort& vtysh_;
  SessionMetricStyle style_;
  std::string last_error_;
};

/// SessionReader is SessionMetrics over a vtysh session of its own (not the applier's: a /metrics
/// read must not wait for an apply, nor an apply for a read).
class SessionReader {
 public:
  SessionReader(VtyshSessionOptions options, const SessionMetricStyle& style)
      : session_(std::move(options)), metrics_(session_, style) {}

  /// families is SessionMetrics::families() (no families while FRR does not answer).
  std::vector<daemon::MetricFamily> families() { return metrics_.families(); }

 private:
  VtyshSession session_;
  SessionMetrics metrics_;
};

}  // namespace ingot::frr
