// SPDX-License-Identifier: Apache-2.0
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/command_table.h"
#include "cli/commands.h"
#include "cli/workspace.h"
#include "common/json/json.h"

namespace ingot::cli {
namespace {

std::string problemsJson(const std::vector<Problem>& problems) {
  json::Value arr = json::Value::array();
  for (const auto& p : problems) {
    json::Value o = json::Value::object();
    o.set("file", json::Value::string(p.pos.file));
    o.set("line", json::Value::number(static_cast<int64_t>(p.pos.line)));
    o.set("kind", json::Value::string(p.kind));
    o.set("namespace", json::Value::string(p.namespace_));
    o.set("name", json::Value::string(p.name));
    o.set("field", json::Value::string(p.field));
    o.set("message", json::Value::string(p.message));
    o.set("transient", json::Value::boolean(p.transient));
    json::Value nodes = json::Value::array();  // empty: every node (or not an agent's problem)
    for (const auto& n : p.nodes) nodes.push(json::Value::string(n));
    o.set("nodes", std::move(nodes));
    arr.push(std::move(o));
  }
  return json::write(arr, json::Style::Pretty);
}

}  // namespace

int runValidate(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  auto args = parseArgs(words, flagSpecOf(*findCommand("validate")));
  if (!args) {
    err << "ingotctl validate: " << args.error().message << "\n";
    return kExitUsage;
  }
  const std::string output = args->option("output", "text");
  if (auto ok = checkChoice("output", output, {"text", "json"}); !ok) {
    err << "ingotctl validate: " << ok.error().message << "\n";
    return kExitUsage;
  }
  auto backend = parseBackend(args->option("backend", "frr-k8s"));
  if (!backend) {
    err << "ingotctl validate: " << backend.error().message << "\n";
    return kExitUsage;
  }
  if (args->files.empty()) {
    err << "ingotctl validate: no input: give -f PATH (a file, a directory, or - for stdin)\n";
    return kExitUsage;
  }
  const Workspace ws =
      loadWorkspace(args->files, {args->option("namespace", "metallb-system"), *backend, ""});
  for (const auto& note : ws.notes) {
    err << "note: " << note << "\n";
  }
  for (const auto& w : ws.warnings) {
    err << "warning: " << formatProblem(w) << "\n";
  }
  if (output == "json") {
    out << problemsJson(ws.problems) << "\n";
  } else if (ws.problems.empty()) {
    out << "valid: " << ws.objects.size() << " objects\n";
  } else {
    for (const auto& p : ws.problems) {
      out << formatProblem(p) << "\n";
    }
  }
  return ws.problems.empty() ? kExitOk : kExitInvalid;
}

}  // namespace ingot::cli
