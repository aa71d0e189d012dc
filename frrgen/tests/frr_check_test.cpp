// SPDX-License-Identifier: Apache-2.0
// Real-FRR checks of the render goldens (CTest label `frr`):
// - every frrgen/tests/testdata/render.*.golden and compact.*.golden passes `vtysh -C -f` (FRR's
//   dry-run parse: no daemons needed; rc 2 and "% Unknown command" on a line FRR does not accept);
// - frr-reload.py computes, between render.change_before and render.change_after, exactly the
//   lines of the prefixes that changed — no renumbered sequence numbers.
// A check is skipped, with a message saying why, only when the FRR tool is not installed.
#define BOOST_TEST_MODULE ingot_frrgen_frr
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <sys/wait.h>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace fs = std::filesystem;
namespace utf = boost::unit_test;

namespace {

std::string envOr(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : fallback;
}

std::string vtysh() {
  return envOr("INGOT_VTYSH", "/usr/bin/vtysh");
}
std::string frrReload() {
  return envOr("INGOT_FRR_RELOAD", "/usr/lib/frr/frr-reload.py");
}

std::string testdata() {
  const char* root = std::getenv("INGOT_SOURCE_DIR");
  return root != nullptr ? std::string(root) + "/frrgen/tests/testdata" : "tests/testdata";
}

struct Run {
  int rc = -1;
  std::string output;
};

// run executes a shell command and returns its exit status and stdout.
Run run(const std::string& command) {
  Run r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string quote(const std::string& s) {
  return "'" + s + "'";
}

boost::test_tools::assertion_result installed(const std::string& path) {
  boost::test_tools::assertion_result ok(fs::exists(path));
  if (!ok) {
    ok.message() << path << " is not installed (apt-get install frr frr-pythontools)";
    // Printed at every log level so that CTest reports the test as skipped, not passed.
    std::fprintf(stderr, "skipped: %s is not installed (apt-get install frr frr-pythontools)\n",
                 path.c_str());
  }
  return ok;
}

std::vector<std::string> renderGoldens() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(testdata())) {
    const std::string name = e.path().filename().string();
    const bool rendered = name.rfind("render.", 0) == 0 || name.rfind("compact.", 0) == 0;
    if (rendered && e.path().extension() == ".golden") {
      out.push_back(e.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// reloadSections splits `frr-reload.py --test` output into the delete and add commands, each
// command joined into one line ("router bgp 64512 / address-family ipv4 unicast / no network X").
std::pair<std::set<std::string>, std::set<std::string>> reloadSections(const std::string& out) {
  std::set<std::string> del;
  std::set<std::string> add;
  std::set<std::string>* cur = nullptr;
  std::vector<std::string> context;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line == "Lines To Delete" || line == "Lines To Add") {
      cur = line == "Lines To Delete" ? &del : &add;
      continue;
    }
    if (cur == nullptr || line.empty() || line[0] == '=') continue;
    const size_t indent = line.find_first_not_of(' ');
    context.resize(std::min(context.size(), indent));
    const std::string text = line.substr(indent);
    // A line whose next line is indented deeper opens a context; record only leaves.
    const size_t next = start < out.size() ? out.find_first_not_of(' ', start) : std::string::npos;
    if (next != std::string::npos && out[next] != '\n' && next - start > indent) {
      context.resize(indent);
      context.push_back(text);
      continue;
    }
    std::string joined;
    for (const auto& c : context) joined += c + " / ";
    cur->insert(joined + text);
  }
  return {del, add};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(frr)

BOOST_AUTO_TEST_CASE(every_render_golden_is_accepted_by_vtysh_dry_run,
                     *utf::precondition([](utf::test_unit_id) { return installed(vtysh()); })) {
  const auto files = renderGoldens();
  BOOST_TEST_REQUIRE(files.size() >= 10u, "expected the render goldens in " << testdata());
  for (const auto& f : files) {
    BOOST_TEST_CONTEXT(f) {
      Run r = run(quote(vtysh()) + " -C -f " + quote(f) + " 2>&1");
      BOOST_TEST(r.rc == 0, "vtysh rejected " << f << " (rc " << r.rc << "): " << r.output);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_dry_run_rejects_a_bad_line,
                     *utf::precondition([](utf::test_unit_id) { return installed(vtysh()); })) {
  // Proves the check above can fail: the same tool rejects an out-of-range sequence number.
  const std::string path = (fs::temp_directory_path() / "ingot-frrgen-bad.conf").string();
  FILE* f = std::fopen(path.c_str(), "w");
  BOOST_TEST_REQUIRE(f != nullptr);
  std::fputs("ip prefix-list x seq 4294967296 permit 10.0.0.0/8\n", f);
  std::fclose(f);
  Run r = run(quote(vtysh()) + " -C -f " + quote(path) + " 2>&1");
  fs::remove(path);
  BOOST_TEST(r.rc != 0);
}

BOOST_AUTO_TEST_CASE(reload_of_one_change_touches_only_the_changed_prefixes,
                     *utf::precondition([](utf::test_unit_id) { return installed(frrReload()); })) {
  const std::string before = testdata() + "/render.change_before.golden";
  const std::string after = testdata() + "/render.change_after.golden";
  Run r = run(quote(frrReload()) + " --test --input " + quote(before) + " " + quote(after) +
              " 2>/dev/null");
  BOOST_TEST_REQUIRE(r.rc == 0, "frr-reload.py failed: " << r.output);
  auto [del, add] = reloadSections(r.output);
  const std::set<std::string> want_del = {
      "router bgp 64512 / address-family ipv4 unicast / no network 192.168.10.10/32"};
  const std::set<std::string> want_add = {
      "router bgp 64512 / address-family ipv4 unicast / network 192.168.10.5/32",
      "ip prefix-list 10.0.0.1-allowed-ipv4 seq 1398997407 permit 192.168.10.5/32",
      "no ip prefix-list 10.0.0.1-allowed-ipv4 seq 2337386689 permit 192.168.10.10/32",
      "ip prefix-list 10.0.0.1-65000:20-ip-community-prefixes seq 3158779382 permit "
      "192.168.10.20/32",
      "route-map 10.0.0.1-out permit 57389 / match ip address prefix-list "
      "10.0.0.1-65000:20-ip-community-prefixes",
      "route-map 10.0.0.1-out permit 57389 / set community 65000:20 additive",
      "route-map 10.0.0.1-out permit 57389 / on-match next",
      "route-map 10.0.0.1-out permit 57389",
  };
  BOOST_TEST(del == want_del, boost::test_tools::per_element());
  BOOST_TEST(add == want_add, boost::test_tools::per_element());
}

// Endpoint-weighted ECMP in frr-k8s mode (frrgen/weight_raw.h): 3:1 becomes 1:1 in spec.raw.
// frr-reload.py, which frr-k8s runs, changes only link-bandwidth lines: no `network` line (no
// withdrawal), no `neighbor` line (no session reset), frr-k8s' own entries untouched.
BOOST_AUTO_TEST_CASE(reload_of_a_weight_change_touches_only_link_bandwidth_lines,
                     *utf::precondition([](utf::test_unit_id) { return installed(frrReload()); })) {
  const std::string before = testdata() + "/render.weighted_frrk8s_before.golden";
  const std::string after = testdata() + "/render.weighted_frrk8s_after.golden";
  Run r = run(quote(frrReload()) + " --test --input " + quote(before) + " " + quote(after) +
              " 2>/dev/null");
  BOOST_TEST_REQUIRE(r.rc == 0, "frr-reload.py failed: " << r.output);
  auto [del, add] = reloadSections(r.output);
  const std::set<std::string> want_del = {"no route-map 10.0.0.1-out permit 60001"};
  const std::set<std::string> want_add = {
      "no ip prefix-list 10.0.0.1-3-ip-bandwidth-prefixes seq 1398997407 permit 192.168.10.5/32",
      "ip prefix-list 10.0.0.1-1-ip-bandwidth-prefixes seq 1398997407 permit 192.168.10.5/32",
  };
  BOOST_TEST(del == want_del, boost::test_tools::per_element());
  BOOST_TEST(add == want_add, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
