// SPDX-License-Identifier: Apache-2.0
// Service reconciles and the full pass. The configuration, pool status and ConfigurationState
// reconciles are in reconciler_status.cpp.
#include "controller/reconciler.h"

#include <unordered_map>

#include "common/json/scan.h"
#include "controller/core/pool_status.h"
#include "controller/core/reprocess.h"
#include "controller/status_writes.h"
#include "kube/resources.h"

namespace ingot::controller {
namespace {

constexpr std::string_view kServicePrefix = "svc:";
constexpr std::string_view kPoolPrefix = "pool:";
constexpr std::string_view kAnnouncePrefix = "ann:";

k8s::ObjectReference serviceRef(const api::Service& svc) {
  return k8s::referenceTo("Service", svc);
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

namespace keys {
std::string service(std::string_view object_key) {
  return std::string(kServicePrefix) + std::string(object_key);
}
std::string poolStatus(std::string_view pool_name) {
  return std::string(kPoolPrefix) + std::string(pool_name);
}
std::string announce(std::string_view object_key) {
  return std::string(kAnnouncePrefix) + std::string(object_key);
}
bool isService(std::string_view key) {
  return key.substr(0, kServicePrefix.size()) == kServicePrefix;
}
}  // namespace keys

Reconciler::Reconciler(Caches caches,
                       const k8s::ReconcileIo& io,
                       Metrics& metrics,
                       ReconcilerOptions options)
    : k8s::ReconcilerIo(io),
      caches_(caches),
      metrics_(metrics),
      options_(std::move(options)),
      writers_(options_.write_concurrency),
      service_writes_(options_.overlay_ttl),
      pool_writes_(options_.overlay_ttl),
      state_writer_(
          caches_.states,
          api_,
          log_,
          clock_,
          {options_.namespace_, kConfigurationStateName,
           configurationStateObject(options_.namespace_, options_.owner), options_.overlay_ttl}),
      unannounced_(options_.unannounced_grace) {
  if (caches_.announce != nullptr) metrics_.setUnannounced(0);
}

ReconcileResult Reconciler::reconcile(const std::string& key) {
  if (keys::isService(key)) return reconcileServices({key}).front();
  if (key == keys::kConfig) return reconcileConfig();
  if (key == keys::kState) return reconcileState();
  if (key == keys::kReprocess) {
    ReconcileResult r = fullPass();
    metrics_.countReconcile(ReconcileKind::FullPass, !r.ok());
    return r;
  }
  if (key.rfind(kPoolPrefix, 0) == 0) return reconcilePoolStatus(key.substr(kPoolPrefix.size()));
  if (key == keys::kAnnounceAll) return reconcileAnnounce(key);
  if (key.rfind(kAnnouncePrefix, 0) == 0) {
    return reconcileAnnounce(key.substr(kAnnouncePrefix.size()));
  }
  log_.error("reconcile", "unknown_key", "dropping a work-queue key of no known kind",
             {{"key", key}});
  return ReconcileResult::done();
}

std::optional<api::Service> Reconciler::view(const std::string& key) {
  auto cached = caches_.services.get(key);
  if (!cached) {
    service_writes_.erase(key);
    return std::nullopt;
  }
  api::Service svc = *cached;
  if (const auto* w = service_writes_.written(key, svc.metadata.resource_version, clock_.now())) {
    svc.status = w->status;
    for (const auto& [k, v] : w->set_annotations) svc.metadata.annotations[k] = v;
    for (const auto& k : w->remove_annotations) svc.metadata.annotations.erase(k);
  }
  return svc;
}

std::vector<api::Service> Reconciler::snapshotServices() {
  std::vector<api::Service> out;
  const auto keys = caches_.services.keys();
  out.reserve(keys.size());
  for (const auto& key : keys) {
    if (auto svc = view(key)) out.push_back(std::move(*svc));
  }
  return out;
}

void Reconciler::emitEvents(const k8s::ObjectReference& ref, const std::vector<Event>& events) {
  for (const Event& e : events) {
    events_.record(ref,
                   e.type == EventType::Warning ? k8s::EventType::Warning : k8s::EventType::Normal,
                   e.reason, e.message);
  }
}

void Reconciler::enqueuePoolStatus(const std::string& pool) {
  if (!pool.empty()) queue_.addAfter(keys::poolStatus(pool), options_.pool_status_delay);
}

void Reconciler::publishAllocatorMetrics() {
  metrics_.setAllocator(allocatorMetrics(allocator_));
}

size_t Reconciler::applyServiceWrites(std::vector<ServiceWrite>& writes) {
  std::vector<std::function<void()>> tasks;
  tasks.reserve(writes.size());
  for (ServiceWrite& w : writes) {
    tasks.emplace_back([this, &w] {
      w.result = api_.patchStatus(k8s::resources::kServices, w.ref.namespace_, w.ref.name,
                                  k8s::PatchType::Merge, servicePatch(w.outcome));
    });
  }
  writers_.runAll(std::move(tasks));
  size_t failed = 0;
  const auto now = clock_.now();
  for (ServiceWrite& w : writes) {
    if (!w.result) {
      // A Service deleted meanwhile needs nothing more; its delete event releases the address.
      if (w.result.error().code == ErrorCode::NotFound) continue;
      ++failed;
      log_.warn("service", "write_failed", w.result.error().message, {{"key", w.key}});
      continue;
    }
    service_writes_.record(
        w.key, {w.outcome.status, w.outcome.set_annotations, w.outcome.remove_annotations},
        k8s::resourceVersionOf(*w.result), now);
    log_.info("service", w.outcome.ips.empty() ? "cleared" : "assigned",
              w.outcome.ips.empty() ? "service status cleared" : "service addresses written",
              {{"key", w.key}, {"ips", joined(w.outcome.ips)}, {"pool", w.outcome.pool}});
    emitEvents(w.ref, w.outcome.events);
  }
  return failed;
}

std::vector<Reconciler::ServiceWrite> Reconciler::planWrites(
    std::vector<ServiceOutcome>& outcomes, const std::vector<api::Service>& services) {
  std::unordered_map<std::string, size_t> index;
  index.reserve(services.size());
  for (size_t i = 0; i < services.size(); ++i) {
    index.emplace(k8s::objectKey(services[i].metadata.namespace_, services[i].metadata.name), i);
  }
  std::vector<ServiceWrite> writes;
  for (ServiceOutcome& out : outcomes) {
    const std::string key = k8s::objectKey(out.namespace_, out.name);
    const api::Service& svc = services[index.at(key)];
    if (out.write && !out.ignored) {
      dropStaleCondition(svc, out);
      writes.push_back(ServiceWrite{key, serviceRef(svc), std::move(out)});
    } else {
      emitEvents(serviceRef(svc), out.events);
    }
  }
  return writes;
}

ReconcileResult Reconciler::fullPass() {
  if (!config_) {
    log_.info("full_pass", "waiting", "no valid configuration yet; services are left untouched");
    return ReconcileResult::done();
  }
  metrics_.countUpdate();
  const std::vector<api::Service> services = snapshotServices();
  auto plan = reprocessAll(allocator_, *config_, services, options_.service);
  if (!plan) {
    log_.error("full_pass", "failed", plan.error().message);
    metrics_.countUpdateError();
    return ReconcileResult::retry(plan.error());
  }
  std::vector<ServiceWrite> writes = planWrites(plan->services, services);
  const size_t failed = applyServiceWrites(writes);
  publishAllocatorMetrics();
  for (const auto& pool : allocator_.poolNames()) enqueuePoolStatus(pool);
  const std::initializer_list<log::Field> counts = {
      log::num("services", static_cast<long long>(services.size())),
      log::num("writes", static_cast<long long>(writes.size())),
      log::num("failed", static_cast<long long>(failed))};
  if (failed > 0) {
    metrics_.countUpdateError();
    log_.warn("full_pass", "retry", "some service writes failed; the whole pass is retried",
              counts);
    return ReconcileResult::retry(
        Error{ErrorCode::Unavailable, std::to_string(failed) + " service writes failed"});
  }
  if (!initial_done_.exchange(true)) {
    if (caches_.announce != nullptr) queue_.add(std::string(keys::kAnnounceAll));
    log_.info("full_pass", "initial_load_done", "first full pass done; per-service reconciles on",
              counts);
  } else {
    log_.info("full_pass", "done", "full pass done", counts);
  }
  // A pass that freed room may let a Service that failed in it fit now; one that changed
  // nothing cannot, so it does not loop.
  if (plan->reprocess_all && !writes.empty()) queue_.add(std::string(keys::kReprocess));
  return ReconcileResult::done();
}

std::optional<Reconciler::ServiceWrite> Reconciler::convergeOne(const std::string& key) {
  std::optional<api::Service> svc = view(key);
  if (!svc) {
    const std::string pool = allocator_.poolOf(key);
    if (releaseService(allocator_, key)) {
      log_.info("service", "released", "deleted service released its addresses", {{"key", key}});
      enqueuePoolStatus(pool);
      queue_.add(std::string(keys::kReprocess));
    }
    return std::nullopt;
  }
  const std::string before = allocator_.poolOf(key);
  ServiceOutcome out = convergeService(allocator_, *config_, *svc, options_.service);
  const std::string after = allocator_.poolOf(key);
  if (out.write || before != after) {
    enqueuePoolStatus(before);
    if (after != before) enqueuePoolStatus(after);
  }
  if (out.reprocess_all) queue_.add(std::string(keys::kReprocess));
  if (out.write && !out.ignored) {
    dropStaleCondition(*svc, out);
    return ServiceWrite{key, serviceRef(*svc), std::move(out)};
  }
  emitEvents(serviceRef(*svc), out.events);
  return std::nullopt;
}

std::vector<ReconcileResult> Reconciler::reconcileServices(const std::vector<std::string>& keys) {
  std::vector<ReconcileResult> results(keys.size());
  // The initial-load gate: the first full pass covers every Service in the cache.
  if (!initial_done_.load() || !config_) return results;
  std::vector<ServiceWrite> writes;
  std::vector<size_t> owner;  // writes[i] belongs to keys[owner[i]]
  for (size_t i = 0; i < keys.size(); ++i) {
    metrics_.countUpdate();
    if (auto w = convergeOne(keys[i].substr(kServicePrefix.size()))) {
      writes.push_back(std::move(*w));
      owner.push_back(i);
    }
  }
  applyServiceWrites(writes);
  for (size_t i = 0; i < writes.size(); ++i) {
    const auto& r = writes[i].result;
    if (!r && r.error().code != ErrorCode::NotFound) {
      results[owner[i]] = ReconcileResult::retry(r.error());
    }
  }
  for (const auto& r : results) {
    metrics_.countReconcile(ReconcileKind::Service, !r.ok());
    if (!r.ok()) metrics_.countUpdateError();
  }
  publishAllocatorMetrics();
  return results;
}

}  // namespace ingot::controller
