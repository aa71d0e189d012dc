// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace ingot::k8s::testing {

/// why returns a Result's error message, or "" on success, for assertion messages (Boost
/// evaluates the message even when the assertion holds).
template <typename R>
std::string why(const R& r) {
  return r.has_value() ? std::string() : r.error().message;
}

}  // namespace ingot::k8s::testing
