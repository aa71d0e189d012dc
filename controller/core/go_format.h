// SPDX-License-Identifier: Apache-2.0
// Go fmt renderings that MetalLB's event and error texts contain, so Ingot's messages are
// byte-for-byte the same (MetalLB formats them with Go verbs).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/net/ip.h"
#include "common/util/quote.h"

namespace ingot::controller {

/// goQuote (common/util/quote.h) is Go's strconv.Quote, as %q prints a string.
using ingot::goQuote;

/// goQuoteList renders a string slice as Go's %q does: ["a" "b"].
std::string goQuoteList(const std::vector<std::string>& items);

/// goList renders a string slice as Go's %v does: [a b].
std::string goList(const std::vector<std::string>& items);

/// ipStrings formats each address with IpAddress::toString (Go's net.IP.String()).
std::vector<std::string> ipStrings(const std::vector<net::IpAddress>& ips);

}  // namespace ingot::controller
