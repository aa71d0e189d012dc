// SPDX-License-Identifier: Apache-2.0
// VtyshSession: one long-lived `vtysh` fed through its stdin, so that a small configuration change
// costs no process start (about 150 ms for vtysh on the lab machines). vtysh writes every reply,
// errors included ("% …"), to stdout; after each batch the session sends an unknown command
// ("ingot-sync-<n>") whose "% Unknown command" reply marks the end of the batch's output. Large
// batches go through `vtysh -f <file>` instead: line by line through stdin costs ~2 ms per line,
// one file ~0.2 ms.
//
// No vtysh outlives the agent: spawnProcess (frr/process.h) gives it PR_SET_PDEATHSIG=SIGKILL and
// exits anyway when its stdin closes; a `vtysh -f` run is bounded by runCommand's timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "common/util/result.h"
#include "frr/frr_driver.h"

namespace ingot::frr {

/// VtyshPort is what the incremental applier needs from vtysh. Tests substitute a fake.
class VtyshPort {
 public:
  virtual ~VtyshPort() = default;
  /// configure sends configuration commands between `configure terminal` and `end`. Errors:
  /// InvalidArgument when FRR rejects a line, naming the line and FRR's reply (the lines before
  /// and after it were still applied); Unavailable when a daemon is not running ("<daemon> is not
  /// running": its lines went nowhere), when vtysh times out (killed) or cannot run; Transient
  /// when a daemon restarted since the last batch (vtysh reconnected: the lines reached a daemon
  /// that lost the rest of its configuration); NotFound when vtysh is not installed.
  virtual Result<void> configure(const std::vector<std::string>& commands) = 0;
  /// show runs one command in exec mode and returns its output.
  virtual Result<std::string> show(const std::string& command) = 0;
  /// reset ends the session; the next call starts a new one (after FRR restarted).
  virtual void reset() = 0;
};

/// VtyshSessionOptions: where vtysh is and how long it may take.
struct VtyshSessionOptions {
  std::string vtysh = "/usr/bin/vtysh";
  std::string pathspace;  ///< -N; "" = the default instance
  std::string workdir;    ///< holds delta.conf for `vtysh -f`
  /// timeout bounds one batch, from the write to the last reply; a `vtysh -f` run gets 1 ms more
  /// per line. On expiry vtysh is killed and the error says so.
  std::chrono::milliseconds timeout{30'000};
  size_t file_threshold = 64;  ///< batches longer than this go through `vtysh -f`
};

/// VtyshSession is the production VtyshPort. Not thread-safe.
class VtyshSession final : public VtyshPort {
 public:
  explicit VtyshSession(VtyshSessionOptions options);
  ~VtyshSession() override;
  VtyshSession(const VtyshSession&) = delete;
  VtyshSession& operator=(const VtyshSession&) = delete;

  Result<void> configure(const std::vector<std::string>& commands) override;
  Result<std::string> show(const std::string& command) override;
  void reset() override;

  /// pid is the running vtysh's process ID, or -1 (for tests).
  pid_t pid() const { return pid_; }

 private:
  Result<void> start();
  /// exchange writes lines and a sync marker and returns what vtysh printed before the marker.
  Result<std::string> exchange(const std::vector<std::string>& lines);
  Result<void> configureFile(const std::vector<std::string>& commands);

  VtyshSessionOptions options_;
  pid_t pid_ = -1;
  int in_ = -1;   ///< vtysh's stdin (write end)
  int out_ = -1;  ///< vtysh's stdout and stderr (read end)
  uint64_t marker_ = 0;
  std::string pending_;  ///< output read after the last marker (the next batch's start)
};

/// daemonTrouble returns, for vtysh output, an error when it says a daemon is not running
/// (Unavailable, "<daemon> is not running") or that vtysh lost its connection to one and
/// reconnected (Transient: the daemon restarted); nullopt otherwise.
std::optional<Error> daemonTrouble(const std::string& output);

/// rejectedLines returns, for vtysh output (prompts and echoed commands included), one
/// "<command>: <reply>" per error reply ("% …"), leaving out the replies to sync markers.
std::vector<std::string> rejectedLines(const std::string& output);

}  // namespace ingot::frr
