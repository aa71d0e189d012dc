// SPDX-License-Identifier: Apache-2.0
#include "cli/l2_interfaces.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "cli/commands.h"

namespace ingot::cli {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) {
    out.push_back(trimmed(part));
  }
  return out;
}

Result<void> parseItem(const std::string& item, NodeInterfaces& out) {
  const auto eq = item.find('=');
  const std::string node = eq == std::string::npos ? "" : trimmed(item.substr(0, eq));
  if (node.empty()) {
    return invalidArgument("--interfaces \"" + item + "\": want NODE=IF[,IF...]");
  }
  auto& ifs = out[node];
  for (const auto& name : split(item.substr(eq + 1), ',')) {
    if (name.empty()) {
      return invalidArgument("--interfaces \"" + item + "\": an empty interface name");
    }
    if (std::find(ifs.begin(), ifs.end(), name) == ifs.end()) {
      ifs.push_back(name);
    }
  }
  if (ifs.empty()) {
    return invalidArgument("--interfaces \"" + item + "\": no interface for node " + node);
  }
  return {};
}

json::Value stringArray(const std::vector<std::string>& v) {
  json::Value a = json::Value::array();
  for (const auto& s : v) {
    a.push(json::Value::string(s));
  }
  return a;
}

}  // namespace

Result<NodeInterfaces> parseNodeInterfaces(const std::vector<std::string>& values) {
  NodeInterfaces out;
  for (const auto& value : values) {
    for (const auto& item : split(value, ';')) {
      if (item.empty()) {
        continue;  // "a=x;" or ";;"
      }
      if (auto ok = parseItem(item, out); !ok) {
        return ok.error();
      }
    }
  }
  return out;
}

Result<InterfaceFlags> interfaceFlags(const Args& args, const std::vector<api::Node>& nodes) {
  InterfaceFlags flags;
  auto parsed = parseNodeInterfaces(args.values("interfaces"));
  if (!parsed) {
    return parsed.error();
  }
  flags.nodes = std::move(*parsed);
  for (const auto& entry : flags.nodes) {
    const std::string& name = entry.first;
    if (std::none_of(nodes.begin(), nodes.end(),
                     [&](const api::Node& n) { return n.metadata.name == name; })) {
      return invalidArgument("--interfaces " + name + ": no Node of that name in the input");
    }
  }
  const std::string path = args.option("excludel2-path");
  if (path.empty()) {
    return flags;
  }
  std::ifstream in(path);
  if (!in) {
    return invalidArgument("--excludel2-path " + path + ": cannot read the file");
  }
  std::stringstream text;
  text << in.rdbuf();
  auto exclude = agent::l2::ExcludeList::parse(text.str(), path);
  if (!exclude) {
    return invalidArgument("--excludel2-path " + exclude.error().message);
  }
  flags.exclude = std::move(*exclude);
  return flags;
}

L2Answering l2Answering(const agent::L2Subject& subject,
                        const std::string& node,
                        const std::vector<std::string>& interfaces,
                        const agent::l2::ExcludeList& exclude) {
  L2Answering a;
  a.named = agent::l2Interfaces(subject, node);
  // The names stand for the interfaces the agent's scan keeps (up, not enslaved, ARP-capable):
  // only the exclude list is left to apply.
  std::vector<agent::l2::AnnounceInterface> usable;
  for (const auto& name : interfaces) {
    if (exclude.excludes(name)) {
      a.excluded.push_back(name);
    } else {
      usable.push_back(agent::l2::AnnounceInterface{name});
    }
  }
  const auto r = agent::l2::restrictInterfaces(usable, a.named);
  for (const auto& i : r.selected) {
    a.answered.push_back(i.name);
  }
  a.missing = r.missing;
  a.failed = r.noneExist();
  return a;
}

std::map<std::string, L2Answering> l2AnsweringOf(const config::Config& config,
                                                 const api::Service& service,
                                                 const std::vector<api::EndpointSlice>& slices,
                                                 const agent::AnnounceOptions& options,
                                                 const std::vector<std::string>& nodes,
                                                 const InterfaceFlags& flags) {
  std::map<std::string, L2Answering> out;
  agent::L2Decision d;
  if (!flags.given() || !agent::prepareL2(config, service, slices, options, d) || !d.l2_pool) {
    return out;
  }
  for (const auto& node : nodes) {
    if (auto it = flags.nodes.find(node); it != flags.nodes.end()) {
      out.emplace(node, l2Answering(d.subject, node, it->second, flags.exclude));
    }
  }
  return out;
}

std::string answeringText(const L2Answering& a) {
  const std::string excluded =
      a.excluded.empty() ? "" : " (excluded: " + joined(a.excluded, ",") + ")";
  if (!a.answered.empty()) {
    return "on " + joined(a.answered, ",") +
           (a.missing.empty() ? "" : "; named but not usable: " + joined(a.missing, ",")) +
           excluded;
  }
  if (a.failed) {
    return "on no interface: the L2Advertisements name " + joined(a.missing, ",") +
           ", not usable on the node" + excluded + ": Warning announceFailed";
  }
  if (a.named && a.named->empty()) {
    return "on no interface: no L2Advertisement selects the node";
  }
  return "on no interface: every given interface is excluded";
}

json::Value answeringJson(const L2Answering& a) {
  json::Value o = json::Value::object();
  o.set("named", a.named ? stringArray({a.named->begin(), a.named->end()}) : json::Value::null());
  o.set("answered", stringArray(a.answered));
  o.set("excluded", stringArray(a.excluded));
  o.set("missing", stringArray(a.missing));
  o.set("announceFailed", json::Value::boolean(a.failed));
  return o;
}

}  // namespace ingot::cli
