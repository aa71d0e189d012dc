// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/worker.h"

#include <chrono>

#include "frr/frr_driver.h"

namespace ingot::ingotfrr {
namespace {

ApplyOutcome outcomeOf(frr::ApplyPath path) {
  switch (path) {
    case frr::ApplyPath::Delta:
      return ApplyOutcome::Delta;
    case frr::ApplyPath::FullReload:
      return ApplyOutcome::FullReload;
    case frr::ApplyPath::Unchanged:
      break;
  }
  return ApplyOutcome::Unchanged;
}

}  // namespace

frr::EngineOptions engineOptions(const WorkerOptions& options) {
  frr::EngineOptions e;
  e.render.hostname = options.hostname;
  e.raw_as_file = true;
  e.skip_unchanged = true;
  e.forget_on_failure = true;
  e.verify_interval = options.verify_interval;
  e.verify_after_delta = std::chrono::seconds(1);
  return e;
}

Worker::Worker(Inputs inputs,
               frr::FrrPort& frr,
               NodeStateWriter& state,
               k8s::WorkQueue& queue,
               k8s::EventSink& events,
               Metrics& metrics,
               log::Logger& logger,
               WorkerOptions options)
    : in_(inputs),
      state_(state),
      queue_(queue),
      events_(events),
      metrics_(metrics),
      log_(logger),
      options_(std::move(options)),
      frr_(frr),
      engine_(frr, engineOptions(options_), [clock = options_.clock] { return clock->now(); }),
      cooldown_(frr::CooldownOptions{options_.debounce}) {}

k8s::ReconcileResult Worker::reconcile(const std::string& key) {
  if (key == kApplyKey) {
    return applyDesired();
  }
  if (key == kVerifyKey) {
    return verifyNow();
  }
  return writeStatus();
}

k8s::Duration Worker::changeDelay() const {
  std::lock_guard lock(cooldown_mu_);
  return cooldown_.delay(options_.clock->now());
}

void Worker::noteApplied(k8s::TimePoint start) {
  const k8s::TimePoint end = options_.clock->now();
  std::lock_guard lock(cooldown_mu_);
  cooldown_.applied(end - start, end);
}

k8s::ReconcileResult Worker::applyDesired() {
  if (const k8s::Duration rest = changeDelay();
      rest > k8s::Duration::zero() && !engine_.failing()) {
    queue_.addAfter(kApplyKey, rest);  // handed out before the cool-down's end: wait for it
    return k8s::ReconcileResult::done();
  }
  const k8s::TimePoint start = options_.clock->now();
  auto node = in_.nodes.get(options_.node);
  if (!node) {
    return conversionFailed(Error{ErrorCode::Transient, "Node " + options_.node + " not found"});
  }
  std::vector<Entry> entries;
  for (const auto& e : in_.configs.list()) {
    entries.push_back(*e);
  }
  auto desired =
      desiredFor(entries, k8s::values(in_.secrets), options_.namespace_, node->metadata.labels);
  if (!desired) {
    return conversionFailed(desired.error());
  }
  const frr::Outcome out = engine_.apply(desired->model);
  if (out.conversion) {
    return conversionFailed(*out.error);
  }
  noteApplied(start);
  metrics_.countConversion(false);
  transient_failures_ = 0;
  status_.last_conversion_result = "success";
  if (out.skipped) {
    return writeStatus();  // an echo or an unrelated change: FRR already holds this model
  }
  if (!out.ok()) {
    return applyFailed(out);
  }
  logApplied(out.report, desired->selected.size(), !desired->model.raw_config.empty());
  noteRejected(out.report.rejected);
  // After the log line: its time marks the end of the apply (bench/e2e_bgp.py).
  applied(out.report);
  return writeStatus();
}

void Worker::logApplied(const frr::FastApplyReport& report, size_t configs, bool raw) {
  const auto count = [](size_t n) { return static_cast<long long>(n); };
  if (raw) {
    log_.info("apply", "applied", "FRR converged",
              {{"path", frr::applyPathName(report.path)},
               {"reason", report.reload_reason},
               log::num("configurations", count(configs)),
               log::num("commands", count(report.commands)),
               log::num("send_ms", report.send_elapsed.count())});
    return;
  }
  log_.info("apply", "applied", "FRR converged",
            {{"path", frr::applyPathName(report.path)},
             {"reason", report.reload_reason},
             log::num("configurations", count(configs)),
             log::num("commands", count(report.commands)),
             log::num("networks_added", count(report.networks_added)),
             log::num("networks_removed", count(report.networks_removed)),
             log::num("send_ms", report.send_elapsed.count()),
             log::num("verify_ms", report.verify_elapsed.count())});
}

k8s::ReconcileResult Worker::verifyNow() {
  const frr::Outcome out = engine_.verify();
  if (out.skipped) {
    return k8s::ReconcileResult::done();
  }
  if (!out.ok()) {
    return applyFailed(out);
  }
  if (!out.report.drift.empty()) {
    metrics_.countDrift();
    warn("FRRConfigDrift",
         "FRR's running configuration differed from the applied one (corrected): " +
             out.report.drift);
  }
  applied(out.report);
  return writeStatus();
}

void Worker::applied(const frr::FastApplyReport& report) {
  metrics_.countApply(outcomeOf(report.path));
  metrics_.setLoaded();
  metrics_.setStale(false);
  status_.last_reload_result =
      rejected_.empty() ? "success" : "failed: " + rejected_ + "; every other change applied";
  refreshRunningConfig();
  scheduleVerify();
}

void Worker::noteRejected(const std::vector<frr::RejectedSession>& rejected) {
  std::string text;
  for (const auto& r : rejected) {
    text += (text.empty() ? "" : "; ") + std::string("FRR refused the session ") + r.peer +
            (r.vrf.empty() ? "" : " in VRF " + r.vrf) +
            (r.kept_previous ? " (kept as it was)" : " (left out)") + ": " +
            frr::retractPasswords(r.error);
  }
  if (!text.empty() && text != rejected_) {
    warn("ReloadFailed", text + "; every other change applied");
  }
  rejected_ = std::move(text);
}

k8s::ReconcileResult Worker::conversionFailed(const Error& e) {
  metrics_.countConversion(true);
  metrics_.setStale(true);
  const std::string message = frr::retractPasswords(e.message);
  status_.last_conversion_result = "failed: " + message;
  warn("ConversionFailed", "FRR keeps its last good configuration: " + message);
  (void)writeStatus();
  if (e.code == ErrorCode::Transient) {
    // A referenced object (Secret, Node) may still appear; its informer also re-triggers.
    return k8s::ReconcileResult::requeueAfter(frr::retryDelay(++transient_failures_), e);
  }
  return k8s::ReconcileResult::done();  // the next change of an input retries
}

k8s::ReconcileResult Worker::applyFailed(const frr::Outcome& out) {
  metrics_.countApply(ApplyOutcome::Failed);
  metrics_.setStale(true);
  const auto delay = out.retry;  // the engine made the port forget: the retry starts from scratch
  const std::string message = frr::retractPasswords(out.error->message);
  status_.last_reload_result = "failed: " + message;
  // The delay goes to the log only: retries of one failure then fold into one Event.
  log_.info("apply", "retry", "retrying the apply", {log::num("retry_ms", delay.count())});
  warn("ReloadFailed", message);
  refreshRunningConfig();
  (void)writeStatus();
  // The retry is an "apply": it re-applies the desired model even if unchanged.
  queue_.addAfter(kApplyKey, delay);
  return k8s::ReconcileResult::done();
}

void Worker::refreshRunningConfig() {
  if (auto text = frr_.runningConfig(); text) {
    status_.running_config = *text;
  }
}

void Worker::warn(const char* reason, const std::string& message) {
  log_.error("apply", reason, message, {{"node", options_.node}});
  auto node = in_.nodes.get(options_.node);
  events_.record(k8s::ObjectReference{"v1", "Node", "", options_.node,
                                      node ? node->metadata.uid : std::string(),
                                      node ? node->metadata.resource_version : std::string()},
                 k8s::EventType::Warning, reason, message);
}

void Worker::scheduleVerify() {
  if (const auto next = engine_.nextVerify()) {
    const k8s::TimePoint now = options_.clock->now();
    queue_.addAfter(kVerifyKey, *next > now ? *next - now : k8s::Duration::zero());
  }
}

k8s::ReconcileResult Worker::writeStatus() {
  if (auto ok = state_.write(status_); !ok) {
    const auto delay = frr::retryDelay(++status_failures_);
    log_.warn("status", "write_failed", ok.error().message,
              {log::num("retry_ms", static_cast<long long>(delay.count()))});
    queue_.addAfter(kStatusKey, delay);
    return k8s::ReconcileResult::done();
  }
  status_failures_ = 0;
  return k8s::ReconcileResult::done();
}

}  // namespace ingot::ingotfrr
