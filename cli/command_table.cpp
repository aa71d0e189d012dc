// SPDX-License-Identifier: Apache-2.0
#include "cli/command_table.h"

#include <algorithm>

namespace ingot::cli {
namespace {

FlagInfo flag(std::string name, std::string metavar, std::string help, ValueKind kind) {
  FlagInfo f;
  f.name = std::move(name);
  f.metavar = std::move(metavar);
  f.help = std::move(help);
  f.kind = kind;
  return f;
}

FlagInfo text(std::string name, std::string metavar, std::string help) {
  return flag(std::move(name), std::move(metavar), std::move(help), ValueKind::Text);
}

FlagInfo choice(std::string name, std::vector<std::string> choices, std::string help) {
  FlagInfo f = flag(std::move(name), "", std::move(help), ValueKind::Choice);
  f.choices = std::move(choices);
  for (const auto& c : f.choices) {
    f.metavar += (f.metavar.empty() ? "" : "|") + c;
  }
  return f;
}

FlagInfo file(std::string name, std::string metavar, std::string help) {
  return flag(std::move(name), std::move(metavar), std::move(help), ValueKind::File);
}

FlagInfo node(std::string name, std::string help) {
  return flag(std::move(name), "NODE", std::move(help), ValueKind::Node);
}

FlagInfo toggle(std::string name, std::string help) {
  return flag(std::move(name), "", std::move(help), ValueKind::None);
}

/// repeated marks a flag as repeatable and, when the command takes it itself, not parsed.
FlagInfo repeated(FlagInfo f, bool parsed = true) {
  f.repeatable = true;
  f.parsed = parsed;
  return f;
}

FlagInfo backendFlag() {
  return choice("backend", {"frr-k8s", "frr"},
                "the BGP backend the agents run; frr accepts the FRR-mode-only fields "
                "(default frr-k8s)");
}

FlagInfo namespaceFlag() {
  return text("namespace", "NS",
              "the namespace of the metallb.io objects that count (default metallb-system)");
}

FlagInfo lbClassFlag() {
  return text("lb-class", "CLASS",
              "act as a controller and agents started with --lb-class CLASS (default: Services "
              "without a loadBalancerClass)");
}

FlagInfo ignoreExcludeFlag() {
  return toggle("ignore-exclude-lb",
                "as the agents' flag: nodes labelled "
                "node.kubernetes.io/exclude-from-external-load-balancers still announce");
}

FlagInfo weightedEcmpFlag() {
  return toggle("weighted-ecmp",
                "as the agents' flag: weight every Service by its ready local endpoints unless "
                "its ingot.dev/weighted-ecmp annotation says \"false\"");
}

FlagInfo drainTriggersFlag() {
  return text("drain-triggers", "LIST",
              "as the agents' flag: the drain triggers (cordon,taint,shutdown,sigterm); a node "
              "that shows one is reported draining and leaves the Layer 2 election");
}

FlagInfo drainTaintFlag() {
  return text("drain-taint", "KEY", "as the agents' flag: the key of the taint trigger");
}

FlagInfo interfacesFlag() {
  return repeated(flag("interfaces", "NODE=IF[,IF...]",
                       "the names of a node's usable interfaces (up, not a bridge port or bond "
                       "member); shows which ones a Layer 2 address is answered on. Repeat the "
                       "flag or separate nodes with ';'",
                       ValueKind::NodeInterfaces));
}

FlagInfo excludeL2Flag() {
  return file("excludel2-path", "FILE",
              "the agents' excludel2.yaml (announcedInterfacesToExclude regexes) for "
              "--interfaces; without it no interface is excluded");
}

FlagInfo frrk8sNamespaceFlag(const std::string& fallback) {
  return text("frrk8s-namespace", "NS",
              "the namespace of the FRRConfigurations (default " + fallback + ")");
}

FlagInfo kubeconfigFlag() {
  return file("kubeconfig", "PATH",
              "kubeconfig of the cluster (default $KUBECONFIG, in-cluster, ~/.kube/config)");
}

FlagInfo contextFlag() {
  return text("context", "NAME", "kubeconfig context (default: its current-context)");
}

CommandInfo command(std::string name,
                    std::string summary,
                    std::string synopsis,
                    std::string description,
                    std::vector<FlagInfo> flags,
                    bool files = false,
                    ValueKind positional = ValueKind::None) {
  CommandInfo c;
  c.name = std::move(name);
  c.summary = std::move(summary);
  c.synopsis = std::move(synopsis);
  c.description = std::move(description);
  c.flags = std::move(flags);
  c.files = files;
  c.positional = positional;
  return c;
}

std::vector<CommandInfo> buildTable() {
  std::vector<CommandInfo> t;
  t.push_back(
      command("validate", "check manifests as MetalLB's webhooks and config parser would",
              "[flags] -f PATH...",
              "Checks every object as MetalLB's webhooks would and the whole configuration as its\n"
              "parser would. Each problem names its file, line, object and field. Exit 1 when\n"
              "something is invalid.",
              {backendFlag(), choice("output", {"text", "json"}, "output format (default text)"),
               namespaceFlag()},
              true));
  t.push_back(command(
      "plan", "show the addresses the controller would assign and the L2 owner of each",
      "[flags] -f PATH...",
      "Runs the controller's allocation on the Services of the input and the agents' Layer 2\n"
      "election, counting every Node of the input as a live agent. With --interfaces, the\n"
      "L2 owner's cell also says which of its interfaces answer for the address.",
      {lbClassFlag(), choice("output", {"table", "json"}, "output format (default table)"),
       namespaceFlag(), backendFlag(), ignoreExcludeFlag(), interfacesFlag(), excludeL2Flag()},
      true));
  t.push_back(command(
      "render", "show what the agent on a node would configure for BGP",
      "--node NODE [flags] -f PATH...",
      "Prints the FRRConfiguration the agent on NODE would write (or the frr.conf FRR would\n"
      "run), from the addresses the controller would assign.",
      {node("node", "the node whose agent to run (its Node object must be in the input)"),
       choice("format", {"frrconfiguration", "frr.conf"},
              "what to print (default frrconfiguration)"),
       toggle("explain", "instead, say per Service what the node announces and why"),
       toggle("as-served", "print the FRRConfiguration as `kubectl get -o yaml` shows it"),
       backendFlag(), ignoreExcludeFlag(), weightedEcmpFlag(), lbClassFlag(), namespaceFlag(),
       frrk8sNamespaceFlag("--namespace")},
      true));
  t.push_back(command(
      "explain", "why a Service has its address and pool, and which nodes announce it and why",
      "[service] NAMESPACE/NAME [flags] [-f PATH...]",
      "Explains one Service (NAME alone means default/NAME): its pool, its events, and each\n"
      "node's BGP and Layer 2 verdict. With -f every Node counts as a live agent unless\n"
      "--dead-node names it; --suspect-node previews a member memberlist suspects, which the\n"
      "agents still count as live. A member that left memberlist is out as a dead one is.\n"
      "Without -f it reads the cluster and takes liveness from the agent pods.",
      {choice("output", {"text", "json"}, "output format (default text)"),
       repeated(node("dead-node", "the node's agent is not alive (memberlist: dead or left)"),
                false),
       repeated(node("suspect-node",
                     "memberlist suspects the node's agent: still live for the election "
                     "until declared dead (files only)"),
                false),
       interfacesFlag(), excludeL2Flag(), lbClassFlag(), namespaceFlag(), ignoreExcludeFlag(),
       weightedEcmpFlag(), drainTriggersFlag(), drainTaintFlag(), kubeconfigFlag(), contextFlag(),
       text("agent-selector", "SELECTOR",
            "label selector of the agent pods (default: the chart's speaker labels)")},
      true, ValueKind::Service));
  FlagInfo output = file("output", "FILE.tar.gz", "where to write the bundle");
  output.short_name = 'o';
  t.push_back(command(
      "support-bundle", "collect a redacted tar.gz for a bug report from the cluster (and FRR)",
      "-o FILE.tar.gz [flags]",
      "Collects the metallb.io objects, the daemons' logs, metrics and states, and FRR's\n"
      "running configuration into one archive, with every secret value scrubbed.",
      {output, kubeconfigFlag(), contextFlag(), namespaceFlag(),
       frrk8sNamespaceFlag("frr-k8s-system"),
       text("frr-pathspace", "P", "FRR -N pathspace of the local FRR (default: the default one)"),
       text("metrics-port", "N", "metrics port of pods that declare none (default 7472)"),
       file("vtysh", "PATH", "the vtysh to run (default vtysh)")}));
  t.push_back(command(
      "frr-k8s", "show the frr.conf frr-k8s would apply on a node from FRRConfigurations",
      "--node NODE [flags] -f PATH...",
      "Selects the FRRConfigurations of the namespace that match the node's labels, merges\n"
      "them as frr-k8s does and prints the frr.conf.",
      {node("node", "the node (its Node object must be in the input)"),
       frrk8sNamespaceFlag("frr-k8s-system"),
       text("log-level", "LEVEL", "the frr.conf log level (default informational)")},
      true));
  t.push_back(command("completion", "print a shell completion script (bash or zsh)", "bash|zsh",
                      "Prints a script that completes ingotctl's commands, flags, node and\n"
                      "Service names (read from the -f files on the command line). Load it:\n"
                      "  bash: source <(ingotctl completion bash)\n"
                      "  zsh:  source <(ingotctl completion zsh)\n"
                      "or save it as /etc/bash_completion.d/ingotctl, or as _ingotctl in a\n"
                      "directory of zsh's $fpath.",
                      {}));
  t.back().positional = ValueKind::Choice;
  t.push_back(command("version", "print the version and git revision (also --version)", "",
                      "Prints ingotctl's version and the git revision it was built from.", {}));
  t.push_back(command("help", "show the help of a command", "[COMMAND]",
                      "Prints the help of COMMAND (the same as ingotctl COMMAND --help), or "
                      "the list of\ncommands.",
                      {}, false, ValueKind::Command));
  return t;
}

std::string flagLeft(const FlagInfo& f) {
  std::string s = f.short_name != 0 ? std::string("-") + f.short_name + ", " : "    ";
  return s + "--" + f.name + (f.metavar.empty() ? "" : " " + f.metavar);
}

/// wrap splits text into lines of at most width characters, at spaces.
std::vector<std::string> wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    const std::string word =
        text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    if (end == std::string::npos) {
      break;
    }
    start = end + 1;
  }
  lines.push_back(line);
  return lines;
}

