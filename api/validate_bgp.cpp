// SPDX-License-Identifier: Apache-2.0
// Shared validation helpers and the BGPPeer rules (MetalLB's BGPPeer CRD and peer parser).
#include <charconv>
#include <set>

#include "api/convert.h"
#include "api/duration.h"
#include "api/frr_limits.h"
#include "api/selector.h"
#include "api/validate_internal.h"
#include "common/net/ip.h"

namespace ingot::api {
namespace validation {
namespace {

constexpr int64_t kSecond = 1000000000;

/// requirementText renders one match expression for duplicate detection and messages.
std::string requirementText(const LabelSelectorRequirement& r) {
  LabelSelector single;
  single.match_expressions.push_back(r);
  return selectorToString(single);
}

/// parseUint parses decimal digits into a value <= max (Go strconv.ParseUint base 10).
bool parseUint(const std::string& s, uint64_t max) {
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size() && v <= max;
}

std::vector<std::string> splitColons(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon - start));
    if (colon == std::string::npos) {
      return parts;
    }
    start = colon + 1;
  }
}

}  // namespace

void checkName(const ObjectMeta& meta, Errors& errors, bool allow_generate_name) {
  if (meta.name.empty() && !(allow_generate_name && !meta.generate_name.empty())) {
    add(errors, "metadata.name",
        allow_generate_name ? "Required value: name or generateName is required"
                            : "Required value: name is required");
  }
}

void checkDuplicates(const std::vector<std::string>& list,
                     const std::string& field,
                     const std::string& what,
                     Errors& errors) {
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!seen.insert(list[i]).second) {
      add(errors, field + "[" + std::to_string(i) + "]",
          "duplicate definition of " + what + " " + goQuote(list[i]));
      return;
    }
  }
}

void checkSelector(const LabelSelector& selector, const std::string& field, Errors& errors) {
  std::set<std::string> expressions;
  for (size_t i = 0; i < selector.match_expressions.size(); ++i) {
    const auto& r = selector.match_expressions[i];
    const std::string at = field + ".matchExpressions[" + std::to_string(i) + "]";
    checkDuplicates(r.values, at + ".values", "match expression value in label selector", errors);
    if (!expressions.insert(requirementText(r)).second) {
      add(errors, at, "duplicate definition of match expressions " + goQuote(requirementText(r)));
    }
  }
  auto ok = api::checkSelector(selector);
  if (!ok) {
    add(errors, field, ok.error().message);
  }
}

void checkSelectors(const std::vector<LabelSelector>& list,
                    const std::string& field,
                    const std::string& what,
                    Errors& errors) {
  std::set<std::string> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = field + "[" + std::to_string(i) + "]";
    checkSelector(list[i], at, errors);
    // Compared in canonical form, as MetalLB compares selectors after sorting their values.
    const std::string text = selectorToString(list[i]);
    if (!seen.insert(text).second) {
      add(errors, at, "duplicate definition of " + what + " " + goQuote(text));
    }
  }
}

void checkRange(int64_t value, int64_t min, int64_t max, const std::string& field, Errors& errors) {
  if (value < min) {
    add(errors, field,
        "Invalid value: " + std::to_string(value) + ": " + field +
            " in body should be greater than or equal to " + std::to_string(min));
  } else if (value > max) {
    add(errors, field,
        "Invalid value: " + std::to_string(value) + ": " + field +
            " in body should be less than or equal to " + std::to_string(max));
  }
}

namespace {

/// holdNanoseconds is the hold time in use: the one given, else 3 x the keepalive, as MetalLB
/// derives it (128-bit, so 3 x keepalive cannot overflow). One of the two must be set.
__int128 holdNanoseconds(const std::optional<Duration>& hold,
                         const std::optional<Duration>& keepalive) {
  return hold ? hold->nanoseconds : __int128{keepalive->nanoseconds} * 3;
}

}  // namespace

