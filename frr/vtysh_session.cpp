// SPDX-License-Identifier: Apache-2.0
#include "frr/vtysh_session.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frr/apply_health.h"
#include "frr/process.h"

namespace ingot::frr {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kMarker = "ingot-sync-";
constexpr std::string_view kUnknown = "% Unknown command: ";
constexpr size_t kShownTailChars = 400;
constexpr size_t kShownErrors = 5;

std::string tailOf(const std::string& s) {
  return s.size() > kShownTailChars ? "…" + s.substr(s.size() - kShownTailChars) : s;
}

// echoedCommand returns the command of a "host(mode)# command" line, or "" for other lines.
std::string echoedCommand(std::string_view line) {
  const size_t p = line.find("# ");
  if (p == std::string_view::npos || line.substr(0, p).find(' ') != std::string_view::npos) {
    return "";
  }
  return std::string(line.substr(p + 2));
}

Result<void> writeFile(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return Error{ErrorCode::Unavailable, path + ": open: " + std::strerror(errno)};
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      ::close(fd);
      return Error{ErrorCode::Unavailable, path + ": write: " + std::strerror(errno)};
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return {};
}

Error rejected(const std::vector<std::string>& errors) {
  std::string msg = "FRR rejected " + std::to_string(errors.size()) + " command(s): ";
  for (size_t i = 0; i < errors.size() && i < kShownErrors; ++i) {
    msg += (i == 0 ? "" : "; ") + errors[i];
  }
  return Error{ErrorCode::InvalidArgument, retractPasswords(msg)};
}

constexpr std::string_view kLostConnection = "Warning: closing connection to ";

/// isDaemonName: lower-case letters and digits only ("bgpd", "ospf6d").
bool isDaemonName(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  });
}

/// forEachLine calls f with each line of text (without its newline or a trailing CR).
template <typename F>
void forEachLine(const std::string& text, F f) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    f(line);
    start = end + 1;
  }
}

}  // namespace

std::optional<Error> daemonTrouble(const std::string& output) {
  std::vector<std::string> down;
  std::vector<std::string> restarted;
  forEachLine(output, [&](std::string_view line) {
    const size_t at = line.find(kNotRunningMarker);
    if (at != std::string_view::npos && at + kNotRunningMarker.size() == line.size() &&
        isDaemonName(line.substr(0, at))) {
      const std::string d(line.substr(0, at));
      if (std::find(down.begin(), down.end(), d) == down.end()) {
        down.push_back(d);
      }
    } else if (line.rfind(kLostConnection, 0) == 0) {
      const std::string_view rest = line.substr(kLostConnection.size());
      restarted.emplace_back(rest.substr(0, rest.find(' ')));
    }
  });
  auto names = [](const std::vector<std::string>& v, std::string_view each) {
    std::string out;
    for (const auto& d : v) {
      out += (out.empty() ? "" : "; ") + d + std::string(each);
    }
    return out;
  };
  if (!down.empty()) {
    return Error{ErrorCode::Unavailable,
                 "FRR: " + names(down, kNotRunningMarker) + " (vtysh sent its lines nowhere)"};
  }
  if (!restarted.empty()) {
    return Error{ErrorCode::Transient,
                 "FRR: " + names(restarted, " restarted") +
                     " (vtysh lost its connection and reconnected; the daemon lost the rest of "
                     "its configuration)"};
  }
  return std::nullopt;
}

std::vector<std::string> rejectedLines(const std::string& output) {
  std::vector<std::string> out;
  std::string last;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) {
      end = output.size();
    }
    const std::string_view line(output.data() + start, end - start);
    start = end + 1;
    if (auto cmd = echoedCommand(line); !cmd.empty()) {
      last = cmd;
      continue;
    }
    const bool marker =
        line.rfind(kUnknown, 0) == 0 && line.substr(kUnknown.size()).rfind(kMarker, 0) == 0;
    if (line.rfind('%', 0) == 0 && !marker && line.find("vtysh.conf") == std::string_view::npos) {
      out.push_back((last.empty() ? "" : last + ": ") + std::string(line));
    }
  }
  return out;
}

VtyshSession::VtyshSession(VtyshSessionOptions options) : options_(std::move(options)) {}

VtyshSession::~VtyshSession() {
  reset();
}

void VtyshSession::reset() {
  for (int* fd : {&in_, &out_}) {
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
  }
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  pending_.clear();
}

Result<void> VtyshSession::start() {
  if (::access(options_.vtysh.c_str(), X_OK) != 0) {
    return Error{ErrorCode::NotFound, "vtysh " + options_.vtysh + ": " + std::strerror(errno) +
                                          " (is FRR installed on this node?)"};
  }
  std::vector<std::string> args = {options_.vtysh};
  if (!options_.pathspace.empty()) {
    args.insert(args.end(), {"-N", options_.pathspace});
  }
  int in[2];
  int out[2];
  // Sockets rather than pipes: send() with MSG_NOSIGNAL reports a dead vtysh as EPIPE instead of
  // raising SIGPIPE in the agent.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
    return Error{ErrorCode::Unavailable, "vtysh: socketpair: " + std::string(std::strerror(errno))};
  }
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return Error{ErrorCode::Unavailable, "vtysh: socketpair: " + std::string(std::strerror(errno))};
  }
  SpawnOptions spawn;
  spawn.stdin_fd = in[1];
  spawn.stdout_fd = out[1];
  spawn.stderr_fd = out[1];
  spawn.die_with_caller = true;
  auto pid = spawnProcess(args, spawn);
  ::close(in[1]);
  ::close(out[1]);
  if (!pid) {
    ::close(in[0]);
    ::close(out[0]);
    return pid.error();
  }
  pid_ = *pid;
  in_ = in[0];
  out_ = out[0];
  ::fcntl(in_, F_SETFL, O_NONBLOCK);
  ::fcntl(out_, F_SETFL, O_NONBLOCK);
  // The banner and vtysh.conf complaints come first; the first marker skips them.
  if (auto r = exchange({}); !r) {
    return r.error();
  }
  return {};
}

