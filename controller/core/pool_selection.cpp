// SPDX-License-Identifier: Apache-2.0
#include "controller/core/pool_selection.h"

#include <algorithm>
#include <tuple>

#include "api/selector.h"

namespace ingot::controller {

bool admits(const config::Pool& pool, const std::string& ns, const api::StringMap& labels) {
  if (!pool.allocation) {
    return true;
  }
  const config::ServiceAllocation& sa = *pool.allocation;
  if (sa.has_namespace_constraint && sa.namespaces.count(ns) == 0) {
    return false;
  }
  if (!sa.service_selectors.empty() && !api::matchesAny(sa.service_selectors, labels)) {
    return false;
  }
  return true;
}

std::vector<std::size_t> automaticPoolOrder(const std::vector<PoolSpace>& spaces,
                                            const std::string& ns,
                                            const api::StringMap& labels) {
  std::vector<std::size_t> pinned;
  std::vector<std::size_t> general;
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    const config::Pool& pool = spaces[i].pool();
    if (!pool.auto_assign) {
      continue;
    }
    if (!pool.allocation) {
      general.push_back(i);
    } else if (admits(pool, ns, labels)) {
      pinned.push_back(i);
    }
  }
  // spaces is in name order, so a stable sort on priority keeps name order among equals.
  auto rank = [&](std::size_t i) {
    const int32_t prio = spaces[i].pool().allocation->priority;
    // Priority 0 (and anything below, which MetalLB also treats as unset) comes last.
    return prio > 0 ? std::make_tuple(0, prio) : std::make_tuple(1, 0);
  };
  std::stable_sort(pinned.begin(), pinned.end(),
                   [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  pinned.insert(pinned.end(), general.begin(), general.end());
  return pinned;
}

}  // namespace ingot::controller
