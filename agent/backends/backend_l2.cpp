// SPDX-License-Identifier: Apache-2.0
// Layer2Backend: the responder's start, announce/withdraw, Events and metrics. The
// ServiceL2Status objects are in backend_l2_status.cpp.
#include "agent/backends/backend_l2.h"

#include <algorithm>

#include "agent/reconcile/writes.h"
#include "frr/frr_driver.h"

namespace ingot::agent {
namespace {

using daemon::MetricType;
using daemon::Sample;

/// interfaceRecheck is how soon an address whose interfaces are missing is tried again (the
/// responder rescans its interfaces every 10 s).
constexpr k8s::Duration kInterfaceRecheck = std::chrono::seconds(10);

/// RealResponder is L2Responder over agent/l2's Responder.
class RealResponder final : public L2Responder {
 public:
  explicit RealResponder(std::unique_ptr<l2::Responder> r) : r_(std::move(r)) {}
  void announce(const std::string& owner,
                const net::IpAddress& ip,
                const std::optional<std::set<std::string>>& interfaces,
                bool probe) override {
    r_->announce(owner, ip, interfaces, probe);
  }
  void setMemberMacs(std::set<l2::Mac> macs) override { r_->setMemberMacs(std::move(macs)); }
  void setProbeListener(std::function<void()> listener) override {
    r_->setProbeListener(std::move(listener));
  }
  void withdraw(const std::string& owner, const net::IpAddress& ip) override {
    r_->withdraw(owner, ip);
  }
  std::vector<l2::AnnounceInterface> interfaces() const override { return r_->interfaces(); }
  l2::ResponderStats stats() const override { return r_->stats(); }

 private:
  std::unique_ptr<l2::Responder> r_;
};

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) {
    out += (out.empty() ? "" : ",") + p;
  }
  return out;
}

std::string ipList(const std::map<net::IpAddress, std::optional<std::set<std::string>>>& ips) {
  std::vector<std::string> parts;
  parts.reserve(ips.size());
  for (const auto& [ip, ifs] : ips) {
    parts.push_back(ip.toString());
  }
  return joined(parts);
}

std::string interfaceList(const std::optional<std::set<std::string>>& ifs) {
  return ifs ? joined({ifs->begin(), ifs->end()}) : "*";
}

/// layer2Families renders the responder's per-address counters under MetalLB's names, and its
/// drops by reason under Ingot's.
std::vector<daemon::MetricFamily> layer2Families(const l2::ResponderStats& s) {
  daemon::MetricFamily in{"metallb_layer2_requests_received",
                          "Number of layer2 requests received for owned IPs",
                          MetricType::Counter,
                          {}};
  daemon::MetricFamily out{"metallb_layer2_responses_sent",
                           "Number of layer2 responses sent for owned IPs in response to requests",
                           MetricType::Counter,
                           {}};
  daemon::MetricFamily gratuitous{
      "metallb_layer2_gratuitous_sent",
      "Number of gratuitous layer2 packets sent for owned IPs as a result of failovers",
      MetricType::Counter,
      {}};
  for (const auto& [ip, c] : s.per_ip) {
    const std::string text = ip.toString();
    in.samples.push_back(Sample{{{"ip", text}}, static_cast<double>(c.requests_received)});
    out.samples.push_back(Sample{{{"ip", text}}, static_cast<double>(c.responses_sent)});
    gratuitous.samples.push_back(Sample{{{"ip", text}}, static_cast<double>(c.gratuitous_sent)});
  }
  daemon::MetricFamily drops{"ingot_agent_layer2_frames_dropped_total",
                             "ARP/NDP frames received and not answered, by reason.",
                             MetricType::Counter,
                             {}};
  for (size_t i = 0; i < l2::kDropReasonCount; ++i) {
    drops.samples.push_back(
        Sample{{{"reason", std::string(l2::dropReasonName(static_cast<l2::DropReason>(i)))}},
               static_cast<double>(s.drops[i])});
  }
  std::vector<daemon::MetricFamily> families{std::move(in), std::move(out), std::move(gratuitous),
                                             std::move(drops)};
  for (auto& f : conflictFamilies(s)) {
    families.push_back(std::move(f));
  }
  return families;
}

}  // namespace

