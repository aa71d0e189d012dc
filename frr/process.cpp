// SPDX-License-Identifier: Apache-2.0
#include "frr/process.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ingot::frr {
namespace {

using Clock = std::chrono::steady_clock;

/// kGrace bounds how long pipes are drained after the child exited (a background process it
/// left behind may hold them open).
constexpr std::chrono::milliseconds kGrace{500};
constexpr std::chrono::milliseconds kSlice{50};
constexpr size_t kTailChars = 600;

/// Fd owns one file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }

 private:
  int fd_ = -1;
};

/// Pipes are the child's stdout and stderr: read ends for us, write ends for the child.
struct Pipes {
  Fd out_r, out_w, err_r, err_w;
};

Error sysError(ErrorCode code, const std::string& cmd, const char* what, int err) {
  return Error{code, cmd + ": " + what + ": " + std::strerror(err)};
}

Result<Pipes> makePipes(const std::string& cmd) {
  Pipes p;
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return sysError(ErrorCode::Unavailable, cmd, "pipe", errno);
  p.out_r = Fd(out[0]);
  p.out_w = Fd(out[1]);
  if (::pipe2(err, O_CLOEXEC) != 0) return sysError(ErrorCode::Unavailable, cmd, "pipe", errno);
  p.err_r = Fd(err[0]);
  p.err_w = Fd(err[1]);
  return p;
}

/// Collector reads both pipes into the output until each reports end of file.
class Collector {
 public:
  Collector(Pipes& pipes, CommandOutput& output)
      : fds_{&pipes.out_r, &pipes.err_r}, bufs_{&output.out, &output.err}, output_(output) {}

  bool open() const { return fds_[0]->valid() || fds_[1]->valid(); }

  /// pump waits up to wait for data and reads what is available.
  void pump(std::chrono::milliseconds wait) {
    std::array<pollfd, 2> pfds{};
    for (size_t i = 0; i < 2; ++i) pfds[i] = pollfd{fds_[i]->get(), POLLIN, 0};  // -1 is skipped
    const int n = ::poll(pfds.data(), pfds.size(), static_cast<int>(wait.count()));
    if (n <= 0) return;  // timeout or EINTR: the caller loops
    for (size_t i = 0; i < 2; ++i) {
      if (pfds[i].revents != 0) readOnce(i);
    }
  }

 private:
  void readOnce(size_t i) {
    std::array<char, 65536> buf;
    const ssize_t n = ::read(fds_[i]->get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) return;
    if (n <= 0) {
      fds_[i]->reset();
      return;
    }
    std::string& s = *bufs_[i];
    const size_t room = kMaxCapturedBytes - std::min(kMaxCapturedBytes, s.size());
    const size_t take = std::min(room, static_cast<size_t>(n));
    s.append(buf.data(), take);
    if (take < static_cast<size_t>(n)) output_.truncated = true;
  }

  std::array<Fd*, 2> fds_;
  std::array<std::string*, 2> bufs_;
  CommandOutput& output_;
};

/// hasExited reports whether the child exited, without reaping it: while it is a zombie its PID
/// (and so its process group ID) cannot be reused, which keeps a later kill(-pid) safe.
bool hasExited(pid_t pid) {
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR) return true;  // ECHILD: nothing left to wait for
  }
  return info.si_pid == pid;
}

/// reap waits for the child and decodes its status (128 + signal when killed).
int reap(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string tail(const CommandOutput& o) {
  std::string all = o.out + o.err;
  if (all.size() > kTailChars) all = "…" + all.substr(all.size() - kTailChars);
  return all;
}

std::chrono::milliseconds until(Clock::time_point t) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now());
  return std::clamp(left, std::chrono::milliseconds(0), kSlice);
}

/// startTime returns field 22 of /proc/<pid>/stat (start time in clock ticks), or "".
std::string startTime(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return "";
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return field;
  }
  return "";
}

/// GroupRecord writes "<pgid> <start time>" to path for as long as it lives.
class GroupRecord {
 public:
  GroupRecord(std::string path, pid_t pid) : path_(std::move(path)) {
    if (path_.empty()) return;
    std::ofstream(path_) << pid << " " << startTime(pid) << "\n";
  }
  ~GroupRecord() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  GroupRecord(const GroupRecord&) = delete;
  GroupRecord& operator=(const GroupRecord&) = delete;

 private:
  std::string path_;
};

/// pointersTo returns the NULL-terminated array of C strings execve takes, pointing into v.
std::vector<char*> pointersTo(std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

Error startError(const std::string& cmd, int err) {
  return sysError(err == ENOENT ? ErrorCode::NotFound : ErrorCode::Unavailable, cmd, "cannot start",
                  err);
}

Result<pid_t> posixSpawn(const std::string& cmd,
                         const std::vector<char*>& cargv,
                         const std::vector<char*>& cenv,
                         const SpawnOptions& options) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  if (options.stdin_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, options.stdin_fd, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  if (!options.output_path.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, options.output_path.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  } else {
    for (const auto& [fd, target] : {std::pair{options.stdout_fd, 1}, {options.stderr_fd, 2}}) {
      if (fd >= 0) {
        posix_spawn_file_actions_adddup2(&actions, fd, target);
      } else {
        posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0);
      }
    }
  }
  sigset_t none;
  sigset_t all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return startError(cmd, rc);
  return pid;
}

