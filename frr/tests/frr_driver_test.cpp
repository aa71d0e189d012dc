// SPDX-License-Identifier: Apache-2.0
// FrrDriver and FrrApplier against a fake frr-reload.py (testdata/fake-frr-reload.py): the apply
// loop, the exit status that is not trusted, convergence, last-good restore, password retraction
// and the command line the driver builds.
#include "frr/frr_driver.h"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace {

using namespace ingot::frr;
using ingot::ErrorCode;
using namespace std::chrono_literals;

const std::string kConfigA =
    "router bgp 64512\n neighbor 10.0.0.1 remote-as 64513\n address-family ipv4 unicast\n"
    "  network 10.1.1.1/32\n exit-address-family\nexit\n";
const std::string kConfigB =
    "router bgp 64512\n neighbor 10.0.0.1 remote-as 64513\n address-family ipv4 unicast\n"
    "  network 10.1.1.1/32\n  network 10.9.9.9/32\n exit-address-family\nexit\n";
const std::string kSecret = "s3cr3t-pw";
const std::string kConfigWithPassword =
    "router bgp 64512\n neighbor 10.0.0.1 remote-as 64513\n neighbor 10.0.0.1 password " + kSecret +
    "\nexit\n";

std::string fakeScript() {
  const char* root = std::getenv("INGOT_SOURCE_DIR");
  const std::string base = root != nullptr ? std::string(root) + "/frr" : ".";
  return base + "/tests/testdata/fake-frr-reload.py";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

template <typename T>
std::string failureOf(const ingot::Result<T>& r) {
  return r.has_value() ? std::string("unexpected success") : r.error().message;
}

/// Fixture: a fresh temp dir; the driver's workdir is <dir>/work (created by the driver).
struct Fake {
  std::string root;
  FrrDriverOptions options;
  std::vector<std::string> log_lines;
  std::mutex mu;
  ingot::log::Logger logger{ingot::log::Level::Debug, [this](std::string_view line) {
                              std::lock_guard<std::mutex> lock(mu);
                              log_lines.emplace_back(line);
                            }};

  Fake() {
    std::string tmpl = "/tmp/ingot-bgp-driver-XXXXXX";
    BOOST_TEST_REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    root = tmpl;
    options.python = "/usr/bin/python3";
    options.reload_script = fakeScript();
    options.vtysh = "/bin/echo";
    options.pathspace = "igtest";
    options.workdir = root + "/work";
    options.command_timeout = 60s;
    options.logger = &logger;
  }
  ~Fake() { std::system(("rm -rf '" + root + "'").c_str()); }

  std::string path(const std::string& name) const { return options.workdir + "/" + name; }
  /// control writes a fake-* control file (creating the workdir if needed).
  void control(const std::string& name, const std::string& content) {
    ::mkdir(options.workdir.c_str(), 0700);
    std::ofstream(path("fake-" + name)) << content;
  }
  void clear(const std::string& name) { ::unlink(path("fake-" + name).c_str()); }
  std::string running() const { return readFile(path("fake-running")); }
  std::string calls() const { return readFile(path("fake-calls")); }
  std::string logs() {
    std::lock_guard<std::mutex> lock(mu);
    std::string all;
    for (const auto& l : log_lines) all += l + "\n";
    return all;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(frr_driver)

BOOST_FIXTURE_TEST_CASE(first_apply_writes_a_private_file_and_reloads_until_the_test_is_empty,
                        Fake) {
  FrrDriver driver(options);
  auto r = driver.apply(kConfigA);
  BOOST_TEST_REQUIRE(r.has_value(), failureOf(r));
  BOOST_TEST(r->passes == 1);
  // router bgp; router bgp / neighbor; router bgp / address-family; ... / network
  BOOST_TEST(r->lines_added == 4u);
  BOOST_TEST(r->lines_removed == 0u);
  BOOST_TEST(readFile(path("frr.conf")) == kConfigA);
  BOOST_TEST(running() == kConfigA);
  BOOST_TEST(calls() == "--test igtest\n--reload igtest\n--test igtest\n");
  struct stat st {};
  BOOST_TEST_REQUIRE(stat(options.workdir.c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 07777) == 0700u);
  BOOST_TEST_REQUIRE(stat(path("frr.conf").c_str(), &st) == 0);
  BOOST_TEST((st.st_mode & 07777) == 0600u);
  BOOST_TEST(!has(logs(), "\"level\":\"warn\""), logs());
}

BOOST_FIXTURE_TEST_CASE(unchanged_config_reloads_nothing, Fake) {
  FrrDriver driver(options);
  BOOST_TEST_REQUIRE(driver.apply(kConfigA).has_value());
  auto again = driver.apply(kConfigA);  // the driver still asks FRR: one --test, no reload
  BOOST_TEST_REQUIRE(again.has_value(), failureOf(again));
  BOOST_TEST(again->passes == 0);
  BOOST_TEST(again->lines_added == 0u);

  FrrApplier applier(driver);
  BOOST_TEST_REQUIRE(applier.apply(kConfigB).has_value());
  const std::string before = calls();
  auto noop = applier.apply(kConfigB);  // the applier does not even run a --test
  BOOST_TEST_REQUIRE(noop.has_value(), failureOf(noop));
  BOOST_TEST(noop->passes == 0);
  BOOST_TEST(calls() == before);
  BOOST_TEST(applier.lastGood() == kConfigB);
}

BOOST_FIXTURE_TEST_CASE(a_rejected_file_changes_nothing, Fake) {
  FrrDriver driver(options);
  FrrApplier applier(driver);
  BOOST_TEST_REQUIRE(applier.apply(kConfigA).has_value());
  control("fail-test", "frobnicate");
  const std::string before = calls();
  auto r = applier.apply(kConfigA + "router bgp 64512\n neighbor 10.0.0.1 frobnicate 7\n");
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST((r.error().code == ErrorCode::InvalidArgument));
  const std::string& m = r.error().message;
  BOOST_TEST(has(m,
                 "Unknown command: "
                 " neighbor 10.0.0.1 frobnicate 7"),
             m);
  BOOST_TEST(has(m, "nothing applied"), m);
  BOOST_TEST(has(m, "--test --stdout --confdir"), m);
  BOOST_TEST(!has(m, "INFO"), m);  // frr-reload.py's chatter is dropped
  BOOST_TEST(!has(m, "\x1b"), m);  // so are its colour codes
  BOOST_TEST(calls().substr(before.size()) == "--test igtest\n");
  BOOST_TEST(running() == kConfigA);
  BOOST_TEST(applier.lastGood() == kConfigA);
}

BOOST_FIXTURE_TEST_CASE(a_failed_reload_reapplies_the_last_good_config_and_returns_the_error,
                        Fake) {
  FrrDriver driver(options);
  FrrApplier applier(driver);
  BOOST_TEST_REQUIRE(applier.apply(kConfigA).has_value());
  control("fail-reload", "10.9.9.9");
  auto r = applier.apply(kConfigB + "ip prefix-list extra seq 5 permit 10.2.0.0/16\n");
  BOOST_TEST_REQUIRE(!r.has_value());
  const std::string& m = r.error().message;
  BOOST_TEST(has(m, "did not converge after 3 reload pass(es)"), m);
  BOOST_TEST(has(m, "network 10.9.9.9/32"), m);
  BOOST_TEST(has(m, "Failure to communicate[13] to bgpd"), m);
  // A daemon refused a line: the configuration is rejected, FRR is not unavailable.
  BOOST_TEST((r.error().code == ErrorCode::InvalidArgument));
  BOOST_TEST(has(m, "(FRR refused a line)"), m);
  BOOST_TEST(!has(m, "re-applying"), m);
  // The partial change (the prefix-list) was rolled back: FRR and the file hold A again.
  BOOST_TEST(running() == kConfigA);
  BOOST_TEST(readFile(path("frr.conf")) == kConfigA);
  BOOST_TEST(applier.lastGood() == kConfigA);
  BOOST_TEST(has(logs(), "re-applied the last good configuration"), logs());
}

BOOST_FIXTURE_TEST_CASE(a_restore_that_fails_too_is_reported_with_the_original_error, Fake) {
  FrrDriver driver(options);
  FrrApplier applier(driver);
  BOOST_TEST_REQUIRE(applier.apply(kConfigA).has_value());
  control("fail-reload", "10.");  // in A as well as B
  auto r = applier.apply(kConfigB);
  BOOST_TEST_REQUIRE(!r.has_value());
  const std::string& m = r.error().message;
  BOOST_TEST(m.find("did not converge") < m.find("re-applying the last good configuration failed"),
             m);
  BOOST_TEST(applier.lastGood() == kConfigA);
}

BOOST_FIXTURE_TEST_CASE(a_failure_before_any_success_leaves_no_last_good, Fake) {
  FrrDriver driver(options);
  FrrApplier applier(driver);
  control("stuck", "");
  BOOST_TEST(!applier.apply(kConfigA).has_value());
  BOOST_TEST(applier.lastGood().empty());
  clear("stuck");
  // "" is a configuration like any other: FRR is asked, it is not taken for "unchanged".
  const size_t before = calls().size();
  auto r = applier.apply("");
  BOOST_TEST_REQUIRE(r.has_value(), failureOf(r));
  BOOST_TEST(calls().size() > before);
}

BOOST_FIXTURE_TEST_CASE(reload_exit_status_is_not_trusted_the_final_test_decides, Fake) {
  struct Case {
    std::string desc;
    std::string passes_needed;
    std::string reload_rc;
    int want_passes;
    bool want_warn;
  };
  const std::vector<Case> cases = {
      {"graceful-restart: reload exits 1 but the change is applied", "1", "1", 1, true},
      {"bfd removal: the second pass finishes the job", "2", "0", 2, false},
      {"three passes are the limit and suffice", "3", "0", 3, false},
  };
  int n = 0;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      log_lines.clear();
      control("passes", c.passes_needed);
      control("reload-rc", c.reload_rc);
      FrrDriver driver(options);
      const std::string text =
          kConfigA + "ip prefix-list p seq " + std::to_string(++n) + " permit 10.0.0.0/8\n";
      auto r = driver.apply(text);
      BOOST_TEST_REQUIRE(r.has_value(), failureOf(r));
      BOOST_TEST(r->passes == c.want_passes);
      BOOST_TEST(running() == text);
      BOOST_TEST(has(logs(), "\"level\":\"warn\"") == c.want_warn, logs());
    }
  }
}

BOOST_FIXTURE_TEST_CASE(a_config_that_never_converges_is_an_error_naming_the_lines, Fake) {
  options.max_passes = 2;
  FrrDriver driver(options);
  control("stuck", "");
  auto r = driver.apply(kConfigA);
  BOOST_TEST_REQUIRE(!r.has_value());
  const std::string& m = r.error().message;
  BOOST_TEST(has(m, path("frr.conf") + ": FRR did not converge after 2 reload pass(es)"), m);
  BOOST_TEST(has(m, "router bgp 64512 / address-family ipv4 unicast / network 10.1.1.1/32"), m);
  BOOST_TEST(has(m, "last `frr-reload.py --reload` exited 0"), m);
  BOOST_TEST((r.error().code == ErrorCode::Unavailable));  // nothing refused: not a rejection
  BOOST_TEST(calls() ==
             "--test igtest\n--reload igtest\n--test igtest\n--reload igtest\n"
             "--test igtest\n");
}

BOOST_FIXTURE_TEST_CASE(passwords_never_appear_in_errors_or_logs, Fake) {
  struct Case {
    std::string desc;
    std::string control;
    std::string rule;
  };
  const std::vector<Case> cases = {
      {"rejected by --test", "fail-test", "password"},
      {"rejected by --reload (its log lists every line sent)", "fail-reload", "password"},
      {"never converges (the error lists the remaining lines)", "stuck", ""},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      for (const char* n : {"fail-test", "fail-reload", "stuck"}) clear(n);
      control(c.control, c.rule);
      log_lines.clear();
      FrrDriver driver(options);
      auto r = driver.apply(kConfigWithPassword);
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(!has(r.error().message, kSecret), r.error().message);
      BOOST_TEST(has(r.error().message, "password <retracted>"), r.error().message);
      // The description around a retracted line stays intact.
      if (c.control != "fail-test") {
        BOOST_TEST(has(r.error().message, "<retracted>]"), r.error().message);
      }
      BOOST_TEST(!has(logs(), kSecret), logs());
    }
  }
}