void checkTimers(const std::optional<Duration>& hold,
                 const std::optional<Duration>& keepalive,
                 const std::string& field_prefix,
                 const std::string& message_prefix,
                 Errors& errors) {
  if (!hold && !keepalive) {
    return;
  }
  // Derive the missing timer as MetalLB does.
  const __int128 hold_ns = holdNanoseconds(hold, keepalive);
  const __int128 keepalive_ns = keepalive ? keepalive->nanoseconds : hold->nanoseconds / 3;
  const __int128 rounded = hold_ns / kSecond * kSecond;
  const std::string hold_text =
      formatGoDuration(hold ? hold->nanoseconds : static_cast<int64_t>(hold_ns));
  if (rounded != 0 && rounded < 3 * kSecond) {
    add(errors, field_prefix + (hold ? "holdTime" : "keepaliveTime"),
        message_prefix + "invalid hold time " + goQuote(hold_text) + ": must be 0 or >=3s");
  }
  if (keepalive_ns > hold_ns) {
    add(errors, field_prefix + "keepaliveTime",
        message_prefix + "invalid keepaliveTime " +
            goQuote(formatGoDuration(keepalive->nanoseconds)) + ", must be lower than holdTime " +
            goQuote(hold_text));
  }
}

void checkFrrHoldTime(const std::optional<Duration>& hold,
                      const std::optional<Duration>& keepalive,
                      const std::string& field_prefix,
                      const std::string& message_prefix,
                      Errors& errors) {
  if (!hold && !keepalive) {
    return;
  }
  // FRR takes whole seconds up to 65535 (the keepalive, at most the hold time, then fits too).
  const __int128 hold_ns = holdNanoseconds(hold, keepalive);
  const auto hold_seconds = static_cast<int64_t>(hold_ns / kSecond);  // fits: at most 3 x int64
  if (auto p = frr::timerProblem(hold_seconds, "hold time"); !p.empty()) {
    add(errors, field_prefix + (hold ? "holdTime" : "keepaliveTime"), message_prefix + p);
  }
}

void checkConnectTime(const std::optional<Duration>& connect,
                      const std::string& field,
                      Errors& errors) {
  if (!connect) {
    return;
  }
  // CEL: duration(self).getSeconds() and getMilliseconds() truncate toward zero.
  const int64_t seconds = connect->nanoseconds / kSecond;
  const int64_t millis = connect->nanoseconds / 1000000;
  if (seconds < 1 || seconds > 65535) {
    add(errors, field, "connect time should be between 1 seconds to 65535");
  }
  if (millis % 1000 != 0) {
    add(errors, field, "connect time should contain a whole number of seconds");
  }
}

void checkIp(const std::string& text,
             const std::string& field,
             const std::string& message,
             Errors& errors) {
  if (!text.empty() && !net::IpAddress::parse(text)) {
    add(errors, field, message + " " + goQuote(text));
  }
}

bool isCommunityFormat(const std::string& text) {
  const size_t parts = splitColons(text).size();
  return parts == 2 || parts == 4;
}

std::string communityError(const std::string& text) {
  const auto parts = splitColons(text);
  if (parts.size() == 2) {
    for (const auto& part : parts) {
      if (!parseUint(part, 0xffff)) {
        return "invalid community value: invalid section " + goQuote(part) + " of community " +
               goQuote(text);
      }
    }
    return "";
  }
  if (parts.size() == 4) {
    if (parts[0] != "large") {
      return "invalid community value: invalid marker for large community, expected community "
             "to be of format large:<uint32>:<uint32>:<uint32> but got " +
             goQuote(text) + " instead";
    }
    for (size_t i = 1; i < 4; ++i) {
      if (!parseUint(parts[i], 0xffffffff)) {
        return "invalid community value: invalid section " + goQuote(parts[i]) + " of community " +
               goQuote(text);
      }
    }
    return "";
  }
  return "invalid community format: " + text;
}