void flagLines(std::string& out, const std::string& left, const std::string& help) {
  constexpr size_t kHelpColumn = 34;
  constexpr size_t kWidth = 100;
  out += "  " + left;
  if (left.size() + 2 >= kHelpColumn) {
    out += "\n" + std::string(kHelpColumn, ' ');
  } else {
    out += std::string(kHelpColumn - left.size() - 2, ' ');
  }
  const auto lines = wrap(help, kWidth - kHelpColumn);
  for (size_t i = 0; i < lines.size(); ++i) {
    out += (i == 0 ? "" : std::string(kHelpColumn, ' ')) + lines[i] + "\n";
  }
}

}  // namespace

const std::vector<CommandInfo>& commandTable() {
  static const std::vector<CommandInfo> kTable = buildTable();
  return kTable;
}

const CommandInfo* findCommand(std::string_view name) {
  const auto& t = commandTable();
  const auto it = std::find_if(t.begin(), t.end(), [&](const auto& c) { return c.name == name; });
  return it == t.end() ? nullptr : &*it;
}

const FlagInfo* findFlag(const CommandInfo& command, std::string_view name) {
  const auto it = std::find_if(command.flags.begin(), command.flags.end(),
                               [&](const auto& f) { return f.name == name; });
  return it == command.flags.end() ? nullptr : &*it;
}

