// SPDX-License-Identifier: Apache-2.0
#include "cli/completion.h"

#include <algorithm>
#include <set>

#include "api/manifest.h"
#include "cli/command_table.h"
#include "cli/commands.h"

namespace ingot::cli {
namespace {

/// kServiceKind is the kind word explain accepts before NAMESPACE/NAME.
constexpr const char* kServiceKind = "service";

/// filesFlag stands for -f / --filename, which no command lists in its flags.
const FlagInfo& filesFlag() {
  static const FlagInfo kFlag = [] {
    FlagInfo f;
    f.name = "filename";
    f.kind = ValueKind::File;
    f.repeatable = true;
    return f;
  }();
  return kFlag;
}

/// offer is a Completion of words.
Completion offer(std::vector<std::string> words, bool nospace = false) {
  Completion c;
  c.words = std::move(words);
  c.nospace = nospace;
  return c;
}

bool startsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::vector<std::string> withPrefix(const std::vector<std::string>& all, const std::string& p) {
  std::vector<std::string> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out),
               [&](const auto& s) { return startsWith(s, p); });
  return out;
}

std::vector<std::string> commandNames() {
  std::vector<std::string> out;
  for (const auto& c : commandTable()) {
    out.push_back(c.name);
  }
  return out;
}

/// Scan is what the words before the completed one say: the flag waiting for its value, the
/// flags given and the positional arguments.
struct Scan {
  const FlagInfo* pending = nullptr;
  std::set<std::string> given;
  std::vector<std::string> positional;
};

const FlagInfo* flagOf(const CommandInfo& command, const std::string& name) {
  return name == filesFlag().name ? &filesFlag() : findFlag(command, name);
}

const FlagInfo* shortFlagOf(const CommandInfo& command, char c) {
  if (c == 'f' && command.files) {
    return &filesFlag();
  }
  const auto it = std::find_if(command.flags.begin(), command.flags.end(),
                               [&](const auto& f) { return f.short_name == c; });
  return it == command.flags.end() ? nullptr : &*it;
}

Scan scan(const CommandInfo& command, const std::vector<std::string>& words, size_t end) {
  Scan s;
  for (size_t i = 1; i < end; ++i) {
    const std::string& w = words[i];
    if (s.pending != nullptr) {
      s.pending = nullptr;
      continue;
    }
    const FlagInfo* f = nullptr;
    if (startsWith(w, "--")) {
      const auto eq = w.find('=');
      const std::string name = w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      s.given.insert(name);
      f = eq == std::string::npos ? flagOf(command, name) : nullptr;
    } else if (w.size() == 2 && w[0] == '-') {
      f = shortFlagOf(command, w[1]);
      if (f != nullptr) {
        s.given.insert(f->name);
      }
    } else {
      s.positional.push_back(w);
    }
    if (f != nullptr && f->kind != ValueKind::None) {
      s.pending = f;
    }
  }
  return s;
}

/// flagWords lists the command's flags not given yet (repeatable ones always).
std::vector<std::string> flagWords(const CommandInfo& command, const Scan& s) {
  std::vector<std::string> out;
  if (command.files) {
    out.insert(out.end(), {"-f", "--filename"});
  }
  for (const auto& f : command.flags) {
    if (f.repeatable || !s.given.contains(f.name)) {
      out.push_back("--" + f.name);
    }
  }
  out.emplace_back("--help");
  return out;
}

Completion value(const FlagInfo& f, const std::string& v, const CompletionIndex& index) {
  switch (f.kind) {
    case ValueKind::File: {
      Completion c;
      c.files = true;
      return c;
    }
    case ValueKind::Choice:
      return offer(withPrefix(f.choices, v));
    case ValueKind::Node:
      return offer(withPrefix(index.nodes, v));
    case ValueKind::NodeInterfaces: {
      if (v.find_first_of("=;") != std::string::npos) {
        return {};  // the interface names are the user's to give
      }
      std::vector<std::string> words;
      for (const auto& n : withPrefix(index.nodes, v)) {
        words.push_back(n + "=");
      }
      return offer(std::move(words), true);
    }
    default:
      return {};
  }
}

