// SPDX-License-Identifier: Apache-2.0
// The ingotctl commands and their flags as data: the one description that `--help`, the command
// list, the commands' own flag parsing (flagSpecOf) and shell completion all read, so they
// cannot disagree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/args.h"

namespace ingot::cli {

/// ValueKind says what a flag's value (or a command's positional argument) is, for completion.
enum class ValueKind {
  None,            ///< a switch: no value
  Text,            ///< free text: nothing to offer
  Choice,          ///< one of FlagInfo::choices
  File,            ///< a path
  Node,            ///< a Node name from the -f manifests
  NodeInterfaces,  ///< NODE=IF[,IF...]: a Node name from the -f manifests, then '='
  Service,         ///< [service] NAMESPACE/NAME of a Service from the -f manifests
  Command,         ///< an ingotctl command name
};

/// FlagInfo is one flag of a command.
struct FlagInfo {
  std::string name;     ///< long name without dashes ("output")
  std::string metavar;  ///< the value's placeholder in help ("" for a switch)
  std::string help;
  ValueKind kind = ValueKind::None;
  std::vector<std::string> choices;  ///< for ValueKind::Choice, in help order
  bool repeatable = false;
  /// parsed is false when the command takes the flag out of its words itself (explain's
  /// --dead-node, support-bundle's -o) rather than through parseArgs.
  bool parsed = true;
  char short_name = 0;  ///< a one-letter alias ('o' for support-bundle's -o), 0 for none
};

/// CommandInfo is one command: what --help prints and what completion offers.
struct CommandInfo {
  std::string name;
  std::string summary;   ///< one line, for the command list
  std::string synopsis;  ///< what follows "ingotctl NAME" in the usage line
  std::string description;
  std::vector<FlagInfo> flags;
  bool files = false;                      ///< takes -f PATH (--filename)
  ValueKind positional = ValueKind::None;  ///< what the positional argument is, if any
};

/// commandTable lists every command in the order of the command list.
const std::vector<CommandInfo>& commandTable();

/// findCommand returns the command of that name, or nullptr.
const CommandInfo* findCommand(std::string_view name);

/// findFlag returns the command's flag of that long name, or nullptr.
const FlagInfo* findFlag(const CommandInfo& command, std::string_view name);

/// flagSpecOf is the FlagSpec of the flags parseArgs handles for the command.
FlagSpec flagSpecOf(const CommandInfo& command);

/// mainUsage is `ingotctl --help`: the usage line and every command's summary.
std::string mainUsage();

/// commandHelp is `ingotctl NAME --help`: usage, description and every flag.
std::string commandHelp(const CommandInfo& command);

/// wantsHelp reports whether the words after the command name ask for help: a `--help` or `-h`
/// word that is not the value of a flag taking one (`--node -h` names a node).
bool wantsHelp(const CommandInfo& command, const std::vector<std::string>& words);

}  // namespace ingot::cli
