// SPDX-License-Identifier: Apache-2.0
#include "agent/l2/core/addresses.h"

namespace ingot::agent::l2 {

Ip4 toIp4(const net::IpAddress& ip) {
  const auto v = static_cast<uint32_t>(ip.value());
  return Ip4{static_cast<uint8_t>(v >> 24), static_cast<uint8_t>(v >> 16),
             static_cast<uint8_t>(v >> 8), static_cast<uint8_t>(v)};
}

Ip6 toIp6(const net::IpAddress& ip) {
  Ip6 out{};
  for (int i = 0; i < 16; ++i) {
    out[static_cast<size_t>(i)] = static_cast<uint8_t>(ip.value() >> (8 * (15 - i)));
  }
  return out;
}

net::IpAddress fromIp4(const Ip4& ip) {
  return net::IpAddress::v4((uint32_t{ip[0]} << 24) | (uint32_t{ip[1]} << 16) |
                            (uint32_t{ip[2]} << 8) | ip[3]);
}

net::IpAddress fromIp6(const Ip6& ip) {
  net::U128 v = 0;
  for (uint8_t b : ip) {
    v = (v << 8) | b;
  }
  return net::IpAddress::v6(v);
}

}  // namespace ingot::agent::l2
