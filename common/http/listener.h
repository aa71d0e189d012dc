// SPDX-License-Identifier: Apache-2.0
// Listening sockets for the HTTP server: bind address:port non-blocking with a burst-sized
// backlog, and the text form of a peer's address (the key of the per-client connection limit).
#pragma once

#include <string>
#include <sys/socket.h>

#include "common/util/result.h"

namespace ingot::http {

/// bindListener binds a non-blocking listening socket to address:port; address "" means every
/// interface (dual-stack IPv6, or IPv4 when the host has no IPv6). Errors name address:port.
Result<int> bindListener(const std::string& address, int port);

/// boundPort returns the port a socket is bound to (0 on error).
int boundPort(int fd);

/// peerText returns the address of a peer as text; IPv4-mapped IPv6 addresses as plain IPv4, so
/// one client counts once whichever socket family accepted it.
std::string peerText(const sockaddr_storage& ss);

}  // namespace ingot::http
