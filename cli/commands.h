// SPDX-License-Identifier: Apache-2.0
// The ingotctl subcommands. Each takes the words after its name and returns the exit code:
// 0 success, 1 the input is invalid (or, for plan, the configuration is), 2 a usage error.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ingot::cli {

constexpr int kExitOk = 0;
constexpr int kExitInvalid = 1;
constexpr int kExitUsage = 2;

/// joined is v's strings with sep between them (the subcommands' lists in text output).
inline std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) {
    out += (out.empty() ? "" : sep) + s;
  }
  return out;
}

/// runValidate: `validate [--backend frr-k8s|frr] [--output text|json] [--namespace NS]
/// -f PATH...`.
int runValidate(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

/// runPlan: `plan [--lb-class X] [--output table|json] [--namespace NS] [--ignore-exclude-lb]
/// -f PATH...`. JSON output carries each L2 Service's election as "l2".
int runPlan(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

/// runRender: `render --node NODE [--format frrconfiguration|frr.conf] [--explain]
/// [--ignore-exclude-lb] [--lb-class X] [--namespace NS] [--frrk8s-namespace NS] -f PATH...`.
int runRender(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

/// runSupportBundle: `support-bundle [--kubeconfig PATH] [--namespace NS] [--frr-pathspace P]
/// -o FILE.tar.gz` (cli/support_bundle.h).
int runSupportBundle(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

/// runMain dispatches argv to a subcommand and prints usage for unknown ones.
int runMain(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace ingot::cli