/// programPath returns name when it has a slash, else the first executable <PATH entry>/name
/// (name itself when none is: execve then fails with ENOENT). Resolved before fork, so that the
/// child makes only async-signal-safe calls.
std::string programPath(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;
}

/// childDup makes fd (or /dev/null opened with flags when fd < 0) the child's target descriptor.
/// Between fork and exec: async-signal-safe calls only.
void childDup(int fd, int target, int flags) {
  if (fd < 0) fd = ::open("/dev/null", flags);
  if (fd >= 0 && fd != target) ::dup2(fd, target);
}

/// execChild is the child's side of forkExec; it does not return. Only async-signal-safe calls.
[[noreturn]] void execChild(pid_t parent,
                            const char* program,
                            const std::vector<char*>& cargv,
                            const std::vector<char*>& cenv,
                            const SpawnOptions& options,
                            int report_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(126);  // the caller died before the line above
  ::setpgid(0, 0);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  childDup(options.stdin_fd, 0, O_RDONLY);
  if (!options.output_path.empty()) {
    childDup(::open(options.output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644), 1, 0);
    ::dup2(1, 2);
  } else {
    childDup(options.stdout_fd, 1, O_WRONLY);
    childDup(options.stderr_fd, 2, O_WRONLY);
  }
  ::execve(program, cargv.data(), cenv.data());
  const int err = errno;
  [[maybe_unused]] const ssize_t n = ::write(report_fd, &err, sizeof err);
  ::_exit(127);
}

/// forkExec is spawnProcess for die_with_caller (posix_spawn cannot set PR_SET_PDEATHSIG). The
/// child reports a failed exec through a close-on-exec pipe, so the errors are posixSpawn's.
Result<pid_t> forkExec(const std::string& cmd,
                       const std::vector<char*>& cargv,
                       const std::vector<char*>& cenv,
                       const SpawnOptions& options) {
  const std::string program = programPath(cargv[0]);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return sysError(ErrorCode::Unavailable, cmd, "pipe", errno);
  const Fd report_r(report[0]);
  Fd report_w(report[1]);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) execChild(parent, program.c_str(), cargv, cenv, options, report_w.get());
  if (pid < 0) return sysError(ErrorCode::Unavailable, cmd, "fork", errno);
  report_w.reset();
  int err = 0;
  ssize_t n = -1;
  while ((n = ::read(report_r.get(), &err, sizeof err)) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof err)) return pid;  // exec closed the pipe: started
  reap(pid);
  return startError(cmd, err);
}

}  // namespace

bool killRecordedGroup(const std::string& group_record) {
  std::ifstream in(group_record);
  pid_t pgid = 0;
  std::string started;
  const bool parsed = static_cast<bool>(in >> pgid >> started);
  ::unlink(group_record.c_str());
  if (!parsed || pgid <= 1) return false;
  // While any member of the group lives, its number cannot be handed to a new process; a live
  // process with that PID and another start time means the group is gone and the PID reused.
  const std::string now = startTime(pgid);
  if (!now.empty() && now != started) return false;
  return ::kill(-pgid, SIGKILL) == 0;
}

Result<pid_t> spawnProcess(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty() || argv[0].empty()) return invalidArgument("spawnProcess: empty command");
  const std::string cmd = commandLine(argv);
  std::vector<std::string> args = argv;
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) envs.emplace_back(*e);
  envs.insert(envs.end(), options.env.begin(), options.env.end());
  const auto cargv = pointersTo(args);
  const auto cenv = pointersTo(envs);
  return options.die_with_caller ? forkExec(cmd, cargv, cenv, options)
                                 : posixSpawn(cmd, cargv, cenv, options);
}

std::string commandLine(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
             std::strchr("_./=:,+@%-", c) != nullptr;
    });
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

Result<CommandOutput> runCommand(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout) {
  return runCommand(argv, timeout, "");
}

Result<CommandOutput> runCommand(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout,
                                 const std::string& group_record) {
  if (argv.empty() || argv[0].empty()) return invalidArgument("runCommand: empty command");
  const std::string cmd = commandLine(argv);
  auto pipes = makePipes(cmd);
  if (!pipes) return pipes.error();
  SpawnOptions spawn;
  spawn.stdout_fd = pipes->out_w.get();
  spawn.stderr_fd = pipes->err_w.get();
  auto pid = spawnProcess(argv, spawn);
  if (!pid) return pid.error();
  pipes->out_w.reset();
  pipes->err_w.reset();
  const GroupRecord record(group_record, *pid);

  CommandOutput output;
  Collector collector(*pipes, output);
  const auto deadline = Clock::now() + timeout;
  std::optional<Clock::time_point> exited_at;
  while (!exited_at || collector.open()) {
    if (!exited_at && hasExited(*pid)) exited_at = Clock::now();
    const auto now = Clock::now();
    const bool stragglers = exited_at && now - *exited_at > kGrace;
    if (now >= deadline || stragglers) {
      ::kill(-*pid, SIGKILL);  // the child is not reaped yet, so its group ID is still ours
      if (!stragglers) {
        reap(*pid);
        return Error{ErrorCode::Unavailable,
                     cmd + ": timed out after " + std::to_string(timeout.count()) +
                         " ms (process group killed); output: " + tail(output)};
      }
      break;
    }
    if (collector.open()) {
      collector.pump(until(deadline));
    } else {
      ::poll(nullptr, 0, 10);
    }
  }
  output.exit_status = reap(*pid);
  return output;
}

}  // namespace ingot::frr
