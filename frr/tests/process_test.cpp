// SPDX-License-Identifier: Apache-2.0
// runCommand: exit statuses, separate stdout/stderr capture, the hard timeout killing the whole
// process group, missing programs, and no leaked descriptors or zombies afterwards; spawnProcess
// for a child tied to its caller (die_with_caller) starts and fails the same way.
#include "frr/process.h"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace {

using ingot::ErrorCode;
using ingot::frr::commandLine;
using ingot::frr::runCommand;
using ingot::frr::SpawnOptions;
using ingot::frr::spawnProcess;
using namespace std::chrono_literals;

constexpr auto kGenerous = std::chrono::milliseconds(60'000);

/// errorOf is the message to show when a Result unexpectedly failed (never calls error() on
/// success: Boost evaluates the message argument even when the check passes).
template <typename T>
std::string errorOf(const ingot::Result<T>& r) {
  return r.has_value() ? std::string("unexpected success") : r.error().message;
}

int openFds() {
  int n = 0;
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n;
}

/// gone reports whether pid no longer runs (absent, or a zombie waiting for its new parent).
bool gone(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return true;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

bool waitGone(pid_t pid) {
  for (int i = 0; i < 200; ++i) {  // bounded: up to ~10 s on a loaded machine
    if (gone(pid)) return true;
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

pid_t readPid(const std::string& path) {
  std::ifstream in(path);
  pid_t pid = -1;
  in >> pid;
  return pid;
}

std::string tempPath(const char* name) {
  return "/tmp/ingot-bgp-process-" + std::to_string(getpid()) + "-" + name;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(process)

BOOST_AUTO_TEST_CASE(exit_status_is_the_exit_code_or_128_plus_the_signal) {
  struct Case {
    std::string desc;
    std::vector<std::string> argv;
    int want;
  };
  const std::vector<Case> cases = {
      {"success", {"/bin/sh", "-c", "exit 0"}, 0},
      {"a failure code", {"/bin/sh", "-c", "exit 3"}, 3},
      {"killed by SIGTERM", {"/bin/sh", "-c", "kill -TERM $$"}, 128 + 15},
      {"a program found in PATH", {"false"}, 1},
      {"stdin is /dev/null, so cat ends at once", {"cat"}, 0},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = runCommand(c.argv, kGenerous);
      BOOST_TEST_REQUIRE(r.has_value(), errorOf(r));
      BOOST_TEST(r->exit_status == c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(stdout_and_stderr_are_captured_separately_and_completely) {
  auto r = runCommand({"/bin/sh", "-c", "echo out; echo err >&2; printf 'no newline'"}, kGenerous);
  BOOST_TEST_REQUIRE(r.has_value(), errorOf(r));
  BOOST_TEST(r->out == "out\nno newline");
  BOOST_TEST(r->err == "err\n");
  BOOST_TEST(!r->truncated);

  // Both streams larger than a pipe buffer at once: no deadlock, nothing lost.
  auto big = runCommand(
      {"/bin/sh", "-c", "head -c 1500000 /dev/zero >&2 & head -c 2000000 /dev/zero; wait"},
      kGenerous);
  BOOST_TEST_REQUIRE(big.has_value(), errorOf(big));
  BOOST_TEST(big->exit_status == 0);
  BOOST_TEST(big->out.size() == 2000000u);
  BOOST_TEST(big->err.size() == 1500000u);
}

BOOST_AUTO_TEST_CASE(timeout_kills_the_whole_process_group_quickly) {
  const std::string pid_file = tempPath("timeout.pid");
  const auto start = std::chrono::steady_clock::now();
  auto r = runCommand(
      {"/bin/sh", "-c", "echo started; sleep 100 & echo $! > " + pid_file + "; sleep 100"}, 300ms);
  const auto took = std::chrono::steady_clock::now() - start;
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((r.error().code == ErrorCode::Unavailable));
  BOOST_TEST(r.error().message.find("timed out after 300 ms") != std::string::npos,
             r.error().message);
  BOOST_TEST(r.error().message.find("/bin/sh -c") != std::string::npos, r.error().message);
  BOOST_TEST(r.error().message.find("started") != std::string::npos, r.error().message);
  // Not a timing assertion: far below the 100 s the sleeps would take if they were not killed.
  BOOST_TEST(took < std::chrono::seconds(50));
  const pid_t background = readPid(pid_file);
  std::remove(pid_file.c_str());
  BOOST_TEST_REQUIRE(background > 0);
  BOOST_TEST(waitGone(background), "background sleep " << background << " survived");
}

BOOST_AUTO_TEST_CASE(a_background_process_holding_the_pipes_does_not_hold_up_the_result) {
  const std::string pid_file = tempPath("straggler.pid");
  auto r =
      runCommand({"/bin/sh", "-c", "sleep 100 & echo $! > " + pid_file + "; echo done"}, kGenerous);
  BOOST_TEST_REQUIRE(r.has_value(), errorOf(r));
  BOOST_TEST(r->exit_status == 0);
  BOOST_TEST(r->out == "done\n");
  const pid_t background = readPid(pid_file);
  std::remove(pid_file.c_str());
  BOOST_TEST_REQUIRE(background > 0);
  BOOST_TEST(waitGone(background), "background sleep " << background << " survived");
}

/// StartFailure: a command line that cannot start, the error code and what the message names.
struct StartFailure {
  std::string desc;
  std::vector<std::string> argv;
  ingot::ErrorCode code;
  std::string mention;
};

/// startFailures are the command lines both launch paths (posix_spawn, fork with
/// die_with_caller) must refuse alike; run them with PATH pinned to /usr/bin:/bin.
std::vector<StartFailure> startFailures() {
  return {
      {"absolute path",
       {"/nonexistent/ingot-no-such-tool", "--test"},
       ErrorCode::NotFound,
       "/nonexistent/ingot-no-such-tool --test"},
      {"PATH lookup", {"ingot-no-such-tool-xyz"}, ErrorCode::NotFound, "ingot-no-such-tool-xyz"},
      {"not executable", {"/etc/hostname"}, ErrorCode::Unavailable, "/etc/hostname"},
      {"empty argv", {}, ErrorCode::InvalidArgument, "empty command"},
  };
}

BOOST_AUTO_TEST_CASE(a_missing_program_is_a_clean_error_naming_it) {
  // A PATH entry this user may not search turns "not found" into EACCES; pin PATH.
  const std::string saved_path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  setenv("PATH", "/usr/bin:/bin", 1);
  const auto cases = startFailures();
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = runCommand(c.argv, kGenerous);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST((r.error().code == c.code));
      BOOST_TEST(r.error().message.find(c.mention) != std::string::npos, r.error().message);
    }
  }
  setenv("PATH", saved_path.c_str(), 1);
}

BOOST_AUTO_TEST_CASE(a_child_tied_to_its_caller_starts_and_fails_like_any_other) {
  const std::string saved_path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  setenv("PATH", "/usr/bin:/bin", 1);
  const auto cases = startFailures();
  SpawnOptions tied;
  tied.die_with_caller = true;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto r = spawnProcess(c.argv, tied);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST((r.error().code == c.code));
      BOOST_TEST(r.error().message.find(c.mention) != std::string::npos, r.error().message);
    }
  }
  // A program found in PATH reads stdin_fd and writes stdout_fd.
  int in[2];
  int out[2];
  BOOST_TEST_REQUIRE(pipe(in) == 0);
  BOOST_TEST_REQUIRE(pipe(out) == 0);
  tied.stdin_fd = in[0];
  tied.stdout_fd = out[1];
  auto pid = spawnProcess({"sh", "-c", "read x; echo got $x"}, tied);
  setenv("PATH", saved_path.c_str(), 1);
  close(in[0]);
  close(out[1]);
  BOOST_TEST_REQUIRE(pid.has_value(), errorOf(pid));
  BOOST_TEST(write(in[1], "hello\n", 6) == 6);
  close(in[1]);
  char buf[64] = {};
  const ssize_t n = read(out[0], buf, sizeof buf - 1);
  close(out[0]);
  BOOST_TEST(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0) == "got hello\n");
  int status = 0;
  BOOST_TEST(waitpid(*pid, &status, 0) == *pid);
  BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

BOOST_AUTO_TEST_CASE(no_descriptor_or_zombie_is_left_behind) {
  const int before = openFds();
  BOOST_TEST_REQUIRE(before > 0);
  for (int i = 0; i < 5; ++i) {
    (void)runCommand({"/bin/sh", "-c", "echo x; exit 2"}, kGenerous);
    (void)runCommand({"/nonexistent/tool"}, kGenerous);
    (void)runCommand({"/bin/sh", "-c", "sleep 100"}, 50ms);
  }
  BOOST_TEST(openFds() == before);
  int status = 0;
  BOOST_TEST(waitpid(-1, &status, WNOHANG) == -1);
  BOOST_TEST(errno == ECHILD);
}

BOOST_AUTO_TEST_CASE(command_lines_quote_what_a_shell_would_split) {
  BOOST_TEST(commandLine({"/usr/bin/vtysh", "-N", "ns1", "-c", "show running-config"}) ==
             "/usr/bin/vtysh -N ns1 -c 'show running-config'");
  BOOST_TEST(commandLine({"a", "", "it's"}) == "a '' 'it'\\''s'");
  BOOST_TEST(commandLine({"--confdir", "/tmp/x_1/y.z", "a=b,c:d@e%f+g"}) ==
             "--confdir /tmp/x_1/y.z a=b,c:d@e%f+g");
  BOOST_TEST(commandLine({}) == "");
}

BOOST_AUTO_TEST_SUITE_END()
