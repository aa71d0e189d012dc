// SPDX-License-Identifier: Apache-2.0
// FrrDriver applies a rendered frr.conf to the node's FRR (the agent's `--bgp-mode frr`), the way
// frr-k8s' reloader does: write the file, `frr-reload.py --test`, then
// `frr-reload.py --reload`, then `--test` again until the delta is empty (a reload that adds
// graceful-restart exits 1 although applied; removing BFD from a neighbor takes two passes).
// It is the only agent code that runs FRR tools (docs/architecture.md). Not thread-safe: one
// caller (the agent's BGP worker) at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/util/log.h"
#include "common/util/result.h"
#include "frr/apply_health.h"  // retryDelay, for the callers of the driver

namespace ingot::frr {

/// FrrDriverOptions locate the node's FRR and bound every command.
struct FrrDriverOptions {
  std::string python = "/usr/bin/python3";
  std::string reload_script = "/usr/lib/frr/frr-reload.py";  ///< --frr-reload-script
  std::string vtysh = "/usr/bin/vtysh";
  std::string pathspace;  ///< FRR -N pathspace; "" = the default instance (--frr-pathspace)
  /// workdir holds frr.conf (mode 0600) and is passed as --confdir and --rundir, so nothing is
  /// read from or written to /etc/frr (--frr-workdir).
  std::string workdir;
  /// command_timeout bounds one frr-reload.py or vtysh run. frr-reload.py is slow on large
  /// configurations (one reload of a 1,000-prefix configuration took over 120 s on the lab
  /// machines), so the bound is generous: it is there to end a hung tool, not a slow one.
  std::chrono::milliseconds command_timeout{600'000};
  /// group_record is where the running frr-reload.py's process group is recorded ("" =
  /// <workdir>/reload.pgid); a FrrDriver kills a group left there by a predecessor that died.
  std::string group_record;
  int max_passes = 3;  ///< reload passes until `--test` shows an empty delta
  /// logger, when set, receives one line per reload pass (op "frr-apply"); never passwords.
  ingot::log::Logger* logger = nullptr;
};

/// ApplyReport describes one successful apply.
struct ApplyReport {
  int passes = 0;            ///< --reload runs (0 when the first --test showed no change)
  size_t lines_added = 0;    ///< from the first --test delta ("Lines To Add")
  size_t lines_removed = 0;  ///< from the first --test delta ("Lines To Delete")
  std::chrono::milliseconds elapsed{0};
};

/// ReloadDelta is frr-reload.py --test output, parsed. Noise (`no hostname <uts>`) is dropped.
struct ReloadDelta {
  std::vector<std::string> to_delete;
  std::vector<std::string> to_add;
  bool empty() const { return to_delete.empty() && to_add.empty(); }
};

/// parseTestOutput parses the "Lines To Delete" / "Lines To Add" sections of `frr-reload.py
/// --test` output (context lines joined with " / " for nested commands).
ReloadDelta parseTestOutput(const std::string& text);

/// describeDelta renders a delta for messages: "delete [a; b] add [c]", at most limit lines per
/// section followed by "… (+N more)". Passwords are not retracted here (see retractPasswords).
std::string describeDelta(const ReloadDelta& delta, size_t limit = 20);

/// retractPasswords replaces the word following every "password" keyword (as in `neighbor X
/// password Y`) with "<retracted>". Every error and log line of this module passes through it.
std::string retractPasswords(std::string_view text);

/// FrrDriver runs the tools. Errors name the command, its exit status and its output (passwords
/// in the output replaced by "<retracted>").
class FrrDriver {
 public:
  /// FrrDriver kills what a previous agent's reload left running (see group_record).
  explicit FrrDriver(FrrDriverOptions options);

  /// apply writes text to <workdir>/frr.conf and converges FRR to it. On error FRR may hold a
  /// partial change; the caller re-applies its last good text (FrrApplier does).
  Result<ApplyReport> apply(const std::string& text);

  /// reloadTested continues apply() after a successful test(): `delta` is what that test
  /// reported for the file it wrote. Saves the second `--test` run (about 0.5–1 s per change).
  Result<ApplyReport> reloadTested(ReloadDelta delta);

  /// test runs `frr-reload.py --test` on text without changing FRR: a syntax or semantic error
  /// is reported here, before anything is applied.
  Result<ReloadDelta> test(const std::string& text);

  /// runningConfig returns `show running-config`.
  Result<std::string> runningConfig();

  const FrrDriverOptions& options() const { return options_; }

 private:
  FrrDriverOptions options_;
};

/// FrrApplier keeps FRR on the last configuration that applied cleanly.
class FrrApplier {
 public:
  explicit FrrApplier(FrrDriver& driver) : driver_(driver) {}

  /// apply: unchanged text (equal to the last good one) → nothing runs, passes = 0. Otherwise
  /// `--test` first (an error there changes nothing), then the reload passes; if that fails the
  /// last good text (if any) is applied again and the original error is returned.
  Result<ApplyReport> apply(const std::string& text);

  /// lastGood is the text FRR was last converged to ("" before the first success).
  const std::string& lastGood() const { return last_good_; }

 private:
  FrrDriver& driver_;
  std::string last_good_;
  bool has_last_good_ = false;  ///< "" is a valid configuration too
};

}  // namespace ingot::frr
