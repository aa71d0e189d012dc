// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"

namespace ingot::net {

/// U128 is the arithmetic type for addresses: IPv4 uses the low 32 bits.
using U128 = unsigned __int128;

enum class Family : uint8_t { V4 = 4, V6 = 6 };

/// familyName returns "IPv4" or "IPv6" (Kubernetes' spelling in spec.ipFamilies).
std::string_view familyName(Family f);

/// bitsOf returns the address width of a family: 32 or 128.
constexpr int bitsOf(Family f) {
  return f == Family::V4 ? 32 : 128;
}

/// IpAddress is an IPv4 or IPv6 address as a value. Ordering: all IPv4 before all IPv6, then by
/// numeric value.
class IpAddress {
 public:
  IpAddress() = default;
  static IpAddress v4(uint32_t value) { return IpAddress(Family::V4, value); }
  static IpAddress v6(U128 value) { return IpAddress(Family::V6, value); }
  /// of builds an address of family f; value must fit the family (low 32 bits for IPv4).
  static IpAddress of(Family f, U128 value) { return IpAddress(f, value); }

  /// parse accepts dotted-quad IPv4 and RFC 4291 IPv6 text (no zone, no prefix, no spaces).
  /// An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is an IPv4 address, as in Go's net.ParseIP.
  static Result<IpAddress> parse(std::string_view text);

  Family family() const { return family_; }
  bool isV4() const { return family_ == Family::V4; }
  bool isV6() const { return family_ == Family::V6; }
  U128 value() const { return value_; }
  int bits() const { return bitsOf(family_); }

  /// toString formats the address exactly as Go's net.IP.String() does, which is what MetalLB
  /// writes into Service status and hashes in the L2 election: lower-case hex, the longest run of
  /// two or more zero groups compressed (the first on a tie), no dotted-quad tail.
  std::string toString() const;

  /// masked returns the address with all bits after the first prefix_len cleared.
  IpAddress masked(int prefix_len) const;

  /// plus returns the address offset by n; the caller keeps the result inside the family's space.
  IpAddress plus(U128 n) const { return IpAddress(family_, value_ + n); }

  friend auto operator<=>(const IpAddress&, const IpAddress&) = default;
  friend bool operator==(const IpAddress&, const IpAddress&) = default;

 private:
  IpAddress(Family f, U128 v) : family_(f), value_(v) {}
  Family family_ = Family::V4;  // declared first so the defaulted ordering puts IPv4 first
  U128 value_ = 0;
};

/// maxValue returns the highest address value of a family.
U128 maxValue(Family f);

/// Cidr is a network: a base address with all host bits zero and a prefix length.
class Cidr {
 public:
  Cidr() = default;
  /// Cidr masks the host bits of base off, as Go's net.ParseCIDR does ("10.0.0.7/24"
  /// is 10.0.0.0/24).
  Cidr(IpAddress base, int prefix_len);

  /// parse accepts "ADDR/LEN"; LEN must be 0..32 for IPv4 and 0..128 for IPv6.
  static Result<Cidr> parse(std::string_view text);

  const IpAddress& base() const { return base_; }
  int prefixLength() const { return prefix_len_; }
  Family family() const { return base_.family(); }
  IpAddress first() const { return base_; }
  IpAddress last() const;
  bool contains(const IpAddress& ip) const;
  bool overlaps(const Cidr& other) const;
  /// hostBits is bits() - prefixLength().
  int hostBits() const { return base_.bits() - prefix_len_; }
  /// size is the number of addresses, saturating at the U128 maximum for ::/0.
  U128 size() const;

  std::string toString() const;

  friend auto operator<=>(const Cidr&, const Cidr&) = default;
  friend bool operator==(const Cidr&, const Cidr&) = default;

 private:
  IpAddress base_;
  int prefix_len_ = 0;
};

/// summarizeRange returns the minimal list of CIDRs that exactly covers first..last (inclusive),
/// lowest first. Both must be of one family and first <= last.
Result<std::vector<Cidr>> summarizeRange(const IpAddress& first, const IpAddress& last);

/// parseCidrOrRange parses one IPAddressPool `addresses` entry: a CIDR, or an inclusive range
/// "A-B" (spaces around A and B are trimmed), summarised into CIDRs. Errors say why.
Result<std::vector<Cidr>> parseCidrOrRange(std::string_view text);

/// u128ToString formats an unsigned 128-bit integer in decimal.
std::string u128ToString(U128 v);

}  // namespace ingot::net
