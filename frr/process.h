// SPDX-License-Identifier: Apache-2.0
// Running one external command with a hard timeout: the agent's only way to start FRR's tools
// (frr-reload.py, vtysh). The child gets its own process group, stdin from /dev/null and its
// stdout and stderr on two pipes; on timeout the whole group is killed with SIGKILL and the child
// is reaped, so a hung vtysh below frr-reload.py cannot outlive the call. No fd is leaked (every
// descriptor is O_CLOEXEC and closed before return) and no zombie is left behind.
#pragma once

#include <chrono>
#include <string>
#include <sys/types.h>
#include <vector>

#include "common/util/result.h"

namespace ingot::frr {

/// CommandOutput is what a command that ran to completion produced.
struct CommandOutput {
  int exit_status = -1;    ///< the exit code, or 128 + signal number when a signal ended it
  std::string out;         ///< stdout
  std::string err;         ///< stderr
  bool truncated = false;  ///< a stream exceeded kMaxCapturedBytes; its tail was dropped
};

/// kMaxCapturedBytes caps each captured stream; the rest is read and discarded.
inline constexpr size_t kMaxCapturedBytes = 64u << 20;

/// runCommand starts argv (argv[0] is looked up in PATH when it has no slash) with the current
/// environment and waits for it up to timeout. A non-zero exit status is a value, not an error.
/// Errors, each naming the command line: argv empty (InvalidArgument); the program missing
/// (NotFound) or not startable (Unavailable); the timeout expiring (Unavailable: the process group
/// was killed; the message ends with the tail of the output). When the child exits but a process
/// it left behind keeps its pipes open, the pipes are drained for a short grace period and that
/// process group is then killed too. Thread-safe (no shared state); reaps only its own child.
Result<CommandOutput> runCommand(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout);

/// runCommand as above, and while the child runs its process group ID and start time are written
/// to group_record (removed once the child is reaped; "" = no record). A caller killed before it
/// reaps the child leaves the file behind, and killRecordedGroup ends the group on its next start:
/// a tool that spawns tools of its own (frr-reload.py runs vtysh) cannot be tied to the caller's
/// life with PR_SET_PDEATHSIG.
Result<CommandOutput> runCommand(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout,
                                 const std::string& group_record);

/// killRecordedGroup sends SIGKILL to the process group named in group_record, unless its leader
/// is a different process than the one recorded (its PID was reused), and removes the file.
/// Returns true when a signal was sent. A missing file is not an error.
bool killRecordedGroup(const std::string& group_record);

/// SpawnOptions say what a child started by spawnProcess gets besides the current environment.
struct SpawnOptions {
  std::vector<std::string> env;  ///< "NAME=value" entries added to the current environment
  /// output_path, when set, receives the child's stdout and stderr (appended; created 0644).
  std::string output_path;
  int stdout_fd = -1;  ///< otherwise duplicated onto the child's stdout (-1 = /dev/null)
  int stderr_fd = -1;  ///< and stderr (-1 = /dev/null)
  int stdin_fd = -1;   ///< duplicated onto the child's stdin (-1 = /dev/null)
  /// die_with_caller gives the child PR_SET_PDEATHSIG=SIGKILL: it is killed when the thread that
  /// spawned it ends (the caller's process killed with SIGKILL included), and not started at all
  /// when the caller is already gone. Only for children that start no tools of their own (vtysh
  /// as a session): the signal reaches the child, not its group.
  bool die_with_caller = false;
};

/// spawnProcess starts argv (argv[0] looked up in PATH when it has no slash) in a new process
/// group whose ID is its PID, with stdin from /dev/null (or stdin_fd), every signal at its default
/// and unblocked, and returns its PID without waiting; the caller reaps it. The one process
/// launcher of the repository: runCommand, the persistent vtysh session and the tests' launcher
/// (testing/process.h) start their children through it. Errors name the command line: argv empty
/// (InvalidArgument), the program missing (NotFound) or not startable (Unavailable).
Result<pid_t> spawnProcess(const std::vector<std::string>& argv, const SpawnOptions& options);

/// commandLine renders argv for messages: arguments joined by spaces, an argument with a space,
/// quote or shell metacharacter single-quoted.
std::string commandLine(const std::vector<std::string>& argv);

}  // namespace ingot::frr
