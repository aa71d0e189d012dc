// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "api/types.h"
#include "config/config.h"
#include "controller/core/pool_space.h"

namespace ingot::controller {

/// admits reports whether a pool's serviceAllocation lets a service (namespace, labels) use it:
/// no serviceAllocation admits everyone; a namespace constraint (namespaces or
/// namespaceSelectors given) must contain the namespace; serviceSelectors, when given, must match
/// (any of them). A serviceAllocation with neither admits everyone.
bool admits(const config::Pool& pool, const std::string& ns, const api::StringMap& labels);

/// automaticPoolOrder returns, as positions in spaces, the pools automatic allocation tries, in
/// order: autoAssign pools with a serviceAllocation admitting the service, by priority (> 0
/// ascending, then 0) and then name; then autoAssign pools without serviceAllocation, by name.
/// MetalLB leaves ties and the second group in random map order; Ingot is deterministic.
std::vector<std::size_t> automaticPoolOrder(const std::vector<PoolSpace>& spaces,
                                            const std::string& ns,
                                            const api::StringMap& labels);

}  // namespace ingot::controller
