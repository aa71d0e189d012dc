// SPDX-License-Identifier: Apache-2.0
// sessions: frr-k8s' BGP and BFD session metrics (frrk8s_bgp_session_up,
// frrk8s_bgp_announced_prefixes_total, frrk8s_bgp_received_prefixes_total,
// frrk8s_bgp_updates_total, frrk8s_bfd_session_up; labels peer and vrf) read from FRR's JSON show
// commands when /metrics is read. The parsers are pure; SessionReader runs vtysh.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "agent/bgp/frr_driver.h"
#include "agent/bgp/vtysh_session.h"
#include "common/daemon/prometheus.h"

namespace ingot::ingotfrr {

/// BgpSession is one neighbor of `show bgp vrf all neighbors json`.
struct BgpSession {
  std::string peer;
  std::string vrf;
  bool established = false;
  uint64_t announced = 0;  ///< prefixes sent, every address family
  uint64_t received = 0;   ///< prefixes accepted, every address family
  uint64_t updates_sent = 0;
  friend bool operator==(const BgpSession&, const BgpSession&) = default;
};

/// BfdSession is one peer of `show bfd peers json`.
struct BfdSession {
  std::string peer;
  std::string vrf;
  bool up = false;
  friend bool operator==(const BfdSession&, const BfdSession&) = default;
};

/// parseBgpNeighbors reads `show bgp vrf all neighbors json` (FRR 8.4+). Unreadable → empty.
std::vector<BgpSession> parseBgpNeighbors(std::string_view json);

/// parseBfdPeers reads `show bfd peers json`. Unreadable → empty.
std::vector<BfdSession> parseBfdPeers(std::string_view json);

/// sessionFamilies turns sessions into frr-k8s' metric families.
std::vector<daemon::MetricFamily> sessionFamilies(const std::vector<BgpSession>& bgp,
                                                  const std::vector<BfdSession>& bfd);

/// SessionReader queries FRR through its own vtysh (not the applier's). Thread-safe.
class SessionReader {
 public:
  explicit SessionReader(const agent::bgp::FrrDriverOptions& options);
  /// families returns the session metrics; none while FRR does not answer.
  std::vector<daemon::MetricFamily> families();

 private:
  std::mutex mu_;
  agent::bgp::VtyshSession vtysh_;
};

}  // namespace ingot::ingotfrr
