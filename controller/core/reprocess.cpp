// SPDX-License-Identifier: Apache-2.0
#include "controller/core/reprocess.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "controller/core/service_info.h"

namespace ingot::controller {
namespace {

/// processingOrder: services holding addresses first, then pending ones; each group by
/// namespace/name. Stable, so duplicates keep their input order.
std::vector<std::size_t> processingOrder(const std::vector<api::Service>& services,
                                         const std::vector<bool>& holds) {
  std::vector<std::size_t> order(services.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& ma = services[a].metadata;
    const auto& mb = services[b].metadata;
    return std::forward_as_tuple(!holds[a], ma.namespace_, ma.name) <
           std::forward_as_tuple(!holds[b], mb.namespace_, mb.name);
  });
  return order;
}

/// sortedByName orders outcomes by namespace/name, moving each (large) outcome once.
std::vector<ServiceOutcome> sortedByName(std::vector<ServiceOutcome> outcomes) {
  std::vector<std::size_t> order(outcomes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(outcomes[a].namespace_, outcomes[a].name) <
           std::tie(outcomes[b].namespace_, outcomes[b].name);
  });
  std::vector<ServiceOutcome> sorted;
  sorted.reserve(outcomes.size());
  for (std::size_t i : order) {
    sorted.push_back(std::move(outcomes[i]));
  }
  return sorted;
}

}  // namespace

Result<PlanResult> reprocessAll(Allocator& allocator,
                                const config::Config& config,
                                const std::vector<api::Service>& services,
                                const Options& options) {
  allocator.reset();
  allocator.reserve(services.size());
  if (auto pools = allocator.setPools(config.pools); !pools) {
    return pools.error();
  }
  std::vector<bool> holds(services.size());
  for (std::size_t i = 0; i < services.size(); ++i) {
    holds[i] = !statusIps(services[i]).empty();
  }
  const auto order = processingOrder(services, holds);
  // Claim every held address first; a conflicting claim loses to the earlier service, which is
  // what a MetalLB pass in list order decides too.
  for (std::size_t i : order) {
    if (!holds[i]) {
      break;
    }
    if (auto ips = currentAddresses(services[i], config, options)) {
      (void)allocator.assign(makeRequest(services[i]), *ips);
    }
  }
  PlanResult result;
  std::vector<ServiceOutcome> outcomes(services.size());
  for (std::size_t i : order) {
    outcomes[i] = convergeService(allocator, config, services[i], options);
    result.reprocess_all = result.reprocess_all || outcomes[i].reprocess_all;
  }
  result.services = sortedByName(std::move(outcomes));
  for (const auto& name : allocator.poolNames()) {
    result.pools.push_back(*allocator.counters(name));
  }
  return result;
}

}  // namespace ingot::controller
