// SPDX-License-Identifier: Apache-2.0
// FrrEngine is the one loop that keeps a node's FRR on a desired model, for the agent's frr mode
// and ingot-frr alike: apply (the compact shape incrementally through FrrPort, a whole file with
// frr-reload.py when asked or when the model carries raw snippets), read back (once a delta went
// out, and periodically), retry with a growing delay (ApplyHealth: failures by reason, backoff,
// the last success) and the fallback to a full reload (the port's next apply after an error, or
// at once when forget_on_failure). Where the daemons differ, EngineOptions says how: each sets it
// to its own timings.
//
// The engine decides and calls the port; its time comes from the clock the daemon hands it (tests
// pass a fake), and it reports nothing itself: each Outcome says what happened, and the daemon
// logs it, records Events and writes its status. Not thread-safe (one worker), except health(),
// which /metrics may read.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/util/result.h"
#include "frr/apply_health.h"
#include "frr/port.h"
#include "frrgen/compact.h"
#include "frrgen/model.h"
#include "frrgen/render.h"

namespace ingot::frr {

/// EngineOptions: how the engine applies and when it reads FRR back.
struct EngineOptions {
  using Duration = std::chrono::steady_clock::duration;
  /// render shapes the files the engine and the port write (hostname, log level).
  frrgen::RenderOptions render;
  /// whole_file applies every model as one per-prefix file through FrrPort::reload (the agent's
  /// --frr-apply reload) instead of the compact shape's deltas.
  bool whole_file = false;
  /// raw_as_file applies a model with raw snippets as frr-k8s does (FrrPort::applyFile).
  bool raw_as_file = false;
  /// skip_unchanged: a model equal to the last one FRR took (and no failure since) is not handed
  /// to the port at all (Outcome::skipped).
  bool skip_unchanged = false;
  /// forget_on_failure: after a failure the port forgets what FRR holds, so that the retry
  /// converges FRR from scratch (it may have restarted meanwhile).
  bool forget_on_failure = false;
  /// verify_interval: the periodic read-back; zero = no read-back at all.
  Duration verify_interval = std::chrono::seconds(30);
  /// verify_after_delta: a delta is read back this long after it went out.
  Duration verify_after_delta = std::chrono::seconds(1);
  /// quiet: every further delta pushes the delta's read-back out and a full reload cancels it,
  /// and the periodic read-back keeps its own cadence (the agent). Otherwise (ingot-frr) there
  /// is one read-back timer: the earliest request wins, and each read-back starts the period anew.
  bool quiet = false;
};

/// EngineStep is what the engine has to do next.
enum class EngineStep {
  Idle,    ///< FRR holds the desired model and no read-back is due
  Apply,   ///< the desired model changed, or the last attempt failed (its retry)
  Verify,  ///< a read-back is due
};

/// Outcome describes one apply or read-back.
struct Outcome {
  /// report of a success (the path FRR took, drift found, sessions FRR refused).
  FastApplyReport report;
  /// error of a failure; nullopt on success.
  std::optional<Error> error;
  /// conversion: the model could not be put in the compact shape (nothing reached FRR; not
  /// counted as an FRR failure; the caller decides, e.g. with failed()).
  bool conversion = false;
  /// skipped: nothing ran (an unchanged model, or a read-back with nothing to read back).
  bool skipped = false;
  /// recovered: this success ended a run of failures.
  bool recovered = false;
  FailureReason reason = FailureReason::Other;  ///< of a failure
  std::chrono::milliseconds retry{0};           ///< wait before the retry of a failure
  int failures = 0;                             ///< consecutive failures, this one included

  bool ok() const { return !error.has_value(); }
};

class FrrEngine {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Clock = std::function<TimePoint()>;

  /// port must outlive the engine; clock times the read-backs.
  FrrEngine(FrrPort& port, EngineOptions options, Clock clock);

  /// next says what is due at now, given whether the desired model changed since the last
  /// success (dirty).
  EngineStep next(bool dirty, TimePoint now) const;
  /// nextVerify is when the next read-back is due (the earliest timer); nullopt = none.
  std::optional<TimePoint> nextVerify() const;

  /// apply converges FRR to model (see EngineOptions for the path). A model the compact shape
  /// cannot hold is an Outcome with conversion set, nothing applied and nothing recorded.
  Outcome apply(const frrgen::Model& model);
  /// verify reads FRR back and corrects drift; skipped before the first success and after a
  /// whole file with raw snippets (nothing to compare against the compact shape).
  Outcome verify();
  /// failed records error as a failure (e.g. the model could not be built) and returns its
  /// Outcome: reason, retry delay, consecutive failures.
  Outcome failed(const Error& error);

  /// render is the options' render; setRender changes it (the agent's hostname may change).
  const frrgen::RenderOptions& render() const { return options_.render; }
  void setRender(frrgen::RenderOptions render) { options_.render = std::move(render); }

  /// health is shared with /metrics, which may read it after the engine is gone.
  const std::shared_ptr<ApplyHealth>& health() const { return health_; }
  bool failing() const { return health_->consecutiveFailures() > 0; }

 private:
  /// Applied is what FRR took last.
  enum class Applied { Nothing, Compact, WholeFile, RawFile };

  Outcome applyCompact(const frrgen::CompactModel& model, TimePoint start);
  Outcome applyWhole(const frrgen::Model& model, TimePoint start);
  Outcome applyRaw(const frrgen::Model& model, TimePoint start);
  /// finish records the port's answer to a run that began at start.
  Outcome finish(Result<FastApplyReport> report, TimePoint start);
  /// succeeded records a success of a run that began at start and moves the read-back timers.
  Outcome succeeded(FastApplyReport report, TimePoint start);
  /// unchanged: skip_unchanged and FRR took model last, with no failure since.
  template <typename M>
  bool unchanged(const std::optional<M>& last, const M& model) const {
    return options_.skip_unchanged && !failing() && last && *last == model;
  }

  FrrPort& port_;
  EngineOptions options_;
  Clock clock_;
  std::shared_ptr<ApplyHealth> health_ = std::make_shared<ApplyHealth>();
  Applied applied_ = Applied::Nothing;
  std::optional<frrgen::CompactModel> last_compact_;  ///< with skip_unchanged
  std::optional<frrgen::Model> last_raw_;             ///< with skip_unchanged
  std::optional<TimePoint> periodic_;                 ///< the periodic read-back
  std::optional<TimePoint> after_delta_;              ///< the read-back of a delta
};

}  // namespace ingot::frr
