// SPDX-License-Identifier: Apache-2.0
// FrrLab: a ToR and a node, each a network namespace this process creates with zebra, bfdd and
// bgpd of FRR 8.4 running in it (pathspace = namespace name, sockets in /var/run/frr/<ns>),
// joined by one veth pair (ToR 192.168.77.1/24, node 192.168.77.2/24 — addresses that exist only
// inside the two namespaces). Daemons run in the foreground as children of this process with
// PR_SET_PDEATHSIG, and stop() (also run by the destructor) stops them by PID and deletes the
// namespaces and directories. Header-only: used by the live tests of frr/.
#pragma once

#include <algorithm>
#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <pwd.h>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include "frr/process.h"
#include "frrgen/model.h"

namespace ingot::frr::testing {

inline constexpr const char* kTorAddress = "192.168.77.1";
inline constexpr const char* kNodeAddress = "192.168.77.2";
inline constexpr uint32_t kTorAsn = 64513;
inline constexpr uint32_t kNodeAsn = 64512;

/// kTorConfig is the ToR's BGP: eBGP to the node with BFD, hold 9 s, connect retry 2 s.
inline constexpr const char* kTorConfig =
    "router bgp 64513\n bgp router-id 192.168.77.1\n no bgp ebgp-requires-policy\n"
    " neighbor 192.168.77.2 remote-as 64512\n neighbor 192.168.77.2 timers 3 9\n"
    " neighbor 192.168.77.2 timers connect 2\n neighbor 192.168.77.2 bfd\n"
    " address-family ipv4 unicast\n  neighbor 192.168.77.2 activate\n exit-address-family\nexit\n";

/// nodeRouter is the node's `router bgp` with its session to the ToR (BFD profile "lab"), and
/// labBfd that profile (FRR's defaults, 300 ms × 3).
inline frrgen::Router nodeRouter() {
  frrgen::Router r;
  r.asn = kNodeAsn;
  r.router_id = kNodeAddress;
  frrgen::Neighbor tor;
  tor.address = kTorAddress;
  tor.remote_as = std::to_string(kTorAsn);
  tor.hold_time = 9;
  tor.keepalive_time = 3;
  tor.connect_time = 2;
  tor.bfd_profile = "lab";
  r.neighbors = {tor};
  return r;
}
inline frrgen::BfdProfile labBfd() {
  return {"lab", 300, 300, 3, std::nullopt, false, false, std::nullopt};
}

/// whyFrrLabCannotRun returns "" or why the lab cannot start here (not root, FRR missing).
inline std::string whyFrrLabCannotRun() {
  if (geteuid() != 0) {
    return "not root (FRR daemons and network namespaces need root)";
  }
  for (const char* f : {"/usr/bin/vtysh", "/usr/lib/frr/zebra", "/usr/lib/frr/bgpd",
                        "/usr/lib/frr/bfdd", "/usr/lib/frr/frr-reload.py"}) {
    if (access(f, R_OK) != 0) {
      return std::string(f) + " is not installed (apt-get install frr frr-pythontools)";
    }
  }
  return getpwnam("frr") == nullptr ? "user frr does not exist" : "";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// FrrLab owns both namespaces and every daemon.
class FrrLab {
 public:
  FrrLab() : tor_("igt" + std::to_string(getpid())), node_("ign" + std::to_string(getpid())) {
    std::string t = "/tmp/ingot-frrlab-XXXXXX";
    dir_ = mkdtemp(t.data()) != nullptr ? t : "";
  }
  ~FrrLab() { stop(); }
  FrrLab(const FrrLab&) = delete;
  FrrLab& operator=(const FrrLab&) = delete;

  const std::string& tor() const { return tor_; }
  const std::string& node() const { return node_; }
  const std::string& dir() const { return dir_; }

  /// start builds the topology and starts the daemons; returns "" or what failed.
  std::string start() {
    if (dir_.empty()) {
      return "mkdtemp failed";
    }
    const std::string vt = "vt" + std::to_string(getpid());
    const std::string vn = "vn" + std::to_string(getpid());
    for (const auto& ns : {tor_, node_}) {
      if (auto e = run({"ip", "netns", "add", ns}); !e.empty()) {
        return e;
      }
      namespaces_.push_back(ns);
      if (auto e = run({"ip", "-n", ns, "link", "set", "lo", "up"}); !e.empty()) {
        return e;
      }
    }
    const std::vector<std::vector<std::string>> links = {
        {"ip", "link", "add", vt, "netns", tor_, "type", "veth", "peer", "name", vn, "netns",
         node_},
        {"ip", "-n", tor_, "addr", "add", std::string(kTorAddress) + "/24", "dev", vt},
        {"ip", "-n", node_, "addr", "add", std::string(kNodeAddress) + "/24", "dev", vn},
        {"ip", "-n", tor_, "link", "set", vt, "up"},
        {"ip", "-n", node_, "link", "set", vn, "up"}};
    for (const auto& l : links) {
      if (auto e = run(l); !e.empty()) {
        return e;
      }
    }
    for (const auto& ns : {tor_, node_}) {
      if (auto e = startDaemons(ns); !e.empty()) {
        return e;
      }
    }
    return "";
  }

  void stop() {
    for (auto it = pids_.rbegin(); it != pids_.rend(); ++it) {
      stopPid(*it);
    }
    pids_.clear();
    daemons_.clear();
    for (const auto& ns : namespaces_) {
      (void)runCommand({"ip", "netns", "del", ns}, std::chrono::seconds(30));
      (void)runCommand({"rm", "-rf", "/var/run/frr/" + ns}, std::chrono::seconds(30));
    }
    namespaces_.clear();
    if (!dir_.empty()) {
      (void)runCommand({"rm", "-rf", dir_}, std::chrono::seconds(30));
    }
    dir_.clear();
  }

  /// daemonPid returns the PID of daemon ("zebra", "bfdd", "bgpd") in ns, or -1.
  pid_t daemonPid(const std::string& ns, const std::string& daemon) const {
    for (const auto& d : daemons_) {
      if (d.ns == ns && d.name == daemon) {
        return d.pid;
      }
    }
    return -1;
  }

  /// stopDaemon stops daemon in ns by PID (SIGTERM, then SIGKILL) and removes its vty socket.
  void stopDaemon(const std::string& ns, const std::string& daemon) {
    const pid_t pid = daemonPid(ns, daemon);
    if (pid <= 0) {
      return;
    }
    stopPid(pid);
    pids_.erase(std::remove(pids_.begin(), pids_.end(), pid), pids_.end());
    daemons_.erase(std::remove_if(daemons_.begin(), daemons_.end(),
                                  [&](const Daemon& d) { return d.pid == pid; }),
                   daemons_.end());
    (void)unlink(("/var/run/frr/" + ns + "/" + daemon + ".vty").c_str());
  }

  /// startDaemon starts daemon in ns again (empty configuration, as after a crash that watchfrr
  /// restarts); returns "" or what failed.
  std::string startDaemon(const std::string& ns, const std::string& daemon) {
    return startOne(ns, daemon);
  }

  /// vtysh runs commands (each a -c) in ns and returns stdout, or "" on failure.
  std::string vtysh(const std::string& ns, const std::vector<std::string>& commands) const {
    std::vector<std::string> argv = {"/usr/bin/vtysh", "-N", ns};
    for (const auto& c : commands) {
      argv.insert(argv.end(), {"-c", c});
    }
    auto r = runCommand(argv, std::chrono::seconds(60));
    return r ? r->out : "";
  }

  /// configure applies text to ns with `vtysh -f` (bounded by timeout); returns "" or the error.
  std::string configure(const std::string& ns,
                        const std::string& text,
                        std::chrono::seconds timeout = std::chrono::seconds(60)) const {
    const std::string path = dir_ + "/" + ns + ".conf";
    std::ofstream(path) << text;
    auto r = runCommand({"/usr/bin/vtysh", "-N", ns, "-f", path}, timeout);
    if (!r) {
      return r.error().message;
    }
    return r->exit_status == 0
               ? ""
               : "vtysh -f exited " + std::to_string(r->exit_status) + ": " + r->out + r->err;
  }

 private:
  static std::string run(const std::vector<std::string>& argv) {
    auto r = runCommand(argv, std::chrono::seconds(30));
    if (!r) {
      return r.error().message;
    }
    return r->exit_status == 0 ? "" : commandLine(argv) + ": " + r->err;
  }

  std::string startDaemons(const std::string& ns) {
    const std::string rundir = "/var/run/frr/" + ns;
    if (mkdir(rundir.c_str(), 0755) != 0) {
      return "mkdir " + rundir + " failed (pathspace in use?)";
    }
    const passwd* frr = getpwnam("frr");
    if (chown(rundir.c_str(), frr->pw_uid, frr->pw_gid) != 0) {
      return "chown " + rundir;
    }
    for (const std::string d : {"zebra", "bfdd", "bgpd"}) {
      if (auto e = startOne(ns, d); !e.empty()) {
        return e;
      }
    }
    return "";
  }

  std::string startOne(const std::string& ns, const std::string& d) {
    if (auto e = spawn(ns, d); !e.empty()) {
      return e;
    }
    const std::string sock = "/var/run/frr/" + ns + "/" + (d == "zebra" ? "zserv.api" : d + ".vty");
    if (!waitFor([&] { return access(sock.c_str(), F_OK) == 0; }, 200)) {
      return d + " in " + ns + " did not start: " + slurp(dir_ + "/" + ns + "." + d + ".log");
    }
    return "";
  }

  std::string spawn(const std::string& ns, const std::string& daemon) {
    std::vector<std::string> args = {"ip",  "netns", "exec", ns,  "/usr/lib/frr/" + daemon,
                                     "-N",  ns,      "-P",   "0", "-u",
                                     "frr", "-g",    "frr"};
    if (daemon == "zebra") {
      args.insert(args.end(), {"-s", "90000000"});
    }
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args) {
      argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    const std::string log = dir_ + "/" + ns + "." + daemon + ".log";
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
      return "cannot open " + log;
    }
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) {
        _exit(126);
      }
      setpgid(0, 0);
      dup2(fd, 1);
      dup2(fd, 2);
      execvp(argv[0], argv.data());
      _exit(127);
    }
    close(fd);
    if (pid < 0) {
      return "fork failed";
    }
    pids_.push_back(pid);
    daemons_.push_back({ns, daemon, pid});
    return "";
  }

  static void stopPid(pid_t pid) {
    kill(pid, SIGTERM);
    int status = 0;
    if (!waitFor([&] { return waitpid(pid, &status, WNOHANG) != 0; }, 100)) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
  }

 public:
  /// waitFor polls cond every 100 ms, up to tries times.
  template <typename Cond>
  static bool waitFor(Cond cond, int tries) {
    for (int i = 0; i < tries; ++i) {
      if (cond()) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return cond();
  }

 private:
  std::string tor_;
  std::string node_;
  std::string dir_;
  std::vector<std::string> namespaces_;
  std::vector<pid_t> pids_;
  struct Daemon {
    std::string ns;
    std::string name;
    pid_t pid;
  };
  std::vector<Daemon> daemons_;
};

}  // namespace ingot::frr::testing
