// SPDX-License-Identifier: Apache-2.0
#include "api/frr_limits.h"

#include <algorithm>

namespace ingot::api::frr {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool isControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

bool hasAny(std::string_view text, bool (*pred)(char)) {
  return std::any_of(text.begin(), text.end(), pred);
}

}  // namespace

std::string passwordProblem(std::string_view password) {
  if (password.size() > kMaxTcpMd5KeyBytes) {
    return "is " + std::to_string(password.size()) + " bytes long; TCP-MD5 keys are at most " +
           std::to_string(kMaxTcpMd5KeyBytes) +
           " bytes (Linux TCP_MD5SIG_MAXKEYLEN, FRR refuses "
           "longer ones)";
  }
  if (hasAny(password, isSpace)) {
    return "contains whitespace, which FRR's `neighbor X password` does not accept";
  }
  if (hasAny(password, isControl)) {
    return "contains control characters";
  }
  return "";
}

std::string timerProblem(int64_t seconds, std::string_view what) {
  if (seconds > kMaxTimerSeconds) {
    return std::string(what) + " " + std::to_string(seconds) + "s is above FRR's limit of " +
           std::to_string(kMaxTimerSeconds) + "s";
  }
  return "";
}

std::string deviceNameProblem(std::string_view name, std::string_view what) {
  const std::string w(what);
  if (name.size() > kMaxDeviceName) {
    return w + " name " + std::string(name) + " is " + std::to_string(name.size()) +
           " bytes long; Linux device names are at most " + std::to_string(kMaxDeviceName) +
           " bytes";
  }
  if (name == "." || name == ".." || name.find_first_of("/:") != std::string_view::npos ||
      hasAny(name, isSpace) || hasAny(name, isControl)) {
    return w + " name " + std::string(name) +
           " is not a valid device name (no whitespace, control characters, '/' or ':', not . or "
           "..)";
  }
  return "";
}

std::string routerIdProblem(std::string_view text) {
  if (text.find(':') != std::string_view::npos) {
    return "router ID " + std::string(text) +
           " is an IPv6 address; FRR's bgp router-id takes an IPv4 address";
  }
  return "";
}

std::string localAsnProblem(uint32_t my_asn, uint32_t peer_asn, uint32_t local_asn) {
  if (local_asn == my_asn) {
    return "localASN " + std::to_string(local_asn) +
           " equals myASN; FRR refuses a local-as equal to the router's ASN";
  }
  if (peer_asn != 0 && local_asn == peer_asn) {
    return "localASN " + std::to_string(local_asn) +
           " equals peerASN; FRR refuses a local-as equal to the peer's ASN";
  }
  return "";
}

std::string bfdProfileNameProblem(std::string_view name) {
  if (name.size() > kMaxBfdProfileName) {
    return "BFD profile name is " + std::to_string(name.size()) +
           " bytes long; FRR takes at most " + std::to_string(kMaxBfdProfileName);
  }
  if (hasAny(name, isSpace) || hasAny(name, isControl)) {
    return "BFD profile name " + std::string(name) +
           " contains whitespace or control characters, which FRR does not accept";
  }
  return "";
}

}  // namespace ingot::api::frr
