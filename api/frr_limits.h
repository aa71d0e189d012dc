// SPDX-License-Identifier: Apache-2.0
// What FRR 8.4 (and the Linux kernel under it) accepts for the values Ingot renders into FRR's
// configuration from BGPPeer and BFDProfile objects. Both the per-object validation (api/
// validate*.cpp, the webhooks) and the configuration parser (config/peers.cpp, bfd.cpp) call these,
// so a value FRR would refuse is refused before it reaches any node. Each function returns "" when
// the value is accepted, else the reason (a sentence fragment the caller prefixes with the object).
// The limits were read from FRR's CLI definitions and checked with vtysh against FRR 8.4.4
// (docs/compatibility.md lists where they are stricter than MetalLB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ingot::api::frr {

/// kMaxTcpMd5KeyBytes is the longest TCP-MD5 key Linux takes (TCP_MD5SIG_MAXKEYLEN); bgpd refuses
/// a longer `neighbor X password` with "% Invalid value".
inline constexpr size_t kMaxTcpMd5KeyBytes = 80;
/// kMaxTimerSeconds bounds `neighbor X timers KEEPALIVE HOLD` and `timers connect` (0-65535).
inline constexpr int64_t kMaxTimerSeconds = 65535;
/// kMaxBfdProfileName is frr-bfdd.yang's length limit of a profile name (1-64).
inline constexpr size_t kMaxBfdProfileName = 64;
/// kMaxDeviceName is the longest Linux network device name (IFNAMSIZ - 1): a VRF or an interface
/// with a longer name cannot exist, so a session naming one never comes up.
inline constexpr size_t kMaxDeviceName = 15;

/// passwordProblem: a TCP-MD5 key is at most 80 bytes and, being one CLI word, has no whitespace;
/// control characters are refused too (a line-based configuration cannot carry them faithfully).
std::string passwordProblem(std::string_view password);

/// timerProblem: a BGP timer in whole seconds must be at most 65535 (what = "hold time", ...).
std::string timerProblem(int64_t seconds, std::string_view what);

/// deviceNameProblem: a VRF or interface name FRR takes as one word and the kernel as a device
/// name: 1-15 bytes, no whitespace, control characters, '/' or ':', not "." or "..".
std::string deviceNameProblem(std::string_view name, std::string_view what);

/// routerIdProblem: `bgp router-id` takes an IPv4 address only (text is a valid IP).
std::string routerIdProblem(std::string_view text);

/// localAsnProblem: bgpd refuses `local-as` equal to the router's ASN or to the peer's ASN
/// (peer_asn 0 = dynamic, not compared).
std::string localAsnProblem(uint32_t my_asn, uint32_t peer_asn, uint32_t local_asn);

/// bfdProfileNameProblem: a BFD profile name is 1-64 bytes and one CLI word.
std::string bfdProfileNameProblem(std::string_view name);

}  // namespace ingot::api::frr
