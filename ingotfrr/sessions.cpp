// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/sessions.h"

#include <charconv>

#include "common/json/json.h"

namespace ingot::ingotfrr {
namespace {

using daemon::MetricFamily;
using daemon::MetricType;

uint64_t number(const json::Value* v) {
  uint64_t out = 0;
  if (v != nullptr && v->isNumber()) {
    std::from_chars(v->text().data(), v->text().data() + v->text().size(), out);
  }
  return out;
}

std::string text(const json::Value* v) {
  return v != nullptr && v->isString() ? v->text() : "";
}

BgpSession readNeighbor(const std::string& peer, const std::string& vrf, const json::Value& n) {
  BgpSession s{peer, vrf, text(n.find("bgpState")) == "Established", 0, 0, 0};
  if (const json::Value* stats = n.find("messageStats"); stats != nullptr && stats->isObject()) {
    s.updates_sent = number(stats->find("updatesSent"));
  }
  if (const json::Value* afs = n.find("addressFamilyInfo"); afs != nullptr && afs->isObject()) {
    for (const auto& af : afs->items()) {
      if (af.isObject()) {
        s.announced += number(af.find("sentPrefixCounter"));
        s.received += number(af.find("acceptedPrefixCounter"));
      }
    }
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> labels(const std::string& peer,
                                                        const std::string& vrf) {
  return {{"peer", peer}, {"vrf", vrf}};
}

}  // namespace

std::vector<BgpSession> parseBgpNeighbors(std::string_view json) {
  std::vector<BgpSession> out;
  auto tree = json::parse(json);
  if (!tree || !tree->isObject()) {
    return out;
  }
  for (size_t i = 0; i < tree->size(); ++i) {
    const json::Value& vrf = tree->items()[i];
    if (!vrf.isObject()) {
      continue;
    }
    std::string name = text(vrf.find("vrfName"));
    if (name.empty()) {
      name = tree->keys()[i];
    }
    for (size_t j = 0; j < vrf.size(); ++j) {
      const json::Value& n = vrf.items()[j];
      if (n.isObject() && n.find("bgpState") != nullptr) {
        out.push_back(readNeighbor(vrf.keys()[j], name, n));
      }
    }
  }
  return out;
}

std::vector<BfdSession> parseBfdPeers(std::string_view json) {
  std::vector<BfdSession> out;
  auto tree = json::parse(json);
  if (!tree || !tree->isArray()) {
    return out;
  }
  for (const auto& p : tree->items()) {
    if (p.isObject() && p.find("peer") != nullptr) {
      out.push_back({text(p.find("peer")), text(p.find("vrf")), text(p.find("status")) == "up"});
    }
  }
  return out;
}

std::vector<MetricFamily> sessionFamilies(const std::vector<BgpSession>& bgp,
                                          const std::vector<BfdSession>& bfd) {
  MetricFamily up{
      "frrk8s_bgp_session_up", "BGP session state (1 is up, 0 is down)", MetricType::Gauge, {}};
  MetricFamily announced{"frrk8s_bgp_announced_prefixes_total",
                         "Number of prefixes currently being advertised on the BGP session",
                         MetricType::Gauge,
                         {}};
  MetricFamily received{"frrk8s_bgp_received_prefixes_total",
                        "Number of prefixes currently being received on the BGP session",
                        MetricType::Gauge,
                        {}};
  MetricFamily updates{
      "frrk8s_bgp_updates_total", "Number of BGP UPDATE messages sent", MetricType::Counter, {}};
  for (const auto& s : bgp) {
    up.samples.push_back({labels(s.peer, s.vrf), s.established ? 1.0 : 0.0});
    announced.samples.push_back({labels(s.peer, s.vrf), static_cast<double>(s.announced)});
    received.samples.push_back({labels(s.peer, s.vrf), static_cast<double>(s.received)});
    updates.samples.push_back({labels(s.peer, s.vrf), static_cast<double>(s.updates_sent)});
  }
  MetricFamily bfd_up{
      "frrk8s_bfd_session_up", "BFD session state (1 is up, 0 is down)", MetricType::Gauge, {}};
  for (const auto& s : bfd) {
    bfd_up.samples.push_back({labels(s.peer, s.vrf), s.up ? 1.0 : 0.0});
  }
  return {up, announced, received, updates, bfd_up};
}

SessionReader::SessionReader(const agent::bgp::FrrDriverOptions& options)
    : vtysh_(agent::bgp::VtyshSessionOptions{options.vtysh, options.pathspace, options.workdir,
                                             std::chrono::seconds(5), 64}) {}

std::vector<MetricFamily> SessionReader::families() {
  std::lock_guard lock(mu_);
  auto bgp = vtysh_.show("show bgp vrf all neighbors json");
  auto bfd = vtysh_.show("show bfd peers json");
  if (!bgp || !bfd) {
    vtysh_.reset();  // FRR restarted or is down: start a new vtysh next time
    return {};
  }
  return sessionFamilies(parseBgpNeighbors(*bgp), parseBfdPeers(*bfd));
}

}  // namespace ingot::ingotfrr
