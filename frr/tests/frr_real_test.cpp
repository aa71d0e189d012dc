// SPDX-License-Identifier: Apache-2.0
// FrrDriver and FrrApplier against real FRR 8.4 (CTest label `frr`, root only): zebra, bgpd, bfdd
// and staticd run for a network namespace the test creates ("igbgp<pid>", pathspace of the same
// name, sockets in /var/run/frr/<ns>), started in the foreground as in e2e/lab/frr.py. The
// inputs are frrgen's render goldens. Every daemon is stopped by PID and the namespace and
// socket directory are removed at the end, also when a check fails (the global fixture's
// destructor). Skips, printing "skipped: <why>", when not root or FRR is not installed.
#define BOOST_TEST_MODULE ingot_frr_real
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <pwd.h>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "frr/frr_driver.h"
#include "frr/process.h"
#include "testing/process.h"

namespace utf = boost::unit_test;
using namespace ingot::frr;
using namespace std::chrono_literals;

namespace {

const std::string kLibDir = "/usr/lib/frr";
const std::string kVtysh = "/usr/bin/vtysh";
const std::vector<std::string> kDaemons = {"zebra", "bfdd", "bgpd", "staticd"};

std::string whyNotRunnable() {
  if (geteuid() != 0) return "not root (FRR daemons and network namespaces need root)";
  std::vector<std::string> files = {kVtysh, kLibDir + "/frr-reload.py", "/usr/bin/python3"};
  for (const auto& d : kDaemons) files.push_back(kLibDir + "/" + d);
  for (const auto& f : files) {
    if (access(f.c_str(), X_OK) != 0 && access(f.c_str(), R_OK) != 0) {
      return f + " is not installed (apt-get install frr frr-pythontools)";
    }
  }
  if (getpwnam("frr") == nullptr) return "user frr does not exist (apt-get install frr)";
  return "";
}

boost::test_tools::assertion_result runnable(utf::test_unit_id) {
  static const std::string kWhy = whyNotRunnable();
  boost::test_tools::assertion_result ok(kWhy.empty());
  if (!ok) {
    ok.message() << kWhy;
    std::fprintf(stderr, "skipped: %s\n", kWhy.c_str());  // CTest's SKIP_REGULAR_EXPRESSION
  }
  return ok;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string golden(const std::string& name) {
  const char* root = std::getenv("INGOT_SOURCE_DIR");
  const std::string dir = root != nullptr ? std::string(root) : "..";
  const std::string text = readFile(dir + "/frrgen/tests/testdata/render." + name + ".golden");
  BOOST_TEST_REQUIRE(!text.empty(), "missing frrgen golden render." << name);
  return text;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// sortedLines is a config's lines in sorted order: FRR prints objects in creation order, so a
/// restored configuration can list the same lines in another order.
std::vector<std::string> sortedLines(const std::string& t) {
  std::vector<std::string> out;
  std::istringstream in(t);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  std::sort(out.begin(), out.end());
  return out;
}

/// lineDiff lists the lines only in a ("-") and only in b ("+"), for failure messages.
std::string lineDiff(const std::string& a, const std::string& b) {
  auto lines = [](const std::string& t) {
    std::vector<std::string> out;
    std::istringstream in(t);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  };
  const auto la = lines(a);
  const auto lb = lines(b);
  std::string out;
  for (const auto& l : la) {
    if (std::find(lb.begin(), lb.end(), l) == lb.end()) out += "- " + l + "\n";
  }
  for (const auto& l : lb) {
    if (std::find(la.begin(), la.end(), l) == la.end()) out += "+ " + l + "\n";
  }
  return out.empty() ? "(same lines, different order)" : out;
}

template <typename T>
std::string errorOf(const ingot::Result<T>& r) {
  return r.has_value() ? std::string("unexpected success") : r.error().message;
}

/// Router is FRR for one namespace; the destructor stops everything it started, by PID.
class Router {
 public:
  Router() : ns_("igbgp" + std::to_string(getpid())), rundir_("/var/run/frr/" + ns_) {
    std::string tmpl = "/tmp/" + ns_ + "-XXXXXX";
    if (mkdtemp(tmpl.data()) != nullptr) dir_ = tmpl;
  }
  ~Router() { stop(); }
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  const std::string& ns() const { return ns_; }
  std::string workdir() const { return dir_ + "/driver"; }

  /// start creates the namespace and the socket directory and starts the daemons (zebra first);
  /// returns "" or what failed.
  std::string start() {
    if (dir_.empty()) return "mkdtemp failed";
    if (access(rundir_.c_str(), F_OK) == 0) return rundir_ + " exists: pathspace in use";
    if (auto e = ip({"ip", "netns", "add", ns_}); !e.empty()) return e;
    netns_ = true;
    if (auto e = ip({"ip", "-n", ns_, "link", "set", "lo", "up"}); !e.empty()) return e;
    if (mkdir(rundir_.c_str(), 0755) != 0) return "mkdir " + rundir_ + " failed";
    owns_rundir_ = true;
    const passwd* frr = getpwnam("frr");
    if (chown(rundir_.c_str(), frr->pw_uid, frr->pw_gid) != 0) return "chown " + rundir_;
    for (const auto& d : kDaemons) {
      if (auto e = spawn(d); !e.empty()) return e;
      if (auto e = waitSocket(d, d == "zebra" ? "zserv.api" : d + ".vty"); !e.empty()) return e;
    }
    return "";
  }

  void stop() {
    for (auto it = pids_.rbegin(); it != pids_.rend(); ++it) it->second->terminate(10s);
    pids_.clear();
    if (netns_) (void)runCommand({"ip", "netns", "del", ns_}, 30s);
    netns_ = false;
    if (owns_rundir_) (void)runCommand({"rm", "-rf", rundir_}, 30s);
    owns_rundir_ = false;
    if (!dir_.empty()) (void)runCommand({"rm", "-rf", dir_}, 30s);
    dir_.clear();
  }

 private:
  static std::string ip(const std::vector<std::string>& argv) {
    auto r = runCommand(argv, 30s);
    if (!r) return r.error().message;
    if (r->exit_status != 0) return commandLine(argv) + ": " + r->err;
    return "";
  }

  std::string spawn(const std::string& daemon) {
    // `ip netns exec` execs the daemon, so the child's PID is the daemon's own.
    std::vector<std::string> args = {"ip",  "netns", "exec", ns_, kLibDir + "/" + daemon,
                                     "-N",  ns_,     "-P",   "0", "-u",
                                     "frr", "-g",    "frr"};
    if (daemon == "zebra") args.insert(args.end(), {"-s", "90000000"});
    auto p = ingot::testing::Process::spawn(args, {}, dir_ + "/" + daemon + ".log");
    if (!p) return p.error().message;
    pids_.emplace_back(daemon, std::move(*p));
    return "";
  }

  std::string waitSocket(const std::string& daemon, const std::string& name) {
    const std::string path = rundir_ + "/" + name;
    for (int i = 0; i < 200; ++i) {  // bounded: up to ~20 s
      if (access(path.c_str(), F_OK) == 0) return "";
      if (!pids_.back().second->running()) {
        pids_.pop_back();
        return daemon + " exited: " + readFile(dir_ + "/" + daemon + ".log");
      }
      std::this_thread::sleep_for(100ms);
    }
    return "timed out waiting for " + path;
  }

  std::string ns_;
  std::string rundir_;
  std::string dir_;
  bool netns_ = false;
  bool owns_rundir_ = false;
  std::vector<std::pair<std::string, std::unique_ptr<ingot::testing::Process>>> pids_;
};

/// Lab is the global fixture: one Router for the whole module, started only when runnable.
struct Lab {
  static Router* router;
  static std::string start_error;
  Lab() {
    if (!whyNotRunnable().empty()) return;
    router = new Router();
    start_error = router->start();
  }
  ~Lab() {
    delete router;
    router = nullptr;
  }
};
Router* Lab::router = nullptr;
std::string Lab::start_error;

FrrDriverOptions driverOptions() {
  FrrDriverOptions o;
  o.pathspace = Lab::router->ns();
  o.workdir = Lab::router->workdir();
  o.command_timeout = 60s;
  return o;
}

Router& router() {
  BOOST_TEST_REQUIRE(Lab::router != nullptr);
  BOOST_TEST_REQUIRE(Lab::start_error.empty(), "FRR did not start: " << Lab::start_error);
  return *Lab::router;
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(Lab);

BOOST_AUTO_TEST_SUITE(frr, *utf::precondition(runnable))

BOOST_AUTO_TEST_CASE(a_rendered_config_is_applied_and_a_second_apply_is_a_no_op) {
  router();
  FrrDriver driver(driverOptions());
  const std::string text = golden("ebgp_ipv4");
  auto first = driver.apply(text);
  BOOST_TEST_REQUIRE(first.has_value(), errorOf(first));
  BOOST_TEST(first->passes >= 1);
  BOOST_TEST(first->lines_added > 20u);
  auto running = driver.runningConfig();
  BOOST_TEST_REQUIRE(running.has_value(), errorOf(running));
  for (const char* line :
       {"router bgp 64512", " neighbor 10.0.0.1 remote-as 64513", "  network 192.168.10.5/32",
        "ip prefix-list 10.0.0.1-allowed-ipv4 seq 1398997407 permit 192.168.10.5/32",
        "route-map 10.0.0.1-out permit 65534", "  neighbor 10.0.0.1 route-map 10.0.0.1-out out"}) {
    BOOST_TEST(has(*running, line), line << " missing from:\n" << *running);
  }
  auto second = driver.apply(text);
  BOOST_TEST_REQUIRE(second.has_value(), errorOf(second));
  BOOST_TEST(second->passes == 0);
  BOOST_TEST(second->lines_added == 0u);
  BOOST_TEST(second->lines_removed == 0u);
}

BOOST_AUTO_TEST_CASE(changes_converge_including_bfd_profiles_and_graceful_restart) {
  router();
  struct Case {
    std::string desc;
    std::string golden;
    std::vector<std::string> present;
    std::vector<std::string> absent;
  };
  const std::vector<Case> cases = {
      {"twenty prefixes added",
       "change_before",
       {"ip prefix-list 10.0.0.1-allowed-ipv4 seq 2337386689 permit 192.168.10.10/32",
        "  network 192.168.10.29/32"},
       {}},
      {"one prefix replaced, a community route-map entry added",
       "change_after",
       {"  network 192.168.10.5/32", "route-map 10.0.0.1-out permit 57389",
        " set community 65000:20 additive"},
       {"  network 192.168.10.10/32", "seq 2337386689"}},
      {"BFD profiles and graceful-restart added (the reload exits 1)",
       "graceful_restart_bfd",
       {" neighbor 10.0.0.1 graceful-restart", " neighbor 10.0.0.1 bfd profile fast",
        " profile fast", "  detect-multiplier 5", " profile unused"},
       {"  network 192.168.10.29/32"}},
      {"BFD removed again (takes two passes)",
       "ebgp_ipv4",
       {" neighbor 10.0.0.1 remote-as 64513"},
       {"\nbfd\n", " neighbor 10.0.0.1 bfd", " neighbor 10.0.0.1 graceful-restart",
        " profile fast"}},
  };
  FrrDriver driver(driverOptions());
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const std::string text = golden(c.golden);
      auto r = driver.apply(text);
      BOOST_TEST_REQUIRE(r.has_value(), errorOf(r));
      BOOST_TEST(r->passes >= 1);
      auto delta = driver.test(text);
      BOOST_TEST_REQUIRE(delta.has_value(), errorOf(delta));
      BOOST_TEST(delta->empty(), describeDelta(*delta));
      auto running = driver.runningConfig();
      BOOST_TEST_REQUIRE(running.has_value(), errorOf(running));
      for (const auto& p : c.present) BOOST_TEST(has(*running, p), p << " missing:\n" << *running);
      for (const auto& a : c.absent) BOOST_TEST(!has(*running, a), a << " present:\n" << *running);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_syntax_error_is_rejected_and_changes_nothing) {
  router();
  FrrDriver driver(driverOptions());
  auto before = driver.runningConfig();
  BOOST_TEST_REQUIRE(before.has_value(), errorOf(before));
  std::string text = golden("change_after");
  text +=
      "router bgp 64512\n neighbor 10.0.0.1 frobnicate 7\n neighbor 10.0.0.1 password "
      "t0p-s3cret\nexit\n";
  auto r = driver.apply(text);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((r.error().code == ingot::ErrorCode::InvalidArgument));
  BOOST_TEST(has(r.error().message, "Unknown command:  neighbor 10.0.0.1 frobnicate 7"),
             r.error().message);
  BOOST_TEST(!has(r.error().message, "t0p-s3cret"), r.error().message);
  auto after = driver.runningConfig();
  BOOST_TEST_REQUIRE(after.has_value(), errorOf(after));
  BOOST_TEST(*after == *before, lineDiff(*before, *after));
}

BOOST_AUTO_TEST_CASE(the_applier_restores_the_last_good_config_after_a_failing_apply) {
  router();
  FrrDriver driver(driverOptions());
  FrrApplier applier(driver);
  const std::string good = golden("change_before");
  auto first = applier.apply(good);
  BOOST_TEST_REQUIRE(first.has_value(), errorOf(first));
  auto before = driver.runningConfig();
  BOOST_TEST_REQUIRE(before.has_value(), errorOf(before));

  // vtysh's dry run accepts this; bgpd rejects the peer-group line on every reload, while the
  // prefix changes around it are applied: a partial change the applier has to undo.
  const std::string bad =
      golden("change_after") + "router bgp 64512\n neighbor 10.0.0.2 peer-group NOPE\nexit\n";
  auto r = applier.apply(bad);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(has(r.error().message, "did not converge"), r.error().message);
  BOOST_TEST(has(r.error().message, "neighbor 10.0.0.2 peer-group NOPE"), r.error().message);
  BOOST_TEST(!has(r.error().message, "re-applying"), r.error().message);
  BOOST_TEST(applier.lastGood() == good);

  auto after = driver.runningConfig();
  BOOST_TEST_REQUIRE(after.has_value(), errorOf(after));
  // Same lines (FRR may print the recreated route-map entries in another order).
  BOOST_TEST((sortedLines(*after) == sortedLines(*before)), lineDiff(*before, *after));
  auto delta = driver.test(good);
  BOOST_TEST_REQUIRE(delta.has_value(), errorOf(delta));
  BOOST_TEST(delta->empty(), describeDelta(*delta));
}

BOOST_AUTO_TEST_SUITE_END()
