// SPDX-License-Identifier: Apache-2.0
#include "agent/bgp/incremental.h"

#include <utility>

namespace ingot::agent::bgp {

const char* applyPathName(ApplyPath path) {
  switch (path) {
    case ApplyPath::Delta:
      return "delta";
    case ApplyPath::FullReload:
      return "full_reload";
    case ApplyPath::Unchanged:
      break;
  }
  return "unchanged";
}

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t);
}

}  // namespace

IncrementalApplier::IncrementalApplier(VtyshPort& vtysh,
                                       FullReload& full,
                                       frrgen::RenderOptions render)
    : vtysh_(vtysh), full_(full), render_(std::move(render)) {}

PolicyProjection IncrementalApplier::expectedFor(const frrgen::CompactModel& model) const {
  auto text = frrgen::renderCompact(model, render_);
  return projectPolicy(text ? *text : std::string(), outMapNames(model));
}

Result<std::string> IncrementalApplier::readBack(const frrgen::CompactModel& model) {
  auto running = vtysh_.show("show running-config");
  if (!running) {
    return running.error();
  }
  const PolicyProjection actual = projectPolicy(*running, outMapNames(model));
  const PolicyProjection expected = expectedFor(model);
  return expected == actual ? std::string() : describeDrift(expected, actual);
}

Result<FastApplyReport> IncrementalApplier::fullReload(const frrgen::CompactModel& model,
                                                       std::string reason) {
  FastApplyReport report;
  report.path = ApplyPath::FullReload;
  report.reload_reason = std::move(reason);
  auto text = frrgen::renderCompact(model, render_);
  if (!text) {
    return text.error();
  }
  // A new session after a reload: FRR may have restarted, and vtysh's daemon connections with it.
  vtysh_.reset();
  synced_ = false;
  const auto start = Clock::now();
  auto r = full_.reload(*text);
  report.send_elapsed = since(start);
  if (!r) {
    if (last_ && !(*last_ == model)) {
      auto previous = frrgen::renderCompact(*last_, render_);
      if (previous && full_.reload(*previous)) {
        synced_ = true;
      }
    }
    return Error{r.error().code,
                 "full reload (" + report.reload_reason + "): " + r.error().message};
  }
  last_ = model;
  synced_ = true;
  return report;
}

Result<FastApplyReport> IncrementalApplier::apply(const frrgen::CompactModel& model) {
  if (!synced_ || !last_) {
    return fullReload(model, last_ ? "resynchronising after an error" : "start-up");
  }
  const CompactDelta delta = computeDelta(*last_, model);
  if (delta.empty()) {
    return FastApplyReport{};
  }
  if (delta.needsReload()) {
    return fullReload(model, delta.reload_reason);
  }
  FastApplyReport report;
  report.path = ApplyPath::Delta;
  report.commands = delta.commands.size();
  report.networks_added = delta.networks_added;
  report.networks_removed = delta.networks_removed;
  report.networks_changed = delta.networks_changed;
  auto start = Clock::now();
  auto sent = vtysh_.configure(delta.commands);
  report.send_elapsed = since(start);
  if (!sent) {
    ++fallback_count_;
    synced_ = false;
    return fullReload(model, "vtysh: " + sent.error().message);
  }
  last_ = model;
  start = Clock::now();
  auto drift = readBack(model);
  report.verify_elapsed = since(start);
  if (!drift) {
    ++fallback_count_;
    synced_ = false;
    return fullReload(model, "read-back: " + drift.error().message);
  }
  if (!drift->empty()) {
    ++drift_count_;
    auto full = fullReload(model, "drift after delta: " + *drift);
    if (full) {
      full->drift = *drift;
    }
    return full;
  }
  return report;
}

Result<FastApplyReport> IncrementalApplier::verify() {
  if (!last_) {
    return FastApplyReport{};
  }
  const frrgen::CompactModel model = *last_;
  if (!synced_) {
    return fullReload(model, "resynchronising after an error");
  }
  const auto start = Clock::now();
  auto drift = readBack(model);
  if (!drift) {
    return fullReload(model, "read-back: " + drift.error().message);
  }
  if (drift->empty()) {
    FastApplyReport report;
    report.verify_elapsed = since(start);
    return report;
  }
  ++drift_count_;
  auto full = fullReload(model, "drift: " + *drift);
  if (full) {
    full->drift = *drift;
  }
  return full;
}

}  // namespace ingot::agent::bgp
