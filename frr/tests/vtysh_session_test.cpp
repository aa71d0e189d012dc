// SPDX-License-Identifier: Apache-2.0
// VtyshSession against testdata/fake-vtysh.py (framing, errors, timeouts, restarts, and that the
// vtysh dies with its owner), and rejectedLines on output captured from FRR 8.4.4's vtysh.
#include "frr/vtysh_session.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

namespace ingot::frr {
namespace {

using namespace std::chrono_literals;

std::string fakeVtysh() {
  const char* root = std::getenv("INGOT_SOURCE_DIR");
  const std::string base = root != nullptr ? std::string(root) + "/frr" : ".";
  return base + "/tests/testdata/fake-vtysh.py";
}

struct TempDir {
  TempDir() {
    std::string t = "/tmp/ingot-vtysh-XXXXXX";
    path = mkdtemp(t.data()) != nullptr ? t : "";
  }
  ~TempDir() {
    if (!path.empty()) {
      std::system(("rm -rf '" + path + "'").c_str());
    }
  }
  std::string path;
};

VtyshSessionOptions options(const std::string& dir) {
  VtyshSessionOptions o;
  o.vtysh = fakeVtysh();
  o.workdir = dir;
  o.timeout = 20s;
  return o;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// gone reports whether pid no longer runs (absent, or a zombie nobody reaped yet).
bool gone(pid_t pid) {
  const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) {
    return true;
  }
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

bool waitGone(pid_t pid) {
  for (int i = 0; i < 2000; ++i) {  // up to 20 s
    if (gone(pid)) {
      return true;
    }
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(vtysh_session)

BOOST_AUTO_TEST_CASE(replies_are_framed_and_rejected_lines_are_named) {
  TempDir dir;
  const std::string running = dir.path + "/running";
  std::ofstream(running) << "frr version 8.4.4\n!\nrouter bgp 64512\nexit\n!\nend\n";
  setenv("FAKE_VTYSH_RUNNING", running.c_str(), 1);
  VtyshSession s(options(dir.path));
  BOOST_TEST(s.configure({"router bgp 64512", "exit"}).has_value());
  auto bad = s.configure({"router bgp 64512", "bogus thing", "exit"});
  BOOST_TEST_REQUIRE(!bad.has_value());
  BOOST_TEST((bad.error().code == ErrorCode::InvalidArgument));
  BOOST_TEST(
      bad.error().message.find("bogus thing: % Unknown command: bogus thing") != std::string::npos,
      bad.error().message);
  // Twice: vtysh prints the next prompt right after a reply, so each batch's output starts
  // where the previous one's marker ended.
  for (int i = 0; i < 2; ++i) {
    auto shown = s.show("show running-config");
    BOOST_TEST_REQUIRE(shown.has_value());
    BOOST_TEST(*shown == readFile(running));
  }
  unsetenv("FAKE_VTYSH_RUNNING");
}

BOOST_AUTO_TEST_CASE(a_hung_vtysh_is_killed_and_the_next_call_starts_a_new_one) {
  TempDir dir;
  auto o = options(dir.path);
  o.timeout = 1500ms;
  VtyshSession s(o);
  BOOST_TEST_REQUIRE(s.configure({}).has_value());
  const pid_t first = s.pid();
  auto hung = s.show("sleep");
  BOOST_TEST_REQUIRE(!hung.has_value());
  BOOST_TEST(hung.error().message.find("did not answer") != std::string::npos);
  BOOST_TEST(s.pid() == -1);
  BOOST_TEST(gone(first));
  BOOST_TEST(s.configure({"router bgp 1", "exit"}).has_value());
  BOOST_TEST(s.pid() != first);
}

BOOST_AUTO_TEST_CASE(the_vtysh_does_not_outlive_an_owner_killed_with_sigkill) {
  TempDir dir;
  const std::string pidfile = dir.path + "/vtysh.pid";
  int ready[2];
  BOOST_TEST_REQUIRE(pipe(ready) == 0);
  const pid_t owner = fork();
  if (owner == 0) {
    setenv("FAKE_VTYSH_PIDFILE", pidfile.c_str(), 1);
    VtyshSession s(options(dir.path));
    const bool ok = s.configure({"router bgp 1", "exit"}).has_value();
    (void)!write(ready[1], ok ? "y" : "n", 1);
    pause();
    _exit(0);
  }
  close(ready[1]);
  char c = 0;
  BOOST_TEST_REQUIRE(read(ready[0], &c, 1) == 1);
  close(ready[0]);
  BOOST_TEST_REQUIRE(c == 'y');
  const pid_t vtysh = static_cast<pid_t>(std::atoi(readFile(pidfile).c_str()));
  BOOST_TEST_REQUIRE(vtysh > 0);
  BOOST_TEST(!gone(vtysh));
  kill(owner, SIGKILL);
  waitpid(owner, nullptr, 0);
  BOOST_TEST(waitGone(vtysh), "vtysh " << vtysh << " still runs after its owner was killed");
}

BOOST_AUTO_TEST_CASE(rejected_lines_of_real_vtysh_output) {
  // FRR 8.4.4's vtysh, stdin a pipe (banner, echoed prompts, replies on stdout).
  const std::string out =
      "\nHello, this is FRRouting (version 8.4.4).\n\nvm# configure terminal\n"
      "vm(config)# router bgp 64512\nvm(config-router)# address-family ipv4 unicast\n"
      "vm(config-router-af)# no network 10.9.9.9/32\n% Can't find static route specified\n"
      "vm(config-router-af)# network 10.1.1.300/32\n% Unknown command: network 10.1.1.300/32\n"
      "vm(config-router-af)# network 10.2.2.2/32 route-map nosuch\n"
      "vm(config-router-af)# end\nvm# ingot-sync-3\n% Unknown command: ingot-sync-3\n";
  const std::vector<std::string> want = {
      "no network 10.9.9.9/32: % Can't find static route specified",
      "network 10.1.1.300/32: % Unknown command: network 10.1.1.300/32"};
  BOOST_TEST(rejectedLines(out) == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(daemon_trouble_in_real_vtysh_output) {
  // FRR 8.4.4's vtysh, a persistent session (stdin a pipe): bgpd stopped, then bgpd restarted
  // under a session that was connected to it, then vtysh -f with bgpd stopped.
  struct Case {
    std::string desc;
    std::string output;
    std::optional<ErrorCode> code;
    std::string mention;
  };
  const std::vector<Case> cases = {
      {"bgpd down",
       "vm# configure terminal\nvm(config)# router bgp 64512\nbgpd is not running\n"
       "vm(config-router)# network 10.9.9.7/32\nbgpd is not running\nvm# end\n",
       ErrorCode::Unavailable, "FRR: bgpd is not running"},
      {"bgpd restarted",
       "vm# configure terminal\nWarning: closing connection to bgpd because of "
       "an I/O error!\nWarning: connecting to bgpd...success!\nvm(config)# router bgp 64512\n",
       ErrorCode::Transient, "FRR: bgpd restarted"},
      {"vtysh -f, two down", "bgpd is not running\nbgpd is not running\r\nbfdd is not running\n",
       ErrorCode::Unavailable, "bgpd is not running; bfdd is not running"},
      {"healthy", "vm# configure terminal\nvm(config)# router bgp 64512\nvm# end\n", std::nullopt,
       ""},
      {"a route-map named like it", "vm(config)# route-map x is not running\n", std::nullopt, ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const auto got = daemonTrouble(c.output);
      BOOST_TEST(got.has_value() == c.code.has_value());
      if (got && c.code) {
        BOOST_TEST((got->code == *c.code));
        BOOST_TEST(got->message.find(c.mention) != std::string::npos, got->message);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_missing_vtysh_is_not_found_naming_the_path) {
  TempDir dir;
  VtyshSessionOptions o = options(dir.path);
  o.vtysh = dir.path + "/no-vtysh";
  VtyshSession s(o);
  auto r = s.show("show daemons");
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((r.error().code == ErrorCode::NotFound));
  BOOST_TEST(r.error().message.find(o.vtysh) != std::string::npos, r.error().message);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frr
