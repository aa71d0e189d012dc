// SPDX-License-Identifier: Apache-2.0
#include "common/net/count.h"

#include <algorithm>
#include <ostream>

namespace ingot::net {

namespace {

constexpr U128 kLowMax = ~U128{0};
constexpr const char* kTwoTo128 = "340282366920938463463374607431768211456";

// addDecimal adds two non-negative decimal strings.
std::string addDecimal(const std::string& a, const std::string& b) {
  std::string out;
  int carry = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()) || carry != 0; ++i) {
    const int da = i < a.size() ? a[a.size() - 1 - i] - '0' : 0;
    const int db = i < b.size() ? b[b.size() - 1 - i] - '0' : 0;
    const int sum = da + db + carry;
    out.push_back(static_cast<char>('0' + sum % 10));
    carry = sum / 10;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

Count Count::ofCidr(const Cidr& c) {
  if (c.family() == Family::V6 && c.prefixLength() == 0) {
    Count all;
    all.carry_ = true;
    return all;
  }
  return Count(c.size());
}

Count operator+(const Count& a, const Count& b) {
  Count out;
  out.low_ = a.low_ + b.low_;
  const bool overflow = out.low_ < a.low_;
  if ((a.carry_ && b.carry_) || ((a.carry_ || b.carry_) && overflow)) {
    out.carry_ = true;
    out.low_ = kLowMax;  // saturate at 2^129 - 1
    return out;
  }
  out.carry_ = a.carry_ || b.carry_ || overflow;
  return out;
}

Count operator-(const Count& a, const Count& b) {
  if (b >= a) {
    return Count();
  }
  Count out;
  out.low_ = a.low_ - b.low_;  // modulo 2^128
  out.carry_ = a.carry_ && !b.carry_ && a.low_ >= b.low_;
  return out;
}

std::string Count::toString() const {
  return carry_ ? addDecimal(kTwoTo128, u128ToString(low_)) : u128ToString(low_);
}

std::ostream& operator<<(std::ostream& out, const Count& c) {
  return out << c.toString();
}

double Count::toDouble() const {
  constexpr double kTwo64 = 18446744073709551616.0;
  const double low = static_cast<double>(static_cast<uint64_t>(low_ >> 64)) * kTwo64 +
                     static_cast<double>(static_cast<uint64_t>(low_));
  return carry_ ? low + kTwo64 * kTwo64 : low;
}

}  // namespace ingot::net
