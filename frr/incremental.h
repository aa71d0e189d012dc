// SPDX-License-Identifier: Apache-2.0
// IncrementalApplier keeps the node's FRR on a compact model (frrgen/compact.h) by sending only
// the structural delta from the model it applied last (compact_delta.h) through vtysh. It does not
// read FRR back on the hot path: vtysh's replies to the delta already say when a line was rejected,
// a daemon is down or restarted; verify() reads FRR's running configuration back, and the caller
// runs it once changes have gone quiet and periodically. It falls back to a full reload of the
// rendered file (frr-reload.py through FrrDriver) at start-up, when the delta touches more than
// Service policy, when vtysh rejects a line, after a daemon restarted, and when the read-back finds
// drift (FRR restarted, or someone edited it by hand; counted and described in the report before it
// is corrected). Before a full reload it checks that FRR's daemons run and answer, so a stopped or
// hung bgpd costs one bounded vtysh call, not a frr-reload.py run; the error names the daemon.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/util/result.h"
#include "frr/apply_health.h"
#include "frr/compact_delta.h"
#include "frr/frr_driver.h"
#include "frr/vtysh_session.h"
#include "frrgen/compact.h"
#include "frrgen/render.h"

namespace ingot::frr {

/// FullReload converges FRR to a whole frr.conf (production: FrrDriver::apply, frr-reload.py).
class FullReload {
 public:
  virtual ~FullReload() = default;
  /// reload converges FRR to text; always runs (no "unchanged" shortcut).
  virtual Result<ApplyReport> reload(const std::string& text) = 0;
};

/// ApplyPath is how an apply reached FRR.
enum class ApplyPath { Unchanged, Delta, FullReload };

/// applyPathName is path as logs and metric labels spell it: "unchanged", "delta", "full_reload".
const char* applyPathName(ApplyPath path);

/// RejectedSession is a BGP session FRR refused. FRR got everything else of the model; the
/// session was left out, or kept as FRR held it before the refused change (kept_previous).
struct RejectedSession {
  std::string vrf;             ///< the router's VRF ("" = default)
  std::string peer;            ///< frrgen::Neighbor::id()
  std::string error;           ///< what FRR said when it was tried
  bool kept_previous = false;  ///< FRR keeps the session as it was before the refused change
  friend bool operator==(const RejectedSession&, const RejectedSession&) = default;
};

/// FastApplyReport describes one apply or verify.
struct FastApplyReport {
  ApplyPath path = ApplyPath::Unchanged;
  std::string reload_reason;  ///< why a full reload ran ("" otherwise)
  std::string drift;          ///< what the read-back found different ("" = none)
  size_t commands = 0;        ///< delta lines sent
  size_t networks_added = 0;
  size_t networks_removed = 0;
  size_t networks_changed = 0;
  std::chrono::milliseconds send_elapsed{0};    ///< the delta, or the full reload
  std::chrono::milliseconds verify_elapsed{0};  ///< the read-back
  /// rejected are the sessions FRR refused (found now, or refused before and unchanged since):
  /// the apply succeeded for everything else.
  std::vector<RejectedSession> rejected;
};

/// IncrementalApplier is not thread-safe: one caller (the agent's BGP worker).
class IncrementalApplier {
 public:
  /// vtysh and full must outlive the applier. render shapes the file of a full reload.
  IncrementalApplier(VtyshPort& vtysh, FullReload& full, frrgen::RenderOptions render);

  /// apply converges FRR to model. A model announcing more than kMaxPrefixes is refused before
  /// anything is sent (Exhausted). When FRR refuses the model and new or changed BGP sessions
  /// are the cause, those sessions are isolated (isolate()): FRR gets the rest, and the report
  /// lists each refused session; an unchanged refused session is left out of later applies
  /// without trying it again. Other errors leave the applier unsynced, so that the next apply or
  /// verify does a full reload (the caller retries with backoff); FRR is put back on the last
  /// model that applied when the new one cannot be. A delta is not read back here: see
  /// verifyPending().
  Result<FastApplyReport> apply(const frrgen::CompactModel& model);

  /// verify reads FRR's running configuration back and reloads the last model on drift. Does
  /// nothing before the first successful apply. Call it once changes go quiet and periodically.
  Result<FastApplyReport> verify();

  /// verifyPending: a delta went out since the last read-back (or full reload).
  bool verifyPending() const { return unverified_; }

  uint64_t driftCount() const { return drift_count_; }        ///< drift found and corrected
  uint64_t fallbackCount() const { return fallback_count_; }  ///< deltas that failed

  /// expectedFor returns the projection of the model's rendered file (for tests and messages).
  PolicyProjection expectedFor(const frrgen::CompactModel& model) const;

 private:
  /// fullReload converges FRR to the whole rendered file with frr-reload.py; prime first sends
  /// every line through vtysh (after a start, an error or drift: a daemon may have restarted).
  Result<FastApplyReport> fullReload(const frrgen::CompactModel& model,
                                     std::string reason,
                                     bool prime = true);
  /// sendDelta sends delta and handles what vtysh reported (see apply()).
  Result<FastApplyReport> sendDelta(const frrgen::CompactModel& model, const CompactDelta& delta);
  /// SessionKey is (router VRF, Neighbor::id()).
  using SessionKey = std::pair<std::string, std::string>;
  /// Refused is a session FRR refused: the version refused, the one FRR kept (if any), why.
  struct Refused {
    frrgen::CompactNeighbor tried;
    std::optional<frrgen::CompactNeighbor> kept;
    std::string error;
  };
  /// applyOnce is apply() without the isolation of refused sessions.
  Result<FastApplyReport> applyOnce(const frrgen::CompactModel& model);
  /// withoutRefused returns model with each session refused before (and unchanged since) put
  /// back to what FRR kept, adding it to skipped; refusals of changed or gone sessions are
  /// forgotten, so that they are tried again.
  frrgen::CompactModel withoutRefused(const frrgen::CompactModel& model,
                                      std::vector<RejectedSession>& skipped);
  /// isolate finds the sessions FRR refuses after it refused model (error): the new or changed
  /// sessions are tried in halves (full reloads) from the model where each of them is as FRR
  /// held it, until every one is either in FRR or refused on its own. Returns error when the
  /// model without any of them is refused too (the cause is elsewhere).
  Result<FastApplyReport> isolate(const frrgen::CompactModel& model, const Error& error);
  /// checkDaemons returns an error naming each daemon model needs that is not running, or the
  /// probe's error when bgpd does not answer.
  Result<void> checkDaemons(const frrgen::CompactModel& model);
  /// readBack returns the drift between model and FRR ("" = none).
  Result<std::string> readBack(const frrgen::CompactModel& model);

  VtyshPort& vtysh_;
  FullReload& full_;
  frrgen::RenderOptions render_;
  std::optional<frrgen::CompactModel> last_;  ///< last model FRR was converged to
  bool synced_ = false;                       ///< FRR is known to hold last_
  bool unverified_ = false;                   ///< a delta went out since the last read-back
  uint64_t drift_count_ = 0;
  uint64_t fallback_count_ = 0;
  std::map<SessionKey, Refused> refused_;
};

/// DriverReload is the production FullReload over FrrDriver.
class DriverReload final : public FullReload {
 public:
  explicit DriverReload(FrrDriver& driver) : driver_(driver) {}
  Result<ApplyReport> reload(const std::string& text) override { return driver_.apply(text); }

 private:
  FrrDriver& driver_;
};

}  // namespace ingot::frr