Result<std::string> VtyshSession::exchange(const std::vector<std::string>& lines) {
  const std::string marker = std::string(kMarker) + std::to_string(++marker_);
  std::string payload;
  for (const auto& l : lines) {
    payload += l;
    payload += '\n';
  }
  payload += marker + "\n";
  const std::string want = std::string(kUnknown) + marker;
  const auto deadline = Clock::now() + options_.timeout;
  // What vtysh printed after the previous marker (the next prompt) starts this batch's output.
  std::string output = std::move(pending_);
  pending_.clear();
  size_t written = 0;
  size_t found = std::string::npos;
  while (found == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd fds[2] = {{out_, POLLIN, 0}, {written < payload.size() ? in_ : -1, POLLOUT, 0}};
    const int n = left <= 0 ? 0 : ::poll(fds, 2, static_cast<int>(left));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      reset();
      return Error{ErrorCode::Unavailable,
                   "vtysh did not answer within " + std::to_string(options_.timeout.count()) +
                       " ms (session ended); output: " + retractPasswords(tailOf(output))};
    }
    if (fds[1].revents != 0) {
      const ssize_t w = ::send(in_, payload.data() + written, payload.size() - written,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w < 0 && errno != EAGAIN && errno != EINTR) {
        reset();
        return Error{ErrorCode::Unavailable, "vtysh exited; output: " + tailOf(output)};
      }
      written += w > 0 ? static_cast<size_t>(w) : 0;
    }
    if (fds[0].revents != 0) {
      char buf[65536];
      const ssize_t r = ::read(out_, buf, sizeof buf);
      if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        reset();
        return Error{ErrorCode::Unavailable,
                     "vtysh exited; output: " + retractPasswords(tailOf(output))};
      }
      const size_t from = output.size() > want.size() ? output.size() - want.size() : 0;
      output.append(buf, r > 0 ? static_cast<size_t>(r) : 0);
      found = output.find(want, from);
    }
  }
  pending_ = output.substr(found + want.size());
  output.resize(found);
  return output;
}

Result<void> VtyshSession::configure(const std::vector<std::string>& commands) {
  if (commands.size() > options_.file_threshold) {
    return configureFile(commands);
  }
  if (pid_ < 0) {
    if (auto s = start(); !s) {
      return s.error();
    }
  }
  std::vector<std::string> lines;
  lines.reserve(commands.size() + 2);
  lines.emplace_back("configure terminal");
  lines.insert(lines.end(), commands.begin(), commands.end());
  lines.emplace_back("end");
  auto out = exchange(lines);
  if (!out) {
    return out.error();
  }
  if (auto trouble = daemonTrouble(*out)) {
    return *trouble;
  }
  if (auto errors = rejectedLines(*out); !errors.empty()) {
    return rejected(errors);
  }
  return {};
}

Result<void> VtyshSession::configureFile(const std::vector<std::string>& commands) {
  if (options_.workdir.empty()) {
    return invalidArgument("vtysh: workdir is not set");
  }
  const std::string path = options_.workdir + "/delta.conf";
  std::string text;
  for (const auto& c : commands) {
    text += c;
    text += '\n';
  }
  if (auto w = writeFile(path, text); !w) {
    return w.error();
  }
  std::vector<std::string> argv = {options_.vtysh};
  if (!options_.pathspace.empty()) {
    argv.insert(argv.end(), {"-N", options_.pathspace});
  }
  argv.insert(argv.end(), {"-f", path});
  auto r = runCommand(argv, options_.timeout + std::chrono::milliseconds(commands.size()));
  if (!r) {
    return r.error();
  }
  if (auto trouble = daemonTrouble(r->out + "\n" + r->err)) {
    return *trouble;
  }
  if (r->exit_status != 0) {
    std::vector<std::string> errors;
    for (auto& e : rejectedLines(r->out + "\n" + r->err)) {
      errors.push_back(std::move(e));
    }
    if (errors.empty()) {
      errors.push_back("`" + commandLine(argv) + "` exited " + std::to_string(r->exit_status) +
                       ": " + tailOf(r->out + r->err));
    }
    return rejected(errors);
  }
  return {};
}

Result<std::string> VtyshSession::show(const std::string& command) {
  if (pid_ < 0) {
    if (auto s = start(); !s) {
      return s.error();
    }
  }
  auto out = exchange({command});
  if (!out) {
    return out.error();
  }
  // Output: "<prompt># command\n<reply><prompt># ingot-sync-N\n".
  const size_t echo = out->find("# " + command + "\n");
  const size_t body = echo == std::string::npos ? 0 : echo + command.size() + 3;
  const size_t last_prompt = out->rfind("# " + std::string(kMarker));
  const size_t line_start =
      last_prompt == std::string::npos ? out->size() : out->rfind('\n', last_prompt);
  const size_t end = line_start == std::string::npos ? body : std::max(body, line_start + 1);
  return out->substr(body, end - body);
}

}  // namespace ingot::frr
