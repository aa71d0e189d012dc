// SPDX-License-Identifier: Apache-2.0
#include "cli/explain.h"

#include <algorithm>

#include "controller/core/pool_selection.h"
#include "controller/core/pool_space.h"
#include "controller/core/service_info.h"

namespace ingot::cli {
namespace {

std::string joinedIps(const std::vector<net::IpAddress>& ips) {
  std::string out;
  for (const auto& ip : ips) {
    out += (out.empty() ? "" : ",") + ip.toString();
  }
  return out;
}

/// automaticOrder lists the pools automatic allocation tries for the Service, in the
/// controller's order, as "name (priority N)" or "name".
std::vector<std::string> automaticOrder(const config::Config& config, const api::Service& svc) {
  std::vector<controller::PoolSpace> spaces;
  for (const auto& [name, pool] : config.pools) {
    spaces.emplace_back(pool);
  }
  std::vector<std::string> out;
  for (size_t i :
       controller::automaticPoolOrder(spaces, svc.metadata.namespace_, svc.metadata.labels)) {
    const auto& pool = spaces[i].pool();
    const int32_t priority = pool.allocation ? pool.allocation->priority : 0;
    out.push_back(pool.name + (priority > 0      ? " (priority " + std::to_string(priority) + ")"
                               : pool.allocation ? " (serviceAllocation admits it)"
                                                 : ""));
  }
  return out;
}

PoolChoice poolChoice(const ExplainInputs& in) {
  PoolChoice c;
  c.pool = in.outcome->pool;
  const auto& original = *in.original;
  const std::string annotated =
      controller::annotationValue(original.metadata.annotations, controller::kAnnotationAddressPool,
                                  controller::kLegacyAnnotationAddressPool);
  auto requested = controller::requestedIps(original);
  if (in.outcome->ips.empty()) {
    c.source = "none";
    c.detail = "no address assigned (see the events)";
  } else if (!annotated.empty()) {
    c.source = "annotation";
    c.detail = "metallb.io/address-pool: " + annotated;
  } else if (requested && !requested->ips.empty()) {
    c.source = "requestedIPs";
    c.detail =
        "the Service asks for " + joinedIps(requested->ips) + ", which pool " + c.pool + " holds";
  } else if (!controller::statusIps(original).empty()) {
    c.source = "existing";
    c.detail = "the Service already had these addresses and the controller keeps them";
  } else {
    c.source = "automatic";
    c.order = automaticOrder(*in.config, original);
    c.detail = "first pool in the automatic order with a free address";
  }
  return c;
}

}  // namespace

Explanation explainService(const ExplainInputs& in) {
  Explanation e;
  const auto& svc = *in.service;
  e.service = svc.metadata.namespace_ + "/" + svc.metadata.name;
  e.ips = in.outcome->ips;
  e.events = in.outcome->events;
  e.pool = poolChoice(in);
  e.dead_nodes.assign(in.dead_nodes.begin(), in.dead_nodes.end());
  e.suspect_nodes.assign(in.suspect_nodes.begin(), in.suspect_nodes.end());
  auto verdicts = agent::serviceVerdicts(
      {in.config, in.nodes, in.slices, in.service, in.announce, in.dead_nodes});
  e.gate = std::move(verdicts.gate);
  e.l2_pool = verdicts.l2_pool;
  e.bgp_pool = verdicts.bgp_pool;
  e.l2 = std::move(verdicts.l2);
  e.nodes = std::move(verdicts.nodes);
  if (in.interfaces != nullptr && e.l2) {
    std::vector<std::string> names;
    for (const auto& n : e.nodes) {
      names.push_back(n.node);
    }
    e.l2_interfaces =
        l2AnsweringOf(*in.config, svc, *in.slices, in.announce, names, *in.interfaces);
  }
  return e;
}

}  // namespace ingot::cli
