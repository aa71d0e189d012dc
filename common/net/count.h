// SPDX-License-Identifier: Apache-2.0
// Count: an exact number of addresses, one bit wider than U128. The IPv6 space holds 2^128
// addresses (a pool of ::/0), one more than a U128 can hold, and a pool's IPv4 and IPv6 totals
// together exceed that again; every count of non-overlapping pools fits below 2^129.
#pragma once

#include <compare>
#include <iosfwd>
#include <string>

#include "common/net/ip.h"

namespace ingot::net {

/// Count is carry·2^128 + low: exact from 0 to 2^129 − 1. operator+ saturates at the maximum and
/// operator- at zero (b > a); neither happens for the address counts of non-overlapping pools.
class Count {
 public:
  constexpr Count() = default;
  /// Count(v) is v exactly (implicit: counts and U128 values mix in arithmetic and comparisons).
  constexpr Count(U128 v) : low_(v) {}  // NOLINT(google-explicit-constructor)

  /// ofCidr returns the number of addresses of c, exactly (2^128 for ::/0).
  static Count ofCidr(const Cidr& c);

  /// fitsU128 is true when the value is below 2^128; low() is then the value.
  bool fitsU128() const { return !carry_; }
  U128 low() const { return low_; }

  friend Count operator+(const Count& a, const Count& b);
  friend Count operator-(const Count& a, const Count& b);
  friend bool operator==(const Count&, const Count&) = default;
  friend std::strong_ordering operator<=>(const Count& a, const Count& b) {
    if (a.carry_ != b.carry_) {
      return a.carry_ ? std::strong_ordering::greater : std::strong_ordering::less;
    }
    return a.low_ == b.low_
               ? std::strong_ordering::equal
               : (a.low_ < b.low_ ? std::strong_ordering::less : std::strong_ordering::greater);
  }

  /// toString formats the value in decimal.
  std::string toString() const;
  /// toDouble is the value as a double (rounded, as every double above 2^53 is).
  double toDouble() const;

  /// operator<< writes toString() (test diagnostics).
  friend std::ostream& operator<<(std::ostream& out, const Count& c);

 private:
  bool carry_ = false;
  U128 low_ = 0;
};

}  // namespace ingot::net
