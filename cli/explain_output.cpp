// SPDX-License-Identifier: Apache-2.0
// `ingotctl explain`: loading, text and JSON output of the explanation.
#include <algorithm>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/converge.h"
#include "cli/explain.h"
#include "cli/workspace.h"
#include "common/json/json.h"
#include "frrgen/build.h"

namespace ingot::cli {
namespace {

using json::Value;

Value strings(const std::vector<std::string>& v) {
  Value a = Value::array();
  for (const auto& s : v) {
    a.push(Value::string(s));
  }
  return a;
}

Value orNull(const std::string& s) {
  return s.empty() ? Value::null() : Value::string(s);
}

std::vector<std::string> communities(const agent::Announcement& a) {
  std::vector<std::string> out;
  for (const auto& c : a.communities) {
    out.push_back(frrgen::communityText(c));
  }
  return out;
}

Value announcementJson(const agent::Announcement& a) {
  Value o = Value::object();
  o.set("prefix", Value::string(a.prefix.toString()));
  o.set("aggregationLength", Value::number(static_cast<int64_t>(a.prefix.prefixLength())));
  o.set("advertisement", Value::string(a.advertisement));
  o.set("localPref",
        a.local_pref == 0 ? Value::null() : Value::number(static_cast<int64_t>(a.local_pref)));
  o.set("communities", strings(communities(a)));
  o.set("peers", strings(a.peers));
  // The link-bandwidth value of endpoint-weighted ECMP (docs/weighted-ecmp.md), null unweighted.
  o.set("weight",
        a.bandwidth == 0 ? Value::null() : Value::number(static_cast<int64_t>(a.bandwidth)));
  return o;
}

bool suspect(const Explanation& e, const std::string& node) {
  return std::find(e.suspect_nodes.begin(), e.suspect_nodes.end(), node) != e.suspect_nodes.end();
}

/// answering returns where the node would answer, when --interfaces names it and it is an L2
/// candidate.
const L2Answering* answering(const Explanation& e, const NodeExplanation& n) {
  const auto it = e.l2_interfaces.find(n.node);
  return it == e.l2_interfaces.end() || !n.l2_rank ? nullptr : &it->second;
}

Value nodeJson(const Explanation& e, const NodeExplanation& n) {
  Value o = Value::object();
  o.set("name", Value::string(n.node));
  o.set("live", Value::boolean(n.live));
  o.set("suspect", Value::boolean(suspect(e, n.node)));
  o.set("draining", orNull(n.drain));
  Value bgp = Value::object();
  bgp.set("announced", Value::boolean(n.live && n.bgp.announced()));
  bgp.set("reason", orNull(n.bgp_reason));
  Value anns = Value::array();
  for (const auto& a : n.bgp.announcements) {
    anns.push(announcementJson(a));
  }
  bgp.set("announcements", n.live ? std::move(anns) : Value::array());
  o.set("bgp", std::move(bgp));
  if (e.l2) {
    Value l2 = Value::object();
    l2.set("owner", Value::boolean(n.l2_owner));
    l2.set("reason", orNull(n.l2_reason));
    l2.set("rank", n.l2_rank ? Value::number(static_cast<int64_t>(*n.l2_rank)) : Value::null());
    l2.set("excluded", orNull(n.l2_exclusion));
    const L2Answering* a = answering(e, n);
    l2.set("interfaces", a != nullptr ? answeringJson(*a) : Value::null());
    o.set("l2", std::move(l2));
  }
  return o;
}

Value livenessJson(const ExplainLiveness& l) {
  Value nodes = Value::array();
  for (const auto& [name, n] : l.nodes) {
    Value o = Value::object();
    o.set("name", Value::string(name));
    o.set("alive", Value::boolean(n.alive));
    o.set("state", Value::string(n.state));
    o.set("agentPod", orNull(n.agent_pod));
    o.set("configurationState", orNull(n.configuration_state));
    o.set("configurationError", orNull(n.configuration_error));
    o.set("serviceL2Status", Value::boolean(n.observed_l2));
    o.set("serviceBGPStatusPeers", n.observed_bgp ? strings(n.observed_bgp_peers) : Value::null());
    nodes.push(std::move(o));
  }
  Value o = Value::object();
  o.set("source", Value::string(l.source));
  o.set("detail", Value::string(l.detail));
  o.set("nodes", std::move(nodes));
  return o;
}

Value poolJson(const PoolChoice& p) {
  Value o = Value::object();
  o.set("name", orNull(p.pool));
  o.set("source", Value::string(p.source));
  o.set("detail", Value::string(p.detail));
  o.set("automaticOrder", strings(p.order));
  return o;
}

Value eventsJson(const std::vector<controller::Event>& events) {
  Value a = Value::array();
  for (const auto& ev : events) {
    Value o = Value::object();
    o.set("type", Value::string(std::string(controller::eventTypeName(ev.type))));
    o.set("reason", Value::string(ev.reason));
    o.set("message", Value::string(ev.message));
    a.push(std::move(o));
  }
  return a;
}

Value l2ElectionJson(const agent::L2Election& l2) {
  Value o = Value::object();
  o.set("winner", l2.winner ? Value::string(*l2.winner) : Value::null());
  o.set("reason", orNull(std::string(agent::l2ReasonName(l2.reason))));
  o.set("candidates", strings(l2.candidates));
  return o;
}

std::string bgpLine(const NodeExplanation& n) {
  if (!n.live || !n.bgp.announced()) {
    return "not announced: " + n.bgp_reason;
  }
  std::vector<std::string> parts;
  for (const auto& a : n.bgp.announcements) {
    std::string s = a.prefix.toString() + " via " + a.advertisement;
    if (a.local_pref != 0) {
      s += ", localPref " + std::to_string(a.local_pref);
    }
    if (!a.communities.empty()) {
      s += ", communities " + joined(communities(a), " ");
    }
    if (a.bandwidth != 0) {
      s += ", weight " + std::to_string(a.bandwidth);
    }
    parts.push_back(s + (a.peers.empty() ? ", to no peer" : ", to " + joined(a.peers, ",")));
  }
  return "announced " + joined(parts, "; ");
}

std::string l2Line(const Explanation& e, const NodeExplanation& n) {
  const L2Answering* a = answering(e, n);
  if (n.l2_owner) {
    return "owner (candidate #1)" + (a != nullptr ? ", answering " + answeringText(*a) : "");
  }
  std::string s = "not owner: " + n.l2_reason;
  if (n.l2_rank) {
    s += " (candidate #" + std::to_string(*n.l2_rank + 1) + ")";
    s += a != nullptr ? ", would answer " + answeringText(*a) : "";
  } else if (!n.l2_exclusion.empty()) {
    s += " (excluded: " + n.l2_exclusion + ")";
  }
  return s;
}

/// livenessLine says where liveness came from and which nodes are not alive.
std::string livenessLine(const Explanation& e) {
  if (e.liveness.source == "deadNodeFlags") {
    return "  liveness: every Node has a live agent" +
           (e.dead_nodes.empty() ? ""
                                 : " except " + joined(e.dead_nodes, ", ") + " (--dead-node)") +
           (e.suspect_nodes.empty() ? ""
                                    : "; memberlist suspects " + joined(e.suspect_nodes, ", ") +
                                          ", still live until declared dead (--suspect-node)");
  }
  return "  liveness (source " + e.liveness.source + "): " + e.liveness.detail +
         (e.dead_nodes.empty() ? "" : "; not alive: " + joined(e.dead_nodes, ", "));
}

/// apiLine is what the cluster's API shows about a node's agent.
std::string apiLine(const NodeLiveness& n) {
  std::string s = "agent " + n.state + (n.agent_pod.empty() ? "" : " (pod " + n.agent_pod + ")");
  s += "; ConfigurationState " + (n.configuration_state.empty() ? "none" : n.configuration_state);
  if (!n.configuration_error.empty()) {
    s += " (" + n.configuration_error + ")";
  }
  s += n.observed_l2 ? "; ServiceL2Status names it" : "";
  if (n.observed_bgp) {
    s += "; ServiceBGPStatus peers: " +
         (n.observed_bgp_peers.empty() ? "none" : joined(n.observed_bgp_peers, ","));
  }
  return s;
}

void headerText(std::ostream& out, const Explanation& e) {
  out << "Service " << e.service << "\n";
  out << "  addresses: " << (e.ips.empty() ? "<pending>" : joined(e.ips, ", ")) << "\n";
  out << "  pool: " << (e.pool.pool.empty() ? "-" : e.pool.pool) << " (" << e.pool.source << ": "
      << e.pool.detail << ")\n";
  if (!e.pool.order.empty()) {
    out << "  automatic order: " << joined(e.pool.order, ", ") << "\n";
  }
  for (const auto& ev : e.events) {
    out << "  event: " << controller::eventTypeName(ev.type) << " " << ev.reason << ": "
        << ev.message << "\n";
  }
  out << livenessLine(e) << "\n";
}

}  // namespace

void explainText(std::ostream& out, const Explanation& e) {
  headerText(out, e);
  if (!e.gate.empty()) {
    out << "  not announced by any node: " << e.gate << "\n";
    return;
  }
  if (!e.bgp_pool && !e.l2_pool) {
    out << "  no BGPAdvertisement or L2Advertisement applies to pool " << e.pool.pool << "\n";
  }
  if (e.l2) {
    out << "  L2 election: "
        << (e.l2->winner ? "owner " + *e.l2->winner
                         : "no owner: " + std::string(agent::l2ReasonName(e.l2->reason)))
        << "; candidate order: "
        << (e.l2->candidates.empty() ? "(none)" : joined(e.l2->candidates, ", ")) << "\n";
  }
  for (const auto& n : e.nodes) {
    out << "node " << n.node
        << (!n.live              ? " (agent not alive)"
            : suspect(e, n.node) ? " (agent suspect: still live)"
                                 : "")
        << (n.drain.empty() ? "" : " (draining: " + n.drain + ")") << "\n";
    if (e.bgp_pool) {
      out << "  BGP: " << bgpLine(n) << "\n";
    }
    if (e.l2) {
      out << "  L2:  " << l2Line(e, n) << "\n";
    }
    if (const auto it = e.liveness.nodes.find(n.node); it != e.liveness.nodes.end()) {
      out << "  API: " << apiLine(it->second) << "\n";
    }
  }
}

std::string explainJson(const Explanation& e) {
  Value root = Value::object();
  root.set("service", Value::string(e.service));
  root.set("ips", strings(e.ips));
  root.set("pool", poolJson(e.pool));
  root.set("events", eventsJson(e.events));
  root.set("deadNodes", strings(e.dead_nodes));
  root.set("suspectNodes", strings(e.suspect_nodes));
  root.set("liveness", livenessJson(e.liveness));
  root.set("gate", orNull(e.gate));
  root.set("bgpPool", Value::boolean(e.bgp_pool));
  root.set("l2", e.l2 ? l2ElectionJson(*e.l2) : Value::null());
  Value nodes = Value::array();
  for (const auto& n : e.nodes) {
    nodes.push(nodeJson(e, n));
  }
  root.set("nodes", std::move(nodes));
  return json::write(root, json::Style::Pretty);
}

}  // namespace ingot::cli
