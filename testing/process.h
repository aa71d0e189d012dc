// SPDX-License-Identifier: Apache-2.0
// The one process launcher of the tests and benchmarks: children started through frr/'s
// spawnProcess with a log file, stopped by PID (SIGTERM, then SIGKILL), plus small file, socket
// and HTTP helpers and a bounded condition wait. Independent of Boost.Test so that the benchmarks
// can use it too. Children die with the parent (started under setpriv --pdeathsig KILL).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "common/util/result.h"
#include "testing/wait.h"

namespace ingot::testing {

/// Process is one child process. The destructor kills it (SIGKILL) if it still runs.
class Process {
 public:
  /// spawn execs argv[0] (absolute path) with argv, the current environment plus `env`
  /// ("NAME=value"), stdout and stderr appended to log_path.
  static Result<std::unique_ptr<Process>> spawn(const std::vector<std::string>& argv,
                                                const std::vector<std::string>& env,
                                                const std::string& log_path);
  ~Process();

  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }

  /// running is true until the process exited (it is reaped then).
  bool running();

  /// waitExit waits up to timeout for the process to exit; returns its exit code (128+signal
  /// when killed by a signal), nullopt on timeout.
  std::optional<int> waitExit(Millis timeout);

  /// terminate sends SIGTERM and waits up to timeout; on timeout it sends SIGKILL and returns
  /// nullopt.
  std::optional<int> terminate(Millis timeout);

 private:
  explicit Process(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

/// readWholeFile returns a file's content ("" when unreadable).
std::string readWholeFile(const std::string& path);

/// writeWholeFile writes content to path.
Result<void> writeWholeFile(const std::string& path, const std::string& content);

/// makeTempDir creates a fresh directory under /tmp with the prefix.
Result<std::string> makeTempDir(const std::string& prefix);

/// HttpReply is the status and body of a plain-HTTP GET.
struct HttpReply {
  int status = 0;
  std::string body;
};

/// kHttpTimeoutSeconds bounds each send and receive of httpGet.
inline constexpr int kHttpTimeoutSeconds = 10;

/// httpGet sends GET path to 127.0.0.1:port (Connection: close; kHttpTimeoutSeconds for each
/// send and receive) and returns the reply read to the server's close.
Result<HttpReply> httpGet(int port, const std::string& path);

/// metricValue finds the sample `series` (name plus labels exactly as rendered, e.g.
/// `metallb_allocator_addresses_in_use_total{pool="a"}`) in Prometheus text.
std::optional<double> metricValue(const std::string& text, const std::string& series);

/// runCommand runs a shell command line, returning its exit code and combined output.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};
CommandResult runCommand(const std::string& command);

/// cpuSeconds returns the user+system CPU time a process used so far (0 when unknown).
double cpuSeconds(pid_t pid);

/// rssKiB returns VmRSS of a process in KiB (0 when unknown); peak = VmHWM.
long rssKiB(pid_t pid, bool peak = false);

}  // namespace ingot::testing