BOOST_FIXTURE_TEST_CASE(pathspace_and_vtysh_arguments_follow_the_options, Fake) {
  FrrDriver driver(options);
  auto running = driver.runningConfig();  // vtysh is /bin/echo: it prints its argv
  BOOST_TEST_REQUIRE(running.has_value(), failureOf(running));
  BOOST_TEST(*running == "--config_dir " + options.workdir + " -N igtest -c show running-config\n");

  options.pathspace = "";
  FrrDriver plain(options);
  BOOST_TEST_REQUIRE(plain.apply(kConfigA).has_value());
  BOOST_TEST(has(calls(), "--test -\n--reload -\n"), calls());
  running = plain.runningConfig();
  BOOST_TEST_REQUIRE(running.has_value(), failureOf(running));
  BOOST_TEST(*running == "--config_dir " + options.workdir + " -c show running-config\n");
}

BOOST_FIXTURE_TEST_CASE(tool_failures_are_errors_naming_the_command, Fake) {
  struct Case {
    std::string desc;
    std::string python;
    std::string script;
    std::string vtysh;
    bool via_running_config;
    std::string mention;
  };
  const std::vector<Case> cases = {
      {"no python", "/nonexistent/python3", fakeScript(), "/bin/echo", false,
       "/nonexistent/python3"},
      {"no reload script", "/usr/bin/python3", "/nonexistent/frr-reload.py", "/bin/echo", false,
       "frr-reload.py /nonexistent/frr-reload.py: No such file or directory"},
      {"vtysh fails", "/usr/bin/python3", fakeScript(), "/bin/false", true,
       "`/bin/false --config_dir"},
      {"no vtysh", "/usr/bin/python3", fakeScript(), "/nonexistent/vtysh", true,
       "/nonexistent/vtysh"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      FrrDriverOptions o = options;
      o.python = c.python;
      o.reload_script = c.script;
      o.vtysh = c.vtysh;
      FrrDriver driver(o);
      const std::string message = c.via_running_config ? failureOf(driver.runningConfig())
                                                       : failureOf(driver.apply(kConfigA));
      BOOST_TEST(has(message, c.mention), message);
    }
  }
}

