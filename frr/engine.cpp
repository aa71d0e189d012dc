// SPDX-License-Identifier: Apache-2.0
#include "frr/engine.h"

#include <algorithm>

namespace ingot::frr {
namespace {

using TimePoint = FrrEngine::TimePoint;

/// earliest is the earlier of a timer and at (at when the timer is not set).
TimePoint earliest(const std::optional<TimePoint>& timer, TimePoint at) {
  return timer ? std::min(*timer, at) : at;
}

double wallSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

FrrEngine::FrrEngine(FrrPort& port, EngineOptions options, Clock clock)
    : port_(port), options_(std::move(options)), clock_(std::move(clock)) {}

EngineStep FrrEngine::next(bool dirty, TimePoint now) const {
  if (dirty || failing()) {
    return EngineStep::Apply;
  }
  const bool periodic =
      options_.verify_interval > EngineOptions::Duration::zero() && periodic_ && now >= *periodic_;
  const bool delta = after_delta_ && now >= *after_delta_;
  return periodic || delta ? EngineStep::Verify : EngineStep::Idle;
}

std::optional<TimePoint> FrrEngine::nextVerify() const {
  if (options_.verify_interval <= EngineOptions::Duration::zero()) {
    return std::nullopt;
  }
  if (!periodic_ || !after_delta_) {
    return periodic_ ? periodic_ : after_delta_;
  }
  return std::min(*periodic_, *after_delta_);
}

Outcome FrrEngine::apply(const frrgen::Model& model) {
  const TimePoint start = clock_();
  if (options_.whole_file) {
    return applyWhole(model, start);
  }
  if (options_.raw_as_file && !model.raw_config.empty()) {
    return applyRaw(model, start);
  }
  auto compacted = frrgen::compact(model);
  if (!compacted) {
    Outcome out;
    out.error = compacted.error();
    out.conversion = true;
    return out;
  }
  return applyCompact(*compacted, start);
}

Outcome FrrEngine::applyCompact(const frrgen::CompactModel& model, TimePoint start) {
  if (unchanged(last_compact_, model)) {
    Outcome out;
    out.skipped = true;  // an echo or an unrelated change: FRR already holds this model
    return out;
  }
  Outcome out = finish(port_.apply(model, options_.render), start);
  if (out.ok()) {
    applied_ = Applied::Compact;
    last_raw_.reset();
    if (options_.skip_unchanged) {
      last_compact_ = model;
    }
  }
  return out;
}

Outcome FrrEngine::applyWhole(const frrgen::Model& model, TimePoint start) {
  auto text = frrgen::render(model, options_.render);
  if (!text) {
    return failed(text.error());
  }
  auto reloaded = port_.reload(*text);
  if (!reloaded) {
    return failed(reloaded.error());
  }
  FastApplyReport report;
  report.path = reloaded->passes == 0 ? ApplyPath::Unchanged : ApplyPath::FullReload;
  report.reload_reason = "--frr-apply reload";
  report.send_elapsed = reloaded->elapsed;
  Outcome out = succeeded(std::move(report), start);
  applied_ = Applied::WholeFile;
  return out;
}

Outcome FrrEngine::applyRaw(const frrgen::Model& model, TimePoint start) {
  if (unchanged(last_raw_, model)) {
    Outcome out;
    out.skipped = true;
    return out;
  }
  auto report = port_.applyFile(model, options_.render);
  if (report) {
    report->reload_reason =
        "raw configuration (applied as frr-k8s does: whole file, frr-reload.py)";
  }
  Outcome out = finish(std::move(report), start);
  if (out.ok()) {
    applied_ = Applied::RawFile;
    last_compact_.reset();  // nothing to read back against the compact shape
    if (options_.skip_unchanged) {
      last_raw_ = model;
    }
  }
  return out;
}

Outcome FrrEngine::verify() {
  const TimePoint start = clock_();
  after_delta_.reset();
  if (!options_.quiet) {
    periodic_.reset();  // one timer: this read-back was it
  }
  if (applied_ == Applied::Nothing || applied_ == Applied::RawFile) {
    Outcome out;
    out.skipped = true;
    return out;
  }
  return finish(port_.verify(), start);
}

Outcome FrrEngine::finish(Result<FastApplyReport> report, TimePoint start) {
  if (!report) {
    return failed(report.error());
  }
  return succeeded(std::move(*report), start);
}

Outcome FrrEngine::failed(const Error& error) {
  Outcome out;
  out.error = error;
  out.reason = classifyFailure(error);
  out.retry = health_->failed(out.reason);
  out.failures = health_->consecutiveFailures();
  if (options_.forget_on_failure) {
    // The retry converges FRR from scratch: it may have restarted while the apply failed, and
    // what the port believes FRR holds may be wrong.
    port_.forget();
  }
  return out;
}

Outcome FrrEngine::succeeded(FastApplyReport report, TimePoint start) {
  Outcome out;
  out.recovered = failing();
  health_->succeeded(wallSeconds());
  const auto interval = options_.verify_interval;
  const bool reading_back = interval > EngineOptions::Duration::zero();
  const TimePoint end = clock_();
  if (options_.quiet) {
    if (report.path == ApplyPath::Delta) {
      // Read the delta back once changes go quiet; every further delta pushes it out.
      after_delta_ = end + options_.verify_after_delta;
    } else if (report.path == ApplyPath::FullReload) {
      after_delta_.reset();  // frr-reload.py converged FRR to the whole file
    }
    if (reading_back && (!periodic_ || start >= *periodic_)) {
      periodic_ = start + interval;
    }
  } else if (reading_back) {
    if (report.path == ApplyPath::Delta) {
      // The port does not read a delta back on its path: check it a moment later.
      after_delta_ = earliest(after_delta_, end + options_.verify_after_delta);
    }
    periodic_ = earliest(periodic_, end + interval);
  }
  out.report = std::move(report);
  return out;
}

}  // namespace ingot::frr
