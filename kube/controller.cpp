// SPDX-License-Identifier: Apache-2.0
#include "kube/controller.h"

#include <malloc.h>
#include <optional>

#include "common/json/scan.h"

namespace ingot::k8s {

std::string resourceVersionOf(std::string_view json) {
  auto rv = ingot::json::stringAt(json, {"metadata", "resourceVersion"});
  return rv.has_value() ? *rv : std::string();
}

void InformerSet::start() {
  for (auto& e : entries_) {
    if (e.enabled) {
      e.start();
    }
  }
}

void InformerSet::stop() {
  for (auto& e : entries_) {
    e.stop();
  }
}

std::string InformerSet::unsynced() const {
  std::string out;
  for (const auto& e : entries_) {
    if (e.enabled && e.gates_sync && !e.synced()) {
      out += " " + e.name;
    }
  }
  return out;
}

Controller::Controller(std::string name,
                       log::Logger& logger,
                       ControllerOptions options,
                       Clock& clock)
    : name_(std::move(name)),
      log_(logger),
      options_(std::move(options)),
      queue_(options_.queue, clock) {}

Controller::~Controller() {
  stop();
}

Result<void> Controller::waitForSync(const std::stop_token& stop) {
  const auto deadline = std::chrono::steady_clock::now() + options_.cache_sync_timeout;
  // Wait in short slices so that a shutdown request is honoured during a slow start.
  for (std::string missing = informers_.unsynced(); !missing.empty();
       missing = informers_.unsynced()) {
    if (stop.stop_requested()) {
      return Error{ErrorCode::Unavailable, "stopped before caches synced"};
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return Error{ErrorCode::Unavailable, "caches did not sync within the timeout:" + missing};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {};
}

Result<void> Controller::start(Reconcile reconcile, const std::stop_token& stop) {
  reconcile_ = std::move(reconcile);
  informers_.start();
  if (auto ok = waitForSync(stop); !ok) {
    return ok;
  }
  log_.info(name_, "caches_synced", "every cache holds a complete list; starting the worker");
  if (options_.idle_trim_interval > Duration::zero()) {
    malloc_trim(0);  // the initial lists' JSON is decoded and gone
    last_trim_ = std::chrono::steady_clock::now();
  }
  synced_.store(true);
  worker_ = std::jthread([this] {
    while (processNextItem()) {
    }
  });
  return {};
}

void Controller::stop() {
  informers_.stop();
  if (!draining_.exchange(true)) {
    const auto deadline = std::chrono::steady_clock::now() + options_.drain_timeout;
    drain_deadline_ns_.store(deadline.time_since_epoch().count());
    queue_.shutDown();
  }
  if (worker_.joinable()) {
    worker_.join();
  }
}

bool Controller::pastDrainDeadline() const {
  if (!draining_.load()) {
    return false;
  }
  return std::chrono::steady_clock::now().time_since_epoch().count() >= drain_deadline_ns_.load();
}

bool Controller::processNextItem() {
  std::optional<std::string> key = queue_.get();
  if (!key) {
    return false;
  }
  if (pastDrainDeadline()) {
    queue_.done(*key);
    return true;
  }
  if (!reconcile_.batchable || !reconcile_.batchable(*key)) {
    reportDepth(1);
    handleResult(*key, reconcile_.reconcile(*key));
    reportDepth(0);
    trimWhenIdle();
    return true;
  }
  std::vector<std::string> batch{*key};
  std::optional<std::string> other;
  while (batch.size() < reconcile_.max_batch) {
    auto next = queue_.tryGet();
    if (!next) {
      break;
    }
    if (!reconcile_.batchable(*next)) {
      other = std::move(next);
      break;
    }
    batch.push_back(std::move(*next));
  }
  reportDepth(batch.size() + (other ? 1 : 0));
  const std::vector<ReconcileResult> results = reconcile_.reconcile_batch(batch);
  for (size_t i = 0; i < batch.size(); ++i) {
    handleResult(batch[i], i < results.size() ? results[i] : ReconcileResult::done());
  }
  if (other) {
    handleResult(*other, reconcile_.reconcile(*other));
  }
  reportDepth(0);
  trimWhenIdle();
  return true;
}

void Controller::trimWhenIdle() {
  if (options_.idle_trim_interval <= Duration::zero() || queue_.len() != 0) {
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  if (now - last_trim_ < options_.idle_trim_interval) {
    return;
  }
  malloc_trim(0);
  last_trim_ = now;
}

void Controller::reportDepth(size_t in_flight) {
  if (options_.on_queue_depth) {
    options_.on_queue_depth(queue_.len() + queue_.delayedLen() + in_flight);
  }
}

void Controller::handleResult(const std::string& key, const ReconcileResult& result) {
  using Kind = ReconcileResult::Kind;
  auto ms = [](Duration d) {
    return log::num("delay_ms", std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
  };
  switch (result.kind) {
    case Kind::Done:
      queue_.forget(key);
      break;
    case Kind::Retry: {
      const Duration delay = queue_.addRateLimited(key);
      log_.debug(name_, "requeue", result.error.message,
                 {{"key", key}, ms(delay), log::num("requeues", queue_.numRequeues(key))});
      break;
    }
    case Kind::RequeueAfter:
      queue_.addAfter(key, result.delay);
      break;
    case Kind::Terminal:
      queue_.forget(key);
      log_.error(name_, "reconcile_failed", result.error.message,
                 {{"key", key}, {"reason", "terminal: not retried until an input changes"}});
      break;
  }
  queue_.done(key);
}

}  // namespace ingot::k8s
