// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/util/result.h"

namespace ingot::cli {

/// Args is a parsed command line: repeated `-f PATH` values, `--flag value` / `--flag=value`
/// options, and bare switches.
struct Args {
  std::vector<std::string> files;
  std::map<std::string, std::string> options;                   ///< the last value of each option
  std::map<std::string, std::vector<std::string>> all_options;  ///< every value, in order
  std::vector<std::string> switches;

  /// option returns the value of --name, or fallback when it was not given.
  std::string option(const std::string& name, const std::string& fallback = "") const;
  bool hasSwitch(const std::string& name) const;
  /// values returns every value of a repeatable --name, in order.
  std::vector<std::string> values(const std::string& name) const;
};

/// FlagSpec says which options take a value and which are switches; anything else is an error.
struct FlagSpec {
  std::vector<std::string> valued;    ///< e.g. "output", "backend"
  std::vector<std::string> switches;  ///< e.g. "explain"
};

/// parseArgs parses argv-style words (without the program and subcommand names).
Result<Args> parseArgs(const std::vector<std::string>& words, const FlagSpec& spec);

/// checkChoice returns an error unless value is one of choices, naming the flag.
Result<void> checkChoice(const std::string& flag,
                         const std::string& value,
                         const std::vector<std::string>& choices);

}  // namespace ingot::cli
