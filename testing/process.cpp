// SPDX-License-Identifier: Apache-2.0
#include "testing/process.h"

#include <arpa/inet.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <netinet/in.h>
#include <signal.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frr/process.h"

namespace ingot::testing {
namespace {

int decodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

Result<std::unique_ptr<Process>> Process::spawn(const std::vector<std::string>& argv,
                                                const std::vector<std::string>& env,
                                                const std::string& log_path) {
  // setpriv execs the command with a parent-death signal, so a child never outlives a test that
  // aborts before its destructors run.
  std::vector<std::string> wrapped = {"/usr/bin/setpriv", "--pdeathsig", "KILL", "--"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  frr::SpawnOptions options;
  options.env = env;
  options.output_path = log_path;
  auto pid = frr::spawnProcess(wrapped, options);
  if (!pid) {
    return pid.error();
  }
  return std::unique_ptr<Process>(new Process(*pid));
}

Process::~Process() {
  if (running()) {
    kill(pid_, SIGKILL);
    waitExit(Millis(5000));
  }
}

bool Process::running() {
  if (exit_code_) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    exit_code_ = decodeStatus(status);
    return false;
  }
  return r == 0;
}

std::optional<int> Process::waitExit(Millis timeout) {
  const auto deadline = Clock::now() + timeout;
  while (running()) {
    if (Clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(Millis(10));
  }
  return exit_code_;
}

std::optional<int> Process::terminate(Millis timeout) {
  if (!running()) return exit_code_;
  kill(pid_, SIGTERM);
  if (auto code = waitExit(timeout)) return code;
  kill(pid_, SIGKILL);
  waitExit(Millis(5000));
  return std::nullopt;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<void> writeWholeFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::trunc);
  out << content;
  if (!out) return Error{ErrorCode::Unavailable, "cannot write " + path};
  return {};
}

Result<std::string> makeTempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    return Error{ErrorCode::Unavailable, "mkdtemp: " + std::string(std::strerror(errno))};
  }
  return tmpl;
}

Result<HttpReply> httpGet(int port, const std::string& path) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{ErrorCode::Unavailable, "socket failed"};
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // Generous: on a loaded 2-core machine a daemon's HTTP thread can be off the CPU for over a
  // second, and a reply that times out reads as "no value" (metric() -1), not as slow. The read
  // ends at the server's close (Connection: close), never at this timeout, when all is well.
  timeval tv{kHttpTimeoutSeconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return Error{ErrorCode::Unavailable, "connect 127.0.0.1:" + std::to_string(port) + " failed"};
  }
  const std::string req =
      "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  (void)!send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string resp;
  char buf[4096];
  ssize_t n = 0;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) resp.append(buf, static_cast<size_t>(n));
  close(fd);
  const size_t sp = resp.find(' ');
  const size_t body = resp.find("\r\n\r\n");
  if (sp == std::string::npos || body == std::string::npos) {
    return Error{ErrorCode::Unavailable, "malformed HTTP reply"};
  }
  return HttpReply{std::atoi(resp.c_str() + sp + 1), resp.substr(body + 4)};
}

std::optional<double> metricValue(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::strtod(line.c_str() + series.size() + 1, nullptr);
    }
  }
  return std::nullopt;
}

CommandResult runCommand(const std::string& command) {
  CommandResult r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

double cpuSeconds(pid_t pid) {
  const std::string stat = readWholeFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream in(stat.substr(paren + 2));
  std::string field;
  double ticks = 0;
  // After the command: state(3) ... utime is field 14 and stime field 15 of the whole line.
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i >= 14) ticks += std::atof(field.c_str());
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

long rssKiB(pid_t pid, bool peak) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  const std::string key = peak ? "VmHWM:" : "VmRSS:";
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + key.size());
  }
  return 0;
}

}  // namespace ingot::testing
