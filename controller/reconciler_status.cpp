// SPDX-License-Identifier: Apache-2.0
// The configuration reconcile (MetalLB's PoolReconciler), IPAddressPool status and the
// ConfigurationState `controller`.
#include "api/configuration_state.h"
#include "common/json/scan.h"
#include "controller/core/pool_status.h"
#include "controller/reconciler.h"
#include "controller/status_writes.h"
#include "kube/resources.h"

namespace ingot::controller {
namespace {

using k8s::values;

}  // namespace

std::string Reconciler::now() const {
  return k8s::formatTimestamp(std::chrono::system_clock::now());
}

ReconcileResult Reconciler::reconcileConfig() {
  metrics_.countUpdate();
  config::Inputs inputs;
  inputs.pools = values(caches_.pools);
  inputs.communities = values(caches_.communities);
  inputs.namespaces = values(caches_.namespaces);
  config::ParseOutcome parsed =
      config::parse(inputs, config::ParseOptions{options_.backend, options_.namespace_});
  state_ = configurationStateStatus(parsed.errors, now());
  queue_.add(std::string(keys::kState));
  if (!parsed.errors.empty()) {
    metrics_.setConfigStale(true);
    metrics_.countUpdateError();
    metrics_.countReconcile(ReconcileKind::Config, true);
    for (const auto& e : parsed.errors) {
      log_.error("config", "invalid", config::formatConfigError(e),
                 {{"key", k8s::objectKey(e.namespace_, e.name)}, {"kind", e.kind}});
    }
    log_.error("config", "kept_last_good",
               config_ ? "configuration rejected; allocating with the last good one"
                       : "configuration rejected; no valid configuration yet, services untouched",
               {log::num("errors", static_cast<long long>(parsed.errors.size()))});
    return ReconcileResult::done();  // no retry: the next change of an input re-triggers
  }
  metrics_.setConfigLoaded(true);
  metrics_.setConfigStale(false);
  metrics_.countReconcile(ReconcileKind::Config, false);
  if (config_ && *config_ == *parsed.config) {
    log_.debug("config", "unchanged", "configuration did not change");
    return ReconcileResult::done();
  }
  config_ = parsed.config;
  if (caches_.announce != nullptr) queue_.add(std::string(keys::kAnnounceAll));
  log_.info("config", "reloaded", "configuration loaded; reprocessing every service",
            {log::num("pools", static_cast<long long>(config_->pools.size()))});
  ReconcileResult pass = fullPass();
  metrics_.countReconcile(ReconcileKind::FullPass, !pass.ok());
  if (!pass.ok()) queue_.addRateLimited(std::string(keys::kReprocess));
  return ReconcileResult::done();
}

ReconcileResult Reconciler::reconcilePoolStatus(const std::string& name) {
  // Before the first pass the allocator is empty: writing its zeros would churn every pool.
  if (!initial_done_.load()) return ReconcileResult::done();
  const std::string key = k8s::objectKey(options_.namespace_, name);
  auto pool = caches_.pools.get(key);
  if (!pool) {
    pool_writes_.erase(name);
    return ReconcileResult::done();
  }
  const auto counters = allocator_.counters(name);
  const api::IPAddressPoolStatus desired =
      counters ? poolStatus(*counters) : api::IPAddressPoolStatus{};
  const auto* written = pool_writes_.written(name, pool->metadata.resource_version, clock_.now());
  if (written != nullptr ? *written == desired : pool->status == desired) {
    return ReconcileResult::done();
  }
  metrics_.countUpdate();
  auto r = api_.patchStatus(k8s::resources::kIpAddressPools, options_.namespace_, name,
                            k8s::PatchType::Merge, poolStatusPatch(desired));
  if (!r) {
    if (r.error().code == ErrorCode::NotFound) return ReconcileResult::done();
    metrics_.countUpdateError();
    metrics_.countReconcile(ReconcileKind::PoolStatus, true);
    log_.warn("pool_status", "write_failed", r.error().message, {{"key", key}});
    return ReconcileResult::retry(r.error());
  }
  metrics_.countReconcile(ReconcileKind::PoolStatus, false);
  pool_writes_.record(name, desired, k8s::resourceVersionOf(*r), clock_.now());
  log_.debug("pool_status", "written", "pool status updated",
             {{"key", key},
              log::num("assignedIPv4", desired.assigned_ipv4),
              log::num("assignedIPv6", desired.assigned_ipv6)});
  return ReconcileResult::done();
}

ReconcileResult Reconciler::reconcileState() {
  if (!state_) return ReconcileResult::done();
  const k8s::StateWrite w = state_writer_.write(*state_);
  if (w.attempted) {
    metrics_.countReconcile(ReconcileKind::ConfigurationState, !w.result.ok());
  }
  return w.result;
}

}  // namespace ingot::controller
