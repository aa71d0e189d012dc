// SPDX-License-Identifier: Apache-2.0
#include <string>
#include <vector>

#include "cli/command_table.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/explain.h"
#include "cli/frrk8s.h"
#include "common/version/version.h"

namespace ingot::cli {
namespace {

/// runHelp: `help [COMMAND]`.
int runHelp(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  if (words.empty()) {
    out << mainUsage();
    return kExitOk;
  }
  const CommandInfo* command = words.size() == 1 ? findCommand(words[0]) : nullptr;
  if (command == nullptr) {
    err << "ingotctl help: "
        << (words.size() == 1 ? "unknown command \"" + words[0] + "\"" : "give one command") << "\n"
        << mainUsage();
    return kExitUsage;
  }
  out << commandHelp(*command);
  return kExitOk;
}

int runVersion(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  if (!words.empty()) {
    err << "ingotctl version: unexpected argument \"" << words[0] << "\"\n";
    return kExitUsage;
  }
  out << version::versionText("ingotctl");
  return kExitOk;
}

using Runner = int (*)(const std::vector<std::string>&, std::ostream&, std::ostream&);

Runner runnerOf(const std::string& command) {
  static const std::vector<std::pair<std::string, Runner>> kRunners = {
      {"validate", runValidate},
      {"plan", runPlan},
      {"render", runRender},
      {"explain", runExplain},
      {"support-bundle", runSupportBundle},
      {"frr-k8s", runFrrK8s},
      {"completion", runCompletion},
      {"version", runVersion},
      {"help", runHelp},
  };
  for (const auto& [name, run] : kRunners) {
    if (name == command) {
      return run;
    }
  }
  return nullptr;
}

}  // namespace

int runMain(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (argv.size() < 2) {
    err << mainUsage();
    return kExitUsage;
  }
  const std::string& command = argv[1];
  const std::vector<std::string> rest(argv.begin() + 2, argv.end());
  if (command == "--help" || command == "-h") {
    return runHelp(rest, out, err);
  }
  if (command == "--version") {
    return runVersion(rest, out, err);
  }
  if (command == kCompleteCommand) {
    return runComplete(rest, out, err);
  }
  const CommandInfo* info = findCommand(command);
  const Runner run = runnerOf(command);
  if (info == nullptr || run == nullptr) {
    err << "ingotctl: unknown command \"" << command << "\"\n" << mainUsage();
    return kExitUsage;
  }
  if (wantsHelp(*info, rest)) {
    out << commandHelp(*info);
    return kExitOk;
  }
  return run(rest, out, err);
}

}  // namespace ingot::cli