namespace {

void checkAsns(const BGPPeerSpec& s, Errors& errors) {
  if (s.my_asn == 0) {
    add(errors, "spec.myASN", "missing local ASN");
  }
  if (s.peer_asn == 0 && s.dynamic_asn.empty()) {
    add(errors, "spec.peerASN", "missing peer ASN and dynamicASN");
  }
  if (s.peer_asn != 0 && !s.dynamic_asn.empty()) {
    add(errors, "spec.dynamicASN", "both peer ASN and dynamicASN specified");
  }
  if (!s.dynamic_asn.empty() && s.dynamic_asn != "internal" && s.dynamic_asn != "external") {
    add(errors, "spec.dynamicASN", "invalid dynamicASN " + s.dynamic_asn);
  }
  if (s.local_asn) {
    checkRange(*s.local_asn, 1, 4294967295, "spec.localASN", errors);
  }
  if (s.peer_asn == s.my_asn && s.ebgp_multi_hop) {
    add(errors, "spec.ebgpMultiHop", "invalid ebgp-multihop parameter set for an ibgp peer");
  }
}

bool hasNewline(const std::string& s) {
  return s.find_first_of("\r\n") != std::string::npos;
}

void checkEndpoints(const BGPPeer& peer, Errors& errors) {
  const auto& s = peer.spec;
  const std::string who = goQuote(peer.metadata.namespace_) + "/" + goQuote(peer.metadata.name);
  if (s.peer_address.empty() && s.interface.empty()) {
    add(errors, "spec.peerAddress", "peer has no Address or Interface specified");
  }
  if (!s.peer_address.empty() && !s.interface.empty()) {
    add(errors, "spec.interface", "peer has both Address and Interface specified");
  }
  if (hasNewline(s.interface)) {
    add(errors, "spec.interface", "interface for peer " + who + " contains invalid characters");
  }
  checkIp(s.peer_address, "spec.peerAddress", "invalid BGPPeer address", errors);
  checkIp(s.router_id, "spec.routerID", "invalid router ID", errors);
  checkIp(s.source_address, "spec.sourceAddress", "invalid source IP", errors);
  const bool has_secret = s.password_secret && !s.password_secret->name.empty();
  if (!s.password.empty() && has_secret) {
    add(errors, "spec.passwordSecret",
        "can not have both password and secret ref set in peer config " + who);
  }
  if (hasNewline(s.password)) {
    add(errors, "spec.password", "password for peer " + who + " contains invalid characters");
  }
  if (hasNewline(s.vrf)) {
    add(errors, "spec.vrf", "VRF name for peer " + who + " contains invalid characters");
  }
}

}  // namespace

void checkFrrLimits(const BGPPeer& peer, Errors& errors) {
  const auto& s = peer.spec;
  checkFrrHoldTime(s.hold_time, s.keepalive_time, "spec.", "invalid BGPPeer timers: ", errors);
  const std::string who = goQuote(peer.metadata.namespace_) + "/" + goQuote(peer.metadata.name);
  if (auto p = frr::passwordProblem(s.password); !s.password.empty() && !p.empty()) {
    add(errors, "spec.password", "password for peer " + who + " " + p);
  }
  if (auto p = frr::deviceNameProblem(s.vrf, "VRF"); !s.vrf.empty() && !p.empty()) {
    add(errors, "spec.vrf", "peer " + who + ": " + p);
  }
  if (auto p = frr::deviceNameProblem(s.interface, "interface");
      !s.interface.empty() && !p.empty()) {
    add(errors, "spec.interface", "peer " + who + ": " + p);
  }
  if (net::IpAddress::parse(s.router_id)) {
    if (auto p = frr::routerIdProblem(s.router_id); !p.empty()) {
      add(errors, "spec.routerID", "peer " + who + ": " + p);
    }
  }
  if (s.local_asn && *s.local_asn != 0) {
    if (auto p = frr::localAsnProblem(s.my_asn, s.peer_asn, *s.local_asn); !p.empty()) {
      add(errors, "spec.localASN", "peer " + who + ": " + p);
    }
  }
}

void validateBgpPeer(const BGPPeer& peer, Errors& errors) {
  checkName(peer.metadata, errors);
  const auto& s = peer.spec;
  checkAsns(s, errors);
  checkEndpoints(peer, errors);
  checkFrrLimits(peer, errors);
  if (s.peer_port) {
    checkRange(*s.peer_port, 1, 16384, "spec.peerPort", errors);
  }
  checkTimers(s.hold_time, s.keepalive_time, "spec.", "invalid BGPPeer timers: ", errors);
  checkConnectTime(s.connect_time, "spec.connectTime", errors);
  checkSelectors(s.node_selectors, "spec.nodeSelectors", "nodeSelectors", errors);
}

void validateBgpPeerV1beta1(const BGPPeerV1beta1& peer, Errors& errors) {
  // MetalLB validates the converted v1beta2 object; only the port range differs (0..16384).
  BGPPeer converted = toV1beta2(peer);
  if (converted.spec.peer_port == uint16_t{0}) {
    converted.spec.peer_port.reset();
  }
  validateBgpPeer(converted, errors);
}

}  // namespace validation

std::vector<FieldError> frrLimitErrors(const BGPPeer& peer) {
  validation::Errors errors;
  validation::checkFrrLimits(peer, errors);
  return errors;
}

}  // namespace ingot::api
