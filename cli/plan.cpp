// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/converge.h"
#include "cli/workspace.h"
#include "common/json/json.h"

namespace ingot::cli {
namespace {

using controller::PlanResult;
using controller::ServiceOutcome;

/// shown reports whether plan lists the outcome: LoadBalancer Services this controller handles.
bool shown(const ServiceOutcome& s) {
  return s.load_balancer && !s.ignored;
}

std::string joined(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) {
    out += (out.empty() ? "" : sep) + s;
  }
  return out;
}

json::Value exactNumber(const net::Count& v) {
  return json::Value::numberText(v.toString());
}

std::string planJson(const PlanResult& plan) {
  json::Value services = json::Value::array();
  for (const auto& s : plan.services) {
    if (!shown(s)) {
      continue;
    }
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
    services.push(std::move(o));
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

void planTable(std::ostream& out, const PlanResult& plan) {
  std::vector<std::vector<std::string>> rows = {{"SERVICE", "ADDRESSES", "POOL", "EVENTS"}};
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
                    s.pool.empty() ? "-" : s.pool, events.empty() ? "-" : joined(events, "; ")});
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
  auto args = parseArgs(words, FlagSpec{{"lb-class", "output", "namespace", "backend"}, {}});
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
      loadWorkspace(args->files, {args->option("namespace", "metallb-system"), *backend});
  for (const auto& note : ws.notes) {
    err << "note: " << note << "\n";
  }
  if (!ws.problems.empty() || !ws.parsed.config) {
    for (const auto& p : ws.problems) {
      out << formatProblem(p) << "\n";
    }
    return kExitInvalid;
  }
  std::vector<api::Service> services = ws.services;
  auto plan =
      convergeServices(*ws.parsed.config, services, controller::Options{args->option("lb-class")});
  if (!plan) {
    err << "ingotctl plan: " << plan.error().message << "\n";
    return kExitInvalid;
  }
  if (output == "json") {
    out << planJson(*plan) << "\n";
  } else {
    planTable(out, *plan);
  }
  return kExitOk;
}

}  // namespace ingot::cli
