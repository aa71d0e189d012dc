// SPDX-License-Identifier: Apache-2.0
// A two-namespace veth lab for the responder's integration tests.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <sched.h>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace ingot::agent::l2::test {

/// lower returns s in ASCII lower case (MAC addresses from arping and sysfs differ in case).
inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

/// count returns how often needle occurs in text (overlapping occurrences included).
inline size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

/// sh runs a command; returns its stdout. Throws if `check` and it exits non-zero.
inline std::string sh(const std::string& cmd, bool check = true, int* status = nullptr) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) {
    throw std::runtime_error("popen failed: " + cmd);
  }
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p) != nullptr) {
    out += buf.data();
  }
  const int rc = pclose(p);
  if (status != nullptr) {
    *status = rc;
  }
  if (check && rc != 0) {
    throw std::runtime_error("command failed: " + cmd + "\n" + out);
  }
  return out;
}

/// VethLab is namespace `node` (veth `n0`, no addresses but its link-local) and `peer` (veth
/// `p0`, 192.0.2.2/24 and fd00::2/64), both unique to this process, deleted on destruction.
struct VethLab {
  std::string node = "l2n-" + std::to_string(getpid());
  std::string peer = "l2p-" + std::to_string(getpid());

  VethLab() {
    sh("ip netns add " + node);
    sh("ip netns add " + peer);
    sh("ip -n " + node + " link add n0 type veth peer name p0 netns " + peer);
    sh("ip netns exec " + node + " sysctl -qw net.ipv6.conf.n0.accept_dad=0");
    sh("ip netns exec " + peer + " sysctl -qw net.ipv6.conf.p0.accept_dad=0");
    sh("ip netns exec " + peer + " sysctl -qw net.ipv4.conf.p0.arp_accept=1");
    sh("ip -n " + peer + " addr add 192.0.2.2/24 dev p0");
    sh("ip -n " + peer + " addr add fd00::2/64 dev p0 nodad");
    sh("ip -n " + node + " link set n0 up");
    sh("ip -n " + peer + " link set p0 up");
  }
  /// ~VethLab deletes both namespaces; a failure to run the command is printed, not thrown.
  ~VethLab() {
    for (const std::string* ns : {&node, &peer}) {
      try {
        sh("ip netns del " + *ns, false);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "VethLab: cannot delete namespace %s: %s\n", ns->c_str(), e.what());
      }
    }
  }
  VethLab(const VethLab&) = delete;
  VethLab& operator=(const VethLab&) = delete;

  /// in runs a command in a namespace.
  std::string in(const std::string& ns,
                 const std::string& cmd,
                 bool check = true,
                 int* status = nullptr) const {
    return sh("ip netns exec " + ns + " " + cmd, check, status);
  }
};

/// InNetns moves the calling thread into a named namespace for its lifetime (sockets and
/// threads created meanwhile belong to it).
class InNetns {
 public:
  explicit InNetns(const std::string& name) : saved_(open("/proc/thread-self/ns/net", O_RDONLY)) {
    const int target = open(("/var/run/netns/" + name).c_str(), O_RDONLY);
    if (saved_ < 0 || target < 0 || setns(target, CLONE_NEWNET) != 0) {
      throw std::runtime_error("cannot enter network namespace " + name);
    }
    close(target);
  }
  ~InNetns() {
    (void)setns(saved_, CLONE_NEWNET);
    close(saved_);
  }
  InNetns(const InNetns&) = delete;
  InNetns& operator=(const InNetns&) = delete;

 private:
  int saved_;
};

}  // namespace ingot::agent::l2::test