FlagSpec flagSpecOf(const CommandInfo& command) {
  FlagSpec spec;
  for (const auto& f : command.flags) {
    if (f.parsed) {
      (f.kind == ValueKind::None ? spec.switches : spec.valued).push_back(f.name);
    }
  }
  return spec;
}

std::string mainUsage() {
  std::string out =
      "usage: ingotctl COMMAND [flags] [-f PATH...]\n"
      "\n"
      "Runs Ingot's own decision code on manifest files (files, directories, or - for stdin).\n"
      "\n"
      "commands:\n";
  for (const auto& c : commandTable()) {
    out += "  " + c.name + std::string(c.name.size() < 16 ? 16 - c.name.size() : 1, ' ') +
           c.summary + "\n";
  }
  out +=
      "\n"
      "`ingotctl COMMAND --help` (or `ingotctl help COMMAND`) shows a command's flags.\n";
  return out;
}

std::string commandHelp(const CommandInfo& command) {
  std::string out = "usage: ingotctl " + command.name +
                    (command.synopsis.empty() ? "" : " " + command.synopsis) + "\n\n" +
                    command.description + "\n";
  if (command.files || !command.flags.empty()) {
    out += "\nflags:\n";
  }
  if (command.files) {
    flagLines(out, "-f, --filename PATH",
              "manifests: a YAML or JSON file, a directory (its .yaml, .yml and .json files, "
              "recursively), or - for stdin (repeatable)");
  }
  for (const auto& f : command.flags) {
    flagLines(out, flagLeft(f), f.help + (f.repeatable ? " (repeatable)" : ""));
  }
  flagLines(out, "-h, --help", "show this help");
  return out;
}

bool wantsHelp(const CommandInfo& command, const std::vector<std::string>& words) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--help" || w == "-h") {
      return true;
    }
    if (w == "-f" || w == "--filename") {
      ++i;
      continue;
    }
    const FlagInfo* f = nullptr;
    if (w.size() == 2 && w[0] == '-') {
      const auto it = std::find_if(command.flags.begin(), command.flags.end(),
                                   [&](const auto& g) { return g.short_name == w[1]; });
      f = it == command.flags.end() ? nullptr : &*it;
    } else if (w.rfind("--", 0) == 0 && w.find('=') == std::string::npos) {
      f = findFlag(command, w.substr(2));
    }
    if (f != nullptr && f->kind != ValueKind::None) {
      ++i;  // its value, whatever it looks like
    }
  }
  return false;
}

}  // namespace ingot::cli