L2ResponderStarter startL2Responder(l2::ResponderOptions options, std::string exclude_path) {
  return [options = std::move(options),
          path = std::move(exclude_path)]() -> Result<std::unique_ptr<L2Responder>> {
    l2::ResponderOptions o = options;
    if (!path.empty()) {
      auto exclude = l2::ExcludeList::load(path);
      if (!exclude) {
        return exclude.error();
      }
      o.exclude = std::move(*exclude);
    }
    auto r = l2::Responder::start(std::move(o));
    if (!r) {
      return r.error();
    }
    return std::unique_ptr<L2Responder>(std::make_unique<RealResponder>(std::move(*r)));
  };
}

Layer2Backend::Layer2Backend(const BackendContext& context, L2ResponderStarter start)
    : ctx_(context), start_(std::move(start)), shared_(std::make_shared<Shared>()) {
  collector_ = ctx_.metrics.addCollector([shared = shared_] {
    std::shared_ptr<L2Responder> r;
    {
      std::lock_guard lock(shared->mu);
      r = shared->responder;
    }
    return layer2Families(r ? r->stats() : l2::ResponderStats{});
  });
}

Layer2Backend::~Layer2Backend() {
  ctx_.metrics.removeCollector(collector_);
  stop();
}

std::string_view Layer2Backend::stateCondition() const {
  return kLayer2ConditionType;
}

void Layer2Backend::stop() {
  stopped_ = true;
  std::shared_ptr<L2Responder> r;
  {
    std::lock_guard lock(shared_->mu);
    r = std::move(shared_->responder);
  }
  if (r) {
    ctx_.log.info("layer2", "responder_stopped", "ARP/NDP responder stopped: no more answers",
                  {log::num("services", static_cast<long long>(applied_.size()))});
  }
}

std::optional<k8s::Duration> Layer2Backend::update(const Desired& desired) {
  std::map<std::string, L2Announcement> next;
  for (const auto& a : desired.l2) {
    next.emplace(a.key(), a);
  }
  const bool changed = next != desired_;
  desired_ = std::move(next);
  updated_ = true;
  if (stopped_) {
    return std::nullopt;
  }
  if (changed || statusesDiverge()) {
    return k8s::Duration::zero();  // Layer 2 moves addresses: no debounce
  }
  return std::nullopt;
}

ReconcileResult Layer2Backend::apply() {
  if (stopped_ || !updated_) {
    return ReconcileResult::done();
  }
  const bool up = ensureResponder();
  if (up) {
    applyResponder();
  }
  ReconcileResult r = syncStatuses();
  if (!up) {
    return ReconcileResult::requeueAfter(frr::retryDelay(start_failures_),
                                         Error{ErrorCode::Unavailable, *error_});
  }
  // A probe that ends (conflict, free) queues this backend through the probe listener.
  if (r.ok() && !failed_.empty()) {
    return ReconcileResult::requeueAfter(kInterfaceRecheck);
  }
  return r;
}

bool Layer2Backend::ensureResponder() {
  {
    std::lock_guard lock(shared_->mu);
    if (shared_->responder) {
      return true;
    }
  }
  if (desired_.empty()) {
    return true;  // not needed (yet): no sockets, no CAP_NET_RAW asked for
  }
  auto started = start_();
  if (!started) {
    ++start_failures_;
    const std::string message =
        "the Layer 2 ARP/NDP responder cannot start (it needs CAP_NET_RAW): " +
        started.error().message + "; no Layer 2 address is answered from this node";
    if (error_ != message) {
      ctx_.log.error("layer2", "responder_failed", message,
                     {log::num("services", static_cast<long long>(desired_.size()))});
    }
    error_ = message;
    return false;
  }
  {
    std::lock_guard lock(shared_->mu);
    shared_->responder = std::shared_ptr<L2Responder>(std::move(*started));
    shared_->responder->setProbeListener(
        [&queue = ctx_.queue] { queue.add(std::string(keys::kLayer2)); });
  }
  start_failures_ = 0;
  error_ = "";
  ctx_.log.info("layer2", "responder_started", "ARP/NDP responder started");
  return true;
}

