// SPDX-License-Identifier: Apache-2.0
// Layer2Backend's address conflict detection: which addresses are probed before they are
// answered, the members' MACs, the AddressConflict Events and the conflict metrics. The probes
// themselves run in the responder (agent/l2/responder_probe.cpp).
#include <algorithm>

#include "agent/backends/backend_l2.h"
#include "agent/core/member_meta.h"

namespace ingot::agent {

using daemon::MetricType;
using daemon::Sample;

std::vector<std::string> layer2Macs(const std::string& exclude_path) {
  auto facts = l2::scanInterfaces();
  if (!facts) {
    return {};
  }
  l2::ExcludeList exclude;
  if (!exclude_path.empty()) {
    if (auto loaded = l2::ExcludeList::load(exclude_path)) {
      exclude = std::move(*loaded);
    }
  }
  std::set<std::string> macs;
  for (const auto& i : l2::selectInterfaces(*facts, exclude)) {
    macs.insert(l2::formatMac(i.mac));
  }
  std::vector<std::string> out(macs.begin(), macs.end());
  if (out.size() > kMaxAdvertisedMacs) {
    out.resize(kMaxAdvertisedMacs);
  }
  return out;
}

std::vector<daemon::MetricFamily> conflictFamilies(const l2::ResponderStats& s) {
  daemon::MetricFamily conflicts{
      "ingot_agent_layer2_address_conflicts",
      "Addresses this node does not announce because another host answers for them (1 per "
      "address, labelled with the conflicting MAC and the interface it was seen on).",
      MetricType::Gauge,
      {}};
  for (const auto& [ip, probe] : s.probes) {
    if (probe.conflict) {
      conflicts.samples.push_back(Sample{{{"ip", ip.toString()},
                                          {"mac", l2::formatMac(probe.conflict->mac)},
                                          {"interface", probe.conflict->interface}},
                                         1});
    }
  }
  daemon::MetricFamily detected{"ingot_agent_layer2_address_conflicts_detected_total",
                                "Times an address was found in use by another host.",
                                MetricType::Counter,
                                {Sample{{}, static_cast<double>(s.conflicts_detected)}}};
  daemon::MetricFamily probes{"ingot_agent_layer2_probes_sent_total",
                              "ARP probes and DAD Neighbor Solicitations sent.",
                              MetricType::Counter,
                              {Sample{{}, static_cast<double>(s.probes_sent)}}};
  return {std::move(conflicts), std::move(detected), std::move(probes)};
}

bool Layer2Backend::needsProbe(const std::string& key,
                               const net::IpAddress& ip,
                               const std::map<std::string, std::vector<Seen>>& statuses) const {
  if (answered_before_.contains(ip)) {
    return false;  // this agent answered it before: a Service moving back, a restriction change
  }
  // A ServiceL2Status exists while some member answers (or answered until it died) for the
  // Service: a failover, which must not wait for probes.
  auto it = statuses.find(key);
  return it == statuses.end() || it->second.empty();
}

std::set<l2::Mac> Layer2Backend::memberMacs() const {
  std::set<l2::Mac> out;
  if (ctx_.options.live_nodes == nullptr) {
    return out;
  }
  for (const auto& [name, text] : ctx_.options.live_nodes->metadata()) {
    auto meta = parseMemberMeta(text);
    if (!meta) {
      continue;  // a MetalLB speaker's, or damaged
    }
    for (const auto& mac : meta->macs) {
      if (auto parsed = l2::parseMac(mac)) {
        out.insert(*parsed);
      }
    }
  }
  return out;
}

std::map<std::string, Layer2Backend::Applied> Layer2Backend::answeredOf(
    const std::map<std::string, Applied>& told, const l2::ResponderStats& stats) const {
  std::map<std::string, Applied> out;
  for (const auto& [key, ips] : told) {
    Applied answered;
    for (const auto& [ip, ifs] : ips) {
      if (!stats.probes.contains(ip)) {
        answered.emplace(ip, ifs);
      }
    }
    if (!answered.empty()) {
      out.emplace(key, std::move(answered));
    }
  }
  return out;
}

void Layer2Backend::recordConflictEvent(const net::IpAddress& ip,
                                        k8s::EventType type,
                                        const std::string& reason,
                                        const std::string& message) {
  for (const auto& [key, ips] : applied_) {
    if (ips.contains(ip)) {
      const L2Announcement& a = desired_.at(key);
      ctx_.events.record(serviceRef(a.service_namespace, a.service_name), type, reason, message);
    }
  }
}

void Layer2Backend::reportConflicts(const l2::ResponderStats& stats) {
  for (const auto& [ip, probe] : stats.probes) {
    auto seen = conflicts_.find(ip);
    if (!probe.conflict || (seen != conflicts_.end() && seen->second == *probe.conflict)) {
      continue;
    }
    conflicts_[ip] = *probe.conflict;
    const std::string mac = l2::formatMac(probe.conflict->mac);
    ctx_.log.warn("layer2", "address_conflict",
                  "another host answers for the address: not announcing it, probing again",
                  {{"ip", ip.toString()}, {"mac", mac}, {"interface", probe.conflict->interface}});
    recordConflictEvent(ip, k8s::EventType::Warning, "AddressConflict",
                        "address " + ip.toString() + " is in use by MAC " + mac +
                            " (seen on interface " + probe.conflict->interface + " of node \"" +
                            ctx_.options.node +
                            "\"): not announcing it; probing again with backoff up to 30s");
  }
  for (auto it = conflicts_.begin(); it != conflicts_.end();) {
    if (stats.probes.contains(it->first)) {
      ++it;  // in conflict until a probe round finds the address free
      continue;
    }
    const bool announced = std::any_of(applied_.begin(), applied_.end(),
                                       [&](const auto& a) { return a.second.contains(it->first); });
    if (announced) {
      ctx_.log.info("layer2", "address_conflict_cleared",
                    "no other host answers for the address any more: announcing it",
                    {{"ip", it->first.toString()}});
      recordConflictEvent(it->first, k8s::EventType::Normal, "AddressConflictCleared",
                          "address " + it->first.toString() +
                              " is free now: announcing it from node \"" + ctx_.options.node +
                              "\"");
    }
    it = conflicts_.erase(it);
  }
}

}  // namespace ingot::agent
