// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "agent/core/election.h"
#include "cli/args.h"
#include "cli/command_table.h"
#include "cli/commands.h"
#include "cli/converge.h"
#include "cli/l2_interfaces.h"
#include "cli/workspace.h"
#include "common/json/json.h"

namespace ingot::cli {
namespace {

using controller::PlanResult;
using controller::ServiceOutcome;

/// L2Plan maps "namespace/name" to the Layer 2 election of every Service in a pool with an
/// L2Advertisement.
using L2Plan = std::map<std::string, agent::L2Election>;

std::string keyOf(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

/// electL2All runs the agent's decideL2 for every converged Service, with every Node of the
/// input counted as a live agent. Services outside L2 pools (or without an address) are left out.
L2Plan electL2All(const config::Config& config,
                  const Workspace& ws,
                  const std::vector<api::Service>& services,
                  const Args& args) {
  agent::AnnounceOptions options;
  options.lb_class = args.option("lb-class");
  options.ignore_exclude_lb = args.hasSwitch("ignore-exclude-lb");
  std::set<std::string> live;
  for (const auto& n : ws.inputs.nodes) {
    live.insert(n.metadata.name);
  }
  const auto membership = agent::l2Membership(ws.inputs.nodes, live, options.ignore_exclude_lb);
  agent::L2Hasher hasher;
  L2Plan out;
  for (const auto& svc : services) {
    // The election does not depend on the node asking; "" is no node's name.
    auto d = agent::decideL2(config, "", svc, ws.endpoint_slices, membership, options, hasher);
    if (!d.gate && d.l2_pool) {
      out.emplace(keyOf(svc.metadata.namespace_, svc.metadata.name), std::move(d.election));
    }
  }
  return out;
}

/// L2Answers maps "namespace/name" to where its L2 winner answers (winners given --interfaces).
using L2Answers = std::map<std::string, L2Answering>;

/// answersAll decides where each winner of l2 answers, for the winners --interfaces names.
L2Answers answersAll(const config::Config& config,
                     const Workspace& ws,
                     const std::vector<api::Service>& services,
                     const L2Plan& l2,
                     const Args& args,
                     const InterfaceFlags& flags) {
  const agent::AnnounceOptions options{
      args.hasSwitch("ignore-exclude-lb"), args.option("lb-class"), {}};
  L2Answers out;
  for (const auto& svc : services) {
    const std::string key = keyOf(svc.metadata.namespace_, svc.metadata.name);
    const auto it = l2.find(key);
    if (it == l2.end() || !it->second.winner) {
      continue;
    }
    auto a = l2AnsweringOf(config, svc, ws.endpoint_slices, options, {*it->second.winner}, flags);
    if (!a.empty()) {
      out.emplace(key, std::move(a.begin()->second));
    }
  }
  return out;
}

json::Value l2Json(const agent::L2Election& e) {
  json::Value o = json::Value::object();
  o.set("winner", e.winner ? json::Value::string(*e.winner) : json::Value::null());
  o.set("reason", json::Value::string(std::string(agent::l2ReasonName(e.reason))));
  json::Value candidates = json::Value::array();
  for (const auto& c : e.candidates) {
    candidates.push(json::Value::string(c));
  }
  o.set("candidates", std::move(candidates));
  return o;
}

/// l2Cell is the table's L2-WINNER column: the winner, "(none: reason)", or "-" outside L2 pools.
std::string l2Cell(const L2Plan& l2, const L2Answers& answers, const ServiceOutcome& s) {
  const std::string key = keyOf(s.namespace_, s.name);
  auto it = l2.find(key);
  if (it == l2.end()) {
    return "-";
  }
  const auto& e = it->second;
  if (const auto a = answers.find(key); e.winner && a != answers.end()) {
    return *e.winner + " " + answeringText(a->second);
  }
  return e.winner ? *e.winner : "(none: " + std::string(agent::l2ReasonName(e.reason)) + ")";
}

/// shown reports whether plan lists the outcome: LoadBalancer Services this controller handles.
bool shown(const ServiceOutcome& s) {
  return s.load_balancer && !s.ignored;
}

json::Value exactNumber(const net::Count& v) {
  return json::Value::numberText(v.toString());
}

/// serviceJson is one Service of plan's JSON, with its "l2" object when it has one.
json::Value serviceJson(const ServiceOutcome& s, const L2Plan& l2, const L2Answers& answers) {
  json::Value o = json::Value::object();
  o.set("namespace", json::Value::string(s.namespace_));
  o.set("name", json::Value::string(s.name));
  json::Value ips = json::Value::array();
  for (const auto& ip : s.ips) {
    ips.push(json::Value::string(ip));
  }
  o.set("ips", std::move(ips));
  o.set("pool", json::Value::string(s.pool));
  json::Value events = json::Value::array();
  for (const auto& e : s.events) {
    json::Value ev = json::Value::object();
    ev.set("type", json::Value::string(std::string(controller::eventTypeName(e.type))));
    ev.set("reason", json::Value::string(e.reason));
    ev.set("message", json::Value::string(e.message));
    events.push(std::move(ev));
  }
  o.set("events", std::move(events));
  if (auto it = l2.find(keyOf(s.namespace_, s.name)); it != l2.end()) {
    json::Value l2o = l2Json(it->second);
    if (auto a = answers.find(keyOf(s.namespace_, s.name)); a != answers.end()) {
      l2o.set("interfaces", answeringJson(a->second));
    }
    o.set("l2", std::move(l2o));
  }
  return o;
}

std::string planJson(const PlanResult& plan, const L2Plan& l2, const L2Answers& answers) {
  json::Value services = json::Value::array();
  for (const auto& s : plan.services) {
    if (shown(s)) {
      services.push(serviceJson(s, l2, answers));
    }
  }
  json::Value pools = json::Value::array();
  for (const auto& p : plan.pools) {
    json::Value o = json::Value::object();
    o.set("name", json::Value::string(p.pool));
    o.set("assignedIPv4", exactNumber(p.assigned_v4));
    o.set("assignedIPv6", exactNumber(p.assigned_v6));
    o.set("availableIPv4", exactNumber(p.availableV4()));
    o.set("availableIPv6", exactNumber(p.availableV6()));
    pools.push(std::move(o));
  }
  json::Value root = json::Value::object();
  root.set("services", std::move(services));
  root.set("pools", std::move(pools));
  return json::write(root, json::Style::Pretty);
}

/// printTable writes rows as left-aligned columns separated by two spaces.
void printTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) {
      width[i] = std::max(width[i], row[i].size());
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) {
        line += std::string(width[i] - row[i].size() + 2, ' ');
      }
    }
    out << line << "\n";
  }
}

