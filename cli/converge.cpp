// SPDX-License-Identifier: Apache-2.0
#include "cli/converge.h"

#include <algorithm>
#include <map>

#include "controller/core/allocator.h"

namespace ingot::cli {
namespace {

constexpr int kMaxPasses = 8;

}  // namespace

void applyOutcome(api::Service& svc, const controller::ServiceOutcome& outcome) {
  if (!outcome.write) {
    return;
  }
  svc.status = outcome.status;
  for (const auto& [key, value] : outcome.set_annotations) {
    svc.metadata.annotations[key] = value;
  }
  for (const auto& key : outcome.remove_annotations) {
    svc.metadata.annotations.erase(key);
  }
}

Result<controller::PlanResult> convergeServices(const config::Config& config,
                                                std::vector<api::Service>& services,
                                                const controller::Options& options) {
  std::map<std::string, std::vector<controller::Event>> events;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < services.size(); ++i) {
    index[services[i].metadata.namespace_ + "/" + services[i].metadata.name] = i;
  }
  controller::Allocator allocator;
  Result<controller::PlanResult> plan = controller::PlanResult{};
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    plan = controller::reprocessAll(allocator, config, services, options);
    if (!plan) {
      return plan;
    }
    for (const auto& s : plan->services) {
      const std::string key = s.namespace_ + "/" + s.name;
      auto& seen = events[key];
      for (const auto& e : s.events) {
        if (std::find(seen.begin(), seen.end(), e) == seen.end()) {
          seen.push_back(e);
        }
      }
      applyOutcome(services[index[key]], s);
    }
    if (!plan->reprocess_all) {
      break;
    }
  }
  for (auto& s : plan->services) {
    s.events = events[s.namespace_ + "/" + s.name];
  }
  return plan;
}

}  // namespace ingot::cli
