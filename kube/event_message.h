// SPDX-License-Identifier: Apache-2.0
// The bound on an Event's message, applied to every Event the recorder writes (kube/events.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ingot::k8s {

/// kMaxEventMessageBytes bounds an Event's message: the API server's limit on an events.k8s.io/v1
/// Event's note (1024 bytes), the bound Kubernetes' own components cut their Event messages to.
/// client-go's recorders do not cut, and core/v1 Events have no limit of their own, so without
/// this a message listing thousands of addresses becomes an Event of tens of kilobytes.
inline constexpr size_t kMaxEventMessageBytes = 1024;

/// boundEventMessage returns message unchanged when it fits kMaxEventMessageBytes; otherwise its
/// first bytes, cut at a UTF-8 character boundary, followed by " ..." so the result fits.
std::string boundEventMessage(std::string_view message);

}  // namespace ingot::k8s