Completion positional(const CommandInfo& command,
                      const Scan& s,
                      const std::string& cur,
                      const CompletionIndex& index) {
  switch (command.positional) {
    case ValueKind::Service:
      if (s.positional.empty()) {
        auto words = withPrefix(index.services, cur);
        if (startsWith(kServiceKind, cur)) {
          words.insert(words.begin(), kServiceKind);
        }
        return offer(words);
      }
      if (s.positional.size() == 1 && s.positional[0] == kServiceKind) {
        return offer(withPrefix(index.services, cur));
      }
      break;
    case ValueKind::Choice:  // completion's shell
      if (s.positional.empty()) {
        return offer(withPrefix({"bash", "zsh"}, cur));
      }
      break;
    case ValueKind::Command:
      if (s.positional.empty()) {
        return offer(withPrefix(commandNames(), cur));
      }
      break;
    default:
      break;
  }
  return offer(cur.empty() ? flagWords(command, s) : std::vector<std::string>{});
}

}  // namespace

Completion completeWords(const std::vector<std::string>& words, const CompletionIndex& index) {
  const std::string cur = words.empty() ? "" : words.back();
  if (words.size() <= 1) {
    auto all = commandNames();
    all.insert(all.end(), {"--help", "--version"});
    return offer(withPrefix(all, cur));
  }
  const std::string& name = words[0] == "--help" || words[0] == "-h" ? "help" : words[0];
  const CommandInfo* command = findCommand(name);
  if (command == nullptr) {
    return {};
  }
  const Scan s = scan(*command, words, words.size() - 1);
  if (s.pending != nullptr) {
    return value(*s.pending, cur, index);
  }
  if (startsWith(cur, "--") && cur.find('=') != std::string::npos) {
    const auto eq = cur.find('=');
    const FlagInfo* f = flagOf(*command, cur.substr(2, eq - 2));
    return f == nullptr ? Completion{} : value(*f, cur.substr(eq + 1), index);
  }
  if (startsWith(cur, "-")) {
    return offer(withPrefix(flagWords(*command, s), cur));
  }
  return positional(*command, s, cur, index);
}

std::vector<std::string> completionFiles(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  const std::string prefix = "--filename=";
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    const std::string& w = words[i];
    std::string path;
    if ((w == "-f" || w == "--filename") && i + 2 < words.size()) {
      path = words[++i];
    } else if (startsWith(w, prefix)) {
      path = w.substr(prefix.size());
    }
    if (!path.empty() && path != "-") {
      out.push_back(path);
    }
  }
  return out;
}

CompletionIndex indexManifests(const std::vector<std::string>& paths) {
  CompletionIndex index;
  if (paths.empty()) {
    return index;
  }
  std::set<std::string> services;
  std::set<std::string> nodes;
  for (const auto& o : api::loadManifestPaths(paths).objects) {
    if (o.kind == "Service") {
      const auto& meta = o.meta();
      services.insert((meta.namespace_.empty() ? "default" : meta.namespace_) + "/" + meta.name);
    } else if (o.kind == "Node") {
      nodes.insert(o.meta().name);
    }
  }
  index.services.assign(services.begin(), services.end());
  index.nodes.assign(nodes.begin(), nodes.end());
  return index;
}

int runComplete(const std::vector<std::string>& words, std::ostream& out, std::ostream& /*err*/) {
  const Completion c = completeWords(words, indexManifests(completionFiles(words)));
  for (const auto& w : c.words) {
    out << w << "\n";
  }
  out << (c.files ? ":files" : c.nospace ? ":nospace" : ":") << "\n";
  return kExitOk;
}

int runCompletion(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  const std::string script = words.size() == 1 ? completionScript(words[0]) : "";
  if (script.empty()) {
    err << "ingotctl completion: give the shell: bash or zsh\n";
    return kExitUsage;
  }
  out << script;
  return kExitOk;
}

}  // namespace ingot::cli
