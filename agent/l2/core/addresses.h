// SPDX-License-Identifier: Apache-2.0
// Conversions between net::IpAddress and the wire-order addresses of ARP and NDP frames.
#pragma once

#include "agent/l2/core/frame.h"
#include "common/net/ip.h"

namespace ingot::agent::l2 {

/// toIp4 / toIp6 convert an address of the matching family to wire order.
Ip4 toIp4(const net::IpAddress& ip);
Ip6 toIp6(const net::IpAddress& ip);
/// fromIp4 / fromIp6 convert back.
net::IpAddress fromIp4(const Ip4& ip);
net::IpAddress fromIp6(const Ip6& ip);

}  // namespace ingot::agent::l2
