// SPDX-License-Identifier: Apache-2.0
// Shell completion for ingotctl. The shell scripts stay thin: they hand the words of the command
// line to `ingotctl __complete WORD...` and offer what it prints. completeWords decides what to
// offer from the command table (cli/command_table.h) and the names of the Nodes and Services in
// the manifests the command line gives with -f; it is pure, indexManifests reads the files.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ingot::cli {

/// kCompleteCommand is the hidden command the completion scripts call.
inline constexpr std::string_view kCompleteCommand = "__complete";

/// CompletionIndex is what completion knows of the manifests: "namespace/name" of every Service
/// and the name of every Node, sorted.
struct CompletionIndex {
  std::vector<std::string> services;
  std::vector<std::string> nodes;
};

/// Completion is what to offer for the word being completed. A `--flag=VALUE` word gets values
/// only (bash replaces just the text after '='; the scripts put the prefix back for zsh).
struct Completion {
  std::vector<std::string> words;
  bool files = false;    ///< offer file names (the shell lists them)
  bool nospace = false;  ///< no space after the word (NODE= wants its interfaces next)
  friend bool operator==(const Completion&, const Completion&) = default;
};

/// completeWords completes the last of words (the words after "ingotctl"; the last one is the
/// word under the cursor, "" for a new word) from the command table and index.
Completion completeWords(const std::vector<std::string>& words, const CompletionIndex& index);

/// completionFiles returns the -f / --filename values among words, the last word excepted, and
/// "-" (stdin) left out.
std::vector<std::string> completionFiles(const std::vector<std::string>& words);

/// indexManifests loads paths, quietly: whatever cannot be read or decoded is left out.
CompletionIndex indexManifests(const std::vector<std::string>& paths);

/// completionScript returns the script for shell ("bash" or "zsh"), or "" for another shell.
std::string completionScript(std::string_view shell);

/// runComplete: `__complete WORD...`: one candidate a line, then a directive line: ":files"
/// (complete file names), ":nospace" or ":". Always exit 0.
int runComplete(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

/// runCompletion: `completion bash|zsh`: print the script.
int runCompletion(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

}  // namespace ingot::cli
