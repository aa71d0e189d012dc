// SPDX-License-Identifier: Apache-2.0
// Tests of `ingotctl COMMAND --help`, `ingotctl help COMMAND` and the command table the
// commands parse their flags with.
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "cli/command_table.h"
#include "cli/commands.h"
#include "cli/tests/test_util.h"

namespace {

using namespace ingot::cli;
using namespace ingot::cli::testing;

/// main runs ingotctl with words after the program name.
Run ingotctl(std::vector<std::string> words) {
  words.insert(words.begin(), "ingotctl");
  return run([&](const auto&, auto& out, auto& err) { return runMain(words, out, err); },
             std::vector<std::string>{});
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(help)

// Every command answers --help, -h and `help COMMAND` with its usage and every flag, exit 0.
BOOST_AUTO_TEST_CASE(every_command_prints_its_help_with_every_flag) {
  BOOST_TEST(commandTable().size() >= 9U);
  for (const auto& c : commandTable()) {
    BOOST_TEST_CONTEXT(c.name) {
      const Run long_form = ingotctl({c.name, "--help"});
      BOOST_TEST(long_form.code == kExitOk);
      BOOST_TEST(long_form.err.empty(), long_form.err);
      BOOST_TEST(long_form.out.rfind("usage: ingotctl " + c.name, 0) == 0U, long_form.out);
      for (const auto& f : c.flags) {
        BOOST_TEST(has(long_form.out, "--" + f.name), f.name);
      }
      BOOST_TEST(has(long_form.out, "-h, --help"));
      BOOST_TEST(has(long_form.out, "-f, --filename") == c.files);
      BOOST_TEST(ingotctl({c.name, "-h"}).out == long_form.out);
      BOOST_TEST(ingotctl({"help", c.name}).out == long_form.out);
      BOOST_TEST(ingotctl({"--help", c.name}).out == long_form.out);
    }
  }
}

// --help anywhere among the flags wins over what the command would do with them.
BOOST_AUTO_TEST_CASE(help_after_other_flags_still_prints_help) {
  const Run r = ingotctl({"render", "--node", "node1", "-f", "/nonexistent", "--help"});
  BOOST_TEST(r.code == kExitOk);
  BOOST_TEST(r.out.rfind("usage: ingotctl render", 0) == 0U, r.out);
  const Run e = ingotctl({"explain", "web/frontend", "--dead-node", "node1", "-h"});
  BOOST_TEST(e.code == kExitOk);
  BOOST_TEST(has(e.out, "--suspect-node"));
}

BOOST_AUTO_TEST_CASE(main_usage_lists_every_command) {
  for (const auto& words : std::vector<std::vector<std::string>>{{"--help"}, {"-h"}, {"help"}}) {
    const Run r = ingotctl(words);
    BOOST_TEST(r.code == kExitOk);
    for (const auto& c : commandTable()) {
      BOOST_TEST(has(r.out, "\n  " + c.name + " "), c.name);
    }
  }
  const Run none = ingotctl({});
  BOOST_TEST(none.code == kExitUsage);
  BOOST_TEST(has(none.err, "commands:"));
  const Run unknown = ingotctl({"help", "frobnicate"});
  BOOST_TEST(unknown.code == kExitUsage);
  BOOST_TEST(has(unknown.err, "unknown command \"frobnicate\""));
  BOOST_TEST(ingotctl({"frobnicate", "--help"}).code == kExitUsage);
}

BOOST_AUTO_TEST_CASE(version_is_a_command_and_a_flag) {
  const Run r = ingotctl({"version"});
  BOOST_TEST(r.code == kExitOk);
  BOOST_TEST(r.out.rfind("ingotctl version ", 0) == 0U, r.out);
  BOOST_TEST(ingotctl({"--version"}).out == r.out);
  BOOST_TEST(ingotctl({"version", "extra"}).code == kExitUsage);
}

// A -h or --help that is the value of a flag is not a request for help.
BOOST_AUTO_TEST_CASE(wants_help_skips_flag_values) {
  struct Case {
    std::string command;
    std::vector<std::string> words;
    bool want;
  };
  const std::vector<Case> cases = {
      {"plan", {"--help"}, true},
      {"plan", {"-f", "x", "-h"}, true},
      {"plan", {"--output=json", "-h"}, true},
      {"plan", {"-f", "--help"}, false},
      {"plan", {"--filename", "-h"}, false},
      {"plan", {"--namespace", "-h"}, false},
      {"plan", {"--ignore-exclude-lb", "-h"}, true},
      {"render", {"--node", "--help"}, false},
      {"explain", {"svc", "--dead-node", "-h"}, false},
      {"explain", {"svc", "--suspect-node", "-h", "--help"}, true},
      {"support-bundle", {"-o", "-h"}, false},
      {"support-bundle", {"-o", "x", "-h"}, true},
      {"validate", {}, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.command << " " << c.words.size() << " words") {
      BOOST_TEST(wantsHelp(*findCommand(c.command), c.words) == c.want);
    }
  }
}

// Each command consumes every flag its help lists: after the flag (and its value) parsing goes
// on to the next word, whose unknown flag is what gets reported.
BOOST_AUTO_TEST_CASE(every_listed_flag_is_accepted_by_its_command) {
  for (const auto& c : commandTable()) {
    if (c.flags.empty()) {
      continue;
    }
    for (const auto& f : c.flags) {
      BOOST_TEST_CONTEXT(c.name << " --" << f.name) {
        std::vector<std::string> words = {c.name};
        if (c.positional == ValueKind::Service) {
          words.emplace_back("web/frontend");
        }
        words.push_back("--" + f.name);
        if (f.kind != ValueKind::None) {
          words.emplace_back(f.choices.empty() ? "value" : f.choices[0]);
        }
        words.emplace_back("--no-such-flag");
        const Run r = ingotctl(words);
        BOOST_TEST(r.code == kExitUsage);
        BOOST_TEST(has(r.err, "unknown flag --no-such-flag"), r.err);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