void planTable(std::ostream& out,
               const PlanResult& plan,
               const L2Plan& l2,
               const L2Answers& answers) {
  std::vector<std::vector<std::string>> rows = {
      {"SERVICE", "ADDRESSES", "POOL", "L2-WINNER", "EVENTS"}};
  for (const auto& s : plan.services) {
    if (!shown(s)) {
      continue;
    }
    std::vector<std::string> events;
    for (const auto& e : s.events) {
      events.push_back(std::string(controller::eventTypeName(e.type)) + " " + e.reason + ": " +
                       e.message);
    }
    rows.push_back({s.namespace_ + "/" + s.name, s.ips.empty() ? "<pending>" : joined(s.ips, ","),
                    s.pool.empty() ? "-" : s.pool, l2Cell(l2, answers, s),
                    events.empty() ? "-" : joined(events, "; ")});
  }
  printTable(out, rows);
  out << "\n";
  rows = {{"POOL", "ASSIGNED-IPV4", "AVAILABLE-IPV4", "ASSIGNED-IPV6", "AVAILABLE-IPV6"}};
  for (const auto& p : plan.pools) {
    rows.push_back({p.pool, net::u128ToString(p.assigned_v4), p.availableV4().toString(),
                    net::u128ToString(p.assigned_v6), p.availableV6().toString()});
  }
  printTable(out, rows);
}

}  // namespace

int runPlan(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  auto args = parseArgs(words, flagSpecOf(*findCommand("plan")));
  if (!args) {
    err << "ingotctl plan: " << args.error().message << "\n";
    return kExitUsage;
  }
  const std::string output = args->option("output", "table");
  if (auto ok = checkChoice("output", output, {"table", "json"}); !ok) {
    err << "ingotctl plan: " << ok.error().message << "\n";
    return kExitUsage;
  }
  auto backend = parseBackend(args->option("backend", "frr-k8s"));
  if (!backend || args->files.empty()) {
    err << "ingotctl plan: "
        << (backend ? "no input: give -f PATH (a file, a directory, or - for stdin)"
                    : backend.error().message)
        << "\n";
    return kExitUsage;
  }
  const Workspace ws =
      loadWorkspace(args->files, {args->option("namespace", "metallb-system"), *backend, ""});
  for (const auto& note : ws.notes) {
    err << "note: " << note << "\n";
  }
  if (!ws.problems.empty() || !ws.parsed.config) {
    for (const auto& p : ws.problems) {
      out << formatProblem(p) << "\n";
    }
    return kExitInvalid;
  }
  auto interfaces = interfaceFlags(*args, ws.inputs.nodes);
  if (!interfaces) {
    err << "ingotctl plan: " << interfaces.error().message << "\n";
    return kExitUsage;
  }
  std::vector<api::Service> services = ws.services;
  auto plan =
      convergeServices(*ws.parsed.config, services, controller::Options{args->option("lb-class")});
  if (!plan) {
    err << "ingotctl plan: " << plan.error().message << "\n";
    return kExitInvalid;
  }
  const L2Plan l2 = electL2All(*ws.parsed.config, ws, services, *args);
  const L2Answers answers = answersAll(*ws.parsed.config, ws, services, l2, *args, *interfaces);
  if (output == "json") {
    out << planJson(*plan, l2, answers) << "\n";
  } else {
    planTable(out, *plan, l2, answers);
  }
  return kExitOk;
}

}  // namespace ingot::cli