Layer2Backend::Applied Layer2Backend::plan(const L2Announcement& a,
                                           const std::vector<l2::AnnounceInterface>& usable) {
  const std::string key = a.key();
  if (l2::restrictInterfaces(usable, a.interfaces).noneExist()) {
    auto& failed = failed_[key];
    for (const auto& ip : a.ips) {
      if (!failed.insert(ip).second) {
        continue;
      }
      ctx_.log.warn(
          "layer2", "announceFailed",
          "the interfaces the L2Advertisements name do not exist on this node",
          {{"service", key}, {"ip", ip.toString()}, {"interfaces", interfaceList(a.interfaces)}});
      ctx_.events.record(serviceRef(a.service_namespace, a.service_name), k8s::EventType::Warning,
                         "announceFailed",
                         "the interfaces specified by LB IP \"" + ip.toString() +
                             "\" doesn't exist in assigned node \"" + ctx_.options.node +
                             "\" with protocol \"layer2\"");
    }
    return {};
  }
  failed_.erase(key);
  Applied out;
  for (const auto& ip : a.ips) {
    out.emplace(ip, a.interfaces);
  }
  return out;
}

void Layer2Backend::applyResponder() {
  std::shared_ptr<L2Responder> responder;
  {
    std::lock_guard lock(shared_->mu);
    responder = shared_->responder;
  }
  std::erase_if(failed_, [this](const auto& f) { return !desired_.contains(f.first); });
  const auto usable = responder ? responder->interfaces() : std::vector<l2::AnnounceInterface>{};
  std::map<std::string, Applied> next;
  for (const auto& [key, a] : desired_) {
    if (Applied want = responder ? plan(a, usable) : Applied{}; !want.empty()) {
      next.emplace(key, std::move(want));
    }
  }
  if (responder) {
    responder->setMemberMacs(memberMacs());
  }
  const auto statuses = currentStatuses();
  // Announce (new owners, changed restrictions) before withdrawing, and leave unchanged
  // addresses alone, so an address that stays is answered throughout.
  for (const auto& [key, want] : next) {
    auto had = applied_.find(key);
    for (const auto& [ip, ifs] : want) {
      if (had == applied_.end() || !had->second.contains(ip) || had->second.at(ip) != ifs) {
        responder->announce(key, ip, ifs, needsProbe(key, ip, statuses));
      }
    }
  }
  for (const auto& [key, had] : applied_) {
    auto want = next.find(key);
    for (const auto& [ip, ifs] : had) {
      if (want == next.end() || !want->second.contains(ip)) {
        responder->withdraw(key, ip);
      }
    }
  }
  applied_ = std::move(next);
  reportAnswered(responder ? responder->stats() : l2::ResponderStats{});
}

void Layer2Backend::reportAnswered(const l2::ResponderStats& stats) {
  auto answered = answeredOf(applied_, stats);
  reportConflicts(stats);
  std::vector<AnnouncedIp> gauge;
  for (const auto& [key, want] : answered) {
    report(desired_.at(key), want);
    for (const auto& [ip, ifs] : want) {
      gauge.push_back({key, ip.toString()});
      answered_before_.insert(ip);
    }
  }
  for (const auto& [key, had] : answered_) {
    if (!answered.contains(key)) {
      ctx_.log.info("layer2", "withdrawn", "no longer answering ARP/NDP for the service",
                    {{"service", key}, {"ips", ipList(had)}});
    }
  }
  answered_ = std::move(answered);
  ctx_.metrics.setAnnounced(std::move(gauge), "layer2");
}

void Layer2Backend::report(const L2Announcement& a, const Applied& now) {
  const std::string key = a.key();
  auto had = answered_.find(key);
  if (had != answered_.end() && had->second == now) {
    return;
  }
  ctx_.log.info(
      "layer2", "announced", "answering ARP/NDP for the service",
      {{"service", key}, {"ips", ipList(now)}, {"interfaces", interfaceList(a.interfaces)}});
  if (had == answered_.end() || ipList(had->second) != ipList(now)) {
    ctx_.events.record(
        serviceRef(a.service_namespace, a.service_name), k8s::EventType::Normal, "nodeAssigned",
        "announcing from node \"" + ctx_.options.node + "\" with protocol \"layer2\"");
  }
}

k8s::ObjectReference Layer2Backend::serviceRef(const std::string& ns,
                                               const std::string& name) const {
  auto svc = ctx_.caches.services.get(k8s::objectKey(ns, name));
  return k8s::ObjectReference{"v1",
                              "Service",
                              ns,
                              name,
                              svc ? svc->metadata.uid : std::string(),
                              svc ? svc->metadata.resource_version : std::string()};
}

}  // namespace ingot::agent