BOOST_FIXTURE_TEST_CASE(a_hung_tool_is_killed_at_the_command_timeout, Fake) {
  options.command_timeout = 300ms;
  control("sleep", "100");
  FrrDriver driver(options);
  auto r = driver.apply(kConfigA);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(has(r.error().message, "timed out after 300 ms"), r.error().message);
}

BOOST_FIXTURE_TEST_CASE(a_bad_workdir_is_an_error_before_anything_runs, Fake) {
  options.workdir = "";
  BOOST_TEST(FrrDriver(options).apply(kConfigA).error().message == "frr workdir is not set");
  options.workdir = root + "/file";
  std::ofstream(options.workdir) << "x";
  auto r = FrrDriver(options).test(kConfigA);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(has(r.error().message, "not a directory"), r.error().message);
}

BOOST_FIXTURE_TEST_CASE(a_reload_left_running_by_a_killed_agent_is_killed_on_the_next_start, Fake) {
  control("sleep", "120");
  const std::string record = path("reload.pgid");
  const pid_t agent = fork();
  if (agent == 0) {
    options.logger = nullptr;
    FrrDriver driver(options);
    (void)driver.apply(kConfigA);
    _exit(0);
  }
  BOOST_TEST_REQUIRE(agent > 0);
  bool recorded = false;
  for (int i = 0; i < 400 && !recorded; ++i) {  // up to 20 s
    recorded = !readFile(record).empty();
    if (!recorded) std::this_thread::sleep_for(50ms);
  }
  BOOST_TEST_REQUIRE(recorded, "the reload's process group was never recorded");
  const pid_t reload = static_cast<pid_t>(std::atoi(readFile(record).c_str()));
  BOOST_TEST_REQUIRE(reload > 1);
  kill(agent, SIGKILL);
  waitpid(agent, nullptr, 0);
  // The reload runs in its own process group: killing the agent left it running.
  BOOST_TEST_REQUIRE(kill(reload, 0) == 0);
  FrrDriver next(options);
  bool gone = false;
  for (int i = 0; i < 400 && !gone; ++i) {  // up to 20 s; a zombie counts as gone
    const std::string stat = readFile("/proc/" + std::to_string(reload) + "/stat");
    const size_t paren = stat.rfind(')');
    gone = stat.empty() || (paren != std::string::npos && stat.substr(paren + 2, 1) == "Z");
    if (!gone) std::this_thread::sleep_for(50ms);
  }
  BOOST_TEST(gone, "frr-reload.py (pid " << reload << ") outlived the agent that started it");
  BOOST_TEST(readFile(record).empty());
}

BOOST_AUTO_TEST_SUITE_END()
