// SPDX-License-Identifier: Apache-2.0
// The order of the agent's Service keys ("namespace/name"): by namespace, then name.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace ingot::agent {

/// ServiceKeyLess orders "namespace/name" keys by namespace, then name: the order in which a full
/// pass decides the Services and hands their announcements on.
struct ServiceKeyLess {
  bool operator()(const std::string& a, const std::string& b) const {
    const std::string_view na = std::string_view(a).substr(0, a.find('/'));
    const std::string_view nb = std::string_view(b).substr(0, b.find('/'));
    if (na != nb) {
      return na < nb;
    }
    return std::string_view(a).substr(std::min(na.size() + 1, a.size())) <
           std::string_view(b).substr(std::min(nb.size() + 1, b.size()));
  }
};

}  // namespace ingot::agent
