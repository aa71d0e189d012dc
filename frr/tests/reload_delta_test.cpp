// SPDX-License-Identifier: Apache-2.0
// parseTestOutput on real `frr-reload.py --test` outputs (testdata/test.*.out, captured from FRR
// 8.4.4 in a network namespace: see testdata/README.md), describeDelta and retractPasswords.
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "frr/frr_driver.h"
#include "frr/tests/testdata.h"

namespace {

using ingot::frr::describeDelta;
using ingot::frr::parseTestOutput;
using ingot::frr::ReloadDelta;
using ingot::frr::retractPasswords;

std::string testdata(const std::string& name) {
  return ingot::frr::testing::readTestdata(name);
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v) {
    if (x == s) return true;
  }
  return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(reload_delta)

BOOST_AUTO_TEST_CASE(captured_outputs_parse_into_commands_with_their_contexts) {
  struct Case {
    std::string desc;
    std::string file;
    size_t deletes;
    size_t adds;
    std::vector<std::string> want_deletes;  // a subset, in any position
    std::vector<std::string> want_adds;
  };
  const std::vector<Case> cases = {
      {"initial apply: flat lines, route-map contexts and router bgp / address-family nesting",
       "test.initial_ebgp.out",
       0,
       29,
       {},
       {"log stdout informational",
        "ip prefix-list 10.0.0.1-allowed-ipv4 seq 1398997407 permit 192.168.10.5/32",
        "route-map 10.0.0.1-out permit 65534",
        "route-map 10.0.0.1-out permit 65534 / match ip address prefix-list 10.0.0.1-allowed-ipv4",
        "router bgp 64512", "router bgp 64512 / neighbor 10.0.0.1 remote-as 64513",
        "router bgp 64512 / address-family ipv4 unicast",
        // FRR prints this one with a trailing space; it is trimmed.
        "router bgp 64512 / address-family ipv4 unicast / network 192.168.10.5/32",
        "router bgp 64512 / address-family ipv4 unicast / neighbor 10.0.0.1 route-map "
        "10.0.0.1-out out"}},
      {"converged: only the hostname noise, which is dropped", "test.noise_only.out", 0, 0, {}, {}},
      {"adding bfd profiles and graceful-restart",
       "test.add_bfd_graceful_restart.out",
       0,
       15,
       {},
       {"router bgp 64512 / neighbor 10.0.0.1 graceful-restart",
        "router bgp 64512 / neighbor 10.0.0.1 bfd profile fast", "bfd",
        "bfd / profile fast / detect-multiplier 5", "bfd / profile fast / echo receive-interval 60",
        "bfd / profile unused"}},
      {"removing bfd, first pass",
       "test.remove_bfd_pass1.out",
       7,
       0,
       {"no bfd", "bfd / no profile defaults", "router bgp 64512 / no neighbor 10.0.0.1 bfd",
        "router bgp 64512 / no neighbor 10.0.0.1 graceful-restart"},
       {}},
      {"removing bfd, what the second pass still has to do",
       "test.remove_bfd_pass2.out",
       2,
       0,
       {"no bfd", "router bgp 64512 / no neighbor 10.0.0.1 bfd"},
       {}},
      {"log lines before the first header are ignored",
       "test.syntax_error.out",
       12,
       4,
       {"no router bgp 64512", "ip forwarding"},
       {"no ip prefix-list 10.0.0.1-inpl-ipv4 seq 4294967295 deny any"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const ReloadDelta d = parseTestOutput(testdata(c.file));
      BOOST_TEST(d.to_delete.size() == c.deletes);
      BOOST_TEST(d.to_add.size() == c.adds);
      BOOST_TEST(d.empty() == (c.deletes == 0 && c.adds == 0));
      for (const auto& w : c.want_deletes) BOOST_TEST(contains(d.to_delete, w), w);
      for (const auto& w : c.want_adds) BOOST_TEST(contains(d.to_add, w), w);
      for (const auto& line : d.to_delete) BOOST_TEST(line.rfind("no hostname", 0) != 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(sections_keep_file_order_and_tolerate_odd_input) {
  struct Case {
    std::string desc;
    std::string text;
    std::vector<std::string> deletes;
    std::vector<std::string> adds;
  };
  const std::vector<Case> cases = {
      {"empty text", "", {}, {}},
      {"no sections at all", "some log line\n  indented\n", {}, {}},
      {"add section only, CRLF-free trailing spaces",
       "\nLines To Add\n============\nrouter bgp 1  \n neighbor x remote-as 2\n",
       {},
       {"router bgp 1 / neighbor x remote-as 2"}},
      {"a hostname line that is a real change is kept",
       "Lines To Delete\n===\nno hostname a b\nhostname x\n",
       {"no hostname a b", "hostname x"},
       {}},
      {"no trailing newline", "Lines To Delete\n===\nno bfd", {"no bfd"}, {}},
      {"tabs count as indentation",
       "Lines To Add\n===\nbfd\n\tprofile p\n",
       {},
       {"bfd / profile p"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const ReloadDelta d = parseTestOutput(c.text);
      BOOST_TEST(d.to_delete == c.deletes, boost::test_tools::per_element());
      BOOST_TEST(d.to_add == c.adds, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(describe_delta_lists_both_sections_and_caps_long_ones) {
  ReloadDelta d;
  d.to_delete = {"no bfd"};
  d.to_add = {"a", "b", "c"};
  BOOST_TEST(describeDelta(d) == "delete [no bfd] add [a; b; c]");
  BOOST_TEST(describeDelta(d, 2) == "delete [no bfd] add [a; b; … (+1 more)]");
  BOOST_TEST(describeDelta(ReloadDelta{}) == "delete [] add []");
}

BOOST_AUTO_TEST_CASE(passwords_are_retracted_wherever_they_appear) {
  struct Case {
    std::string desc;
    std::string in;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"neighbor line", " neighbor 10.0.0.1 password s3cr3t",
       " neighbor 10.0.0.1 password <retracted>"},
      {"peer-group, several spaces", "neighbor PG password   a$b",
       "neighbor PG password   <retracted>"},
      {"python repr in a reload log", "' neighbor 10.0.0.1 password s3cr3t\\n',",
       "' neighbor 10.0.0.1 password <retracted>"},
      {"two on two lines", "password a\npassword b\n",
       "password <retracted>\npassword <retracted>\n"},
      {"a delta line joined with contexts", "router bgp 1 / neighbor x password p / y",
       "router bgp 1 / neighbor x password <retracted> / y"},
      {"the keyword alone is kept", "no neighbor x password\nnext", "no neighbor x password\nnext"},
      {"part of another word is not a keyword", "passwords are here; mypassword x",
       "passwords are here; mypassword x"},
      {"nothing to retract", "router bgp 64512", "router bgp 64512"},
      {"idempotent: what follows a retracted value stays",
       "[password <retracted>]; next password x",
       "[password <retracted>]; next password <retracted>"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(retractPasswords(c.in) == c.want);
    }
  }
  const ReloadDelta d = parseTestOutput(testdata("test.password.out"));
  BOOST_TEST_REQUIRE(d.to_add.size() == 1u);
  BOOST_TEST(retractPasswords(describeDelta(d)).find("s3cr3t-pw") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
