// SPDX-License-Identifier: Apache-2.0
// LocalFrrBackend: this node's FRRConfiguration merged into a model here and converged into the
// node's FRR through frr/'s FrrEngine; this file reports what the engine's Outcomes say.
#include <algorithm>

#include "agent/backends/backend.h"
#include "frr/engine.h"
#include "frr/port.h"
#include "frrgen/merge.h"

namespace ingot::agent {
namespace {

long long millis(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

/// nodeModel selects and merges own as frr-k8s would for this node (Secrets resolved).
Result<frrgen::Model> nodeModel(const BackendContext& ctx, const api::FRRConfiguration& own) {
  auto node = ctx.caches.nodes.get(ctx.options.node);
  auto selected = frrgen::selectForNode({own}, ctx.options.build.frrk8s_namespace,
                                        node ? node->metadata.labels : api::StringMap{});
  if (!selected) {
    return selected.error();
  }
  std::vector<api::Secret> secrets;
  for (const auto& s : ctx.caches.secrets.list()) {
    secrets.push_back(*s);
  }
  return frrgen::merge(*selected, secrets);
}

/// engineOptions: the agent's timings and paths (--frr-apply, --frr-verify-interval,
/// --frr-verify-quiet): a delta is read back once changes go quiet, FRR periodically.
frr::EngineOptions engineOptions(const BackendOptions& o) {
  frr::EngineOptions e;
  e.render.hostname = o.hostname;
  e.whole_file = o.frr_full_reload;
  e.verify_interval = o.frr_verify_interval;
  e.verify_after_delta = o.frr_verify_quiet;
  e.quiet = true;
  return e;
}

frr::FrrEngine::Clock clockOf(const k8s::Clock& clock) {
  return [&clock] { return clock.now(); };
}

}  // namespace

LocalFrrBackend::LocalFrrBackend(const BackendContext& context, frr::FrrPort& frr)
    : BgpBackend(context), engine_(frr, engineOptions(context.options), clockOf(context.clock)) {
  keep_announcements_ = true;
  addSessionMetrics(frr);
}

LocalFrrBackend::LocalFrrBackend(const BackendContext& context, frr::FrrDriverOptions driver)
    : BgpBackend(context),
      owned_(frr::makeFrrPort(std::move(driver))),
      engine_(*owned_, engineOptions(context.options), clockOf(context.clock)) {
  keep_announcements_ = true;
  addSessionMetrics(*owned_);
}

void LocalFrrBackend::addSessionMetrics(frr::FrrPort& frr) {
  if (auto c = frr.sessionCollector(frr::kMetalLbSessions)) {
    collector_ = ctx_.metrics.addCollector(std::move(c));
  }
  health_collector_ = ctx_.metrics.addCollector([h = engine_.health()] { return h->families(); });
}

LocalFrrBackend::~LocalFrrBackend() {
  for (int id : {collector_, health_collector_}) {
    if (id >= 0) {
      ctx_.metrics.removeCollector(id);
    }
  }
}

std::optional<k8s::Duration> LocalFrrBackend::update(const Desired& desired) {
  auto delay = BgpBackend::update(desired);
  if (delay) {
    dirty_ = true;
  } else if (!dirty_ && !engine_.failing()) {
    accept();  // FRR already holds this FRRConfiguration (e.g. a second Service on one IP)
  }
  return delay;
}

void LocalFrrBackend::accept() {
  if (desired_version_ == accepted_version_) {
    return;
  }
  accepted_version_ = desired_version_;
  accepted_ = std::make_shared<const AcceptedBgp>(desired_announcements_);
}

k8s::ObjectReference LocalFrrBackend::nodeRef() const {
  const std::string& name = ctx_.options.node;
  auto node = ctx_.caches.nodes.get(name);
  return k8s::ObjectReference{"v1",
                              "Node",
                              "",
                              name,
                              node ? node->metadata.uid : std::string(),
                              node ? node->metadata.resource_version : std::string()};
}

ReconcileResult LocalFrrBackend::apply() {
  if (!desired_) {
    return ReconcileResult::done();  // nothing is applied before the first complete sync
  }
  const k8s::TimePoint now = ctx_.clock.now();
  const frr::EngineStep step = engine_.next(dirty_, now);
  if (step == frr::EngineStep::Apply && !engine_.failing() && deferred()) {
    return ReconcileResult::done();  // handed out before the cool-down's end (a read-back timer)
  }
  ReconcileResult r = ReconcileResult::done();
  if (step == frr::EngineStep::Apply) {
    r = applyDesired();
    noteApplied(now);
  } else if (step == frr::EngineStep::Verify) {
    r = verifyNow();
  }
  if (auto next = engine_.nextVerify(); r.ok() && next) {
    // The queue keeps the earliest of several delays: re-arm the read-back after every run.
    ctx_.queue.addAfter(std::string(key()), *next > now ? *next - now : k8s::Duration::zero());
  }
  return r;
}

ReconcileResult LocalFrrBackend::applyDesired() {
  auto model = nodeModel(ctx_, *desired_);
  if (!model) {
    return failed(engine_.failed(model.error()));
  }
  frr::Outcome out = engine_.apply(*model);
  if (out.conversion) {
    out = engine_.failed(*out.error);
  }
  ctx_.metrics.countReload(!out.ok());
  if (!out.ok()) {
    return failed(out);
  }
  dirty_ = false;
  accept();
  noteRejected(out.report.rejected);
  applied(out);
  return ReconcileResult::done();
}

ReconcileResult LocalFrrBackend::verifyNow() {
  const frr::Outcome out = engine_.verify();
  if (!out.ok()) {
    ctx_.metrics.countReload(true);
    return failed(out);
  }
  if (out.report.path != frr::ApplyPath::Unchanged) {
    ctx_.metrics.countReload(false);
  }
  applied(out);
  return ReconcileResult::done();
}

ReconcileResult LocalFrrBackend::failed(const frr::Outcome& out) {
  const Error& e = *out.error;
  const frr::FailureReason reason = out.reason;
  const auto delay = out.retry;
  const int failures = out.failures;
  // The retry count and delay go to the log and metrics only: the same failure then makes the
  // same Event message, which the recorder folds into one Event with a count.
  const std::string message = std::string("applying to FRR failed (") +
                              frr::failureReasonName(reason) + "), FRR keeps the last " +
                              "configuration that applied; retrying: " + e.message;
  ctx_.log.error("bgp", "frr_apply_failed", message,
                 {{"reason", frr::failureReasonName(reason)},
                  log::num("failures", failures),
                  log::num("retry_ms", millis(delay))});
  ctx_.events.record(nodeRef(), k8s::EventType::Warning, "FRRReloadFailed", message);
  error_ = message;
  config_error_ = false;
  return ReconcileResult::requeueAfter(delay, e);
}

namespace {

/// frrSays returns the lines of an apply error where FRR gives its reason ("% ...", "Failure to
/// communicate ..."), at most three, or the error's start when it has none.
std::string frrSays(const std::string& error) {
  std::vector<std::string> said;
  size_t start = 0;
  while (start <= error.size()) {
    size_t end = error.find_first_of("|\n", start);
    if (end == std::string::npos) end = error.size();
    std::string part = error.substr(start, end - start);
    part.erase(0, part.find_first_not_of(' '));
    const bool reason = (part.find("% ") != std::string::npos &&
                         part.find("Can't open configuration file") == std::string::npos) ||
                        part.find("Failure to communicate") != std::string::npos;
    if (reason && std::find(said.begin(), said.end(), part) == said.end() && said.size() < 3) {
      said.push_back(std::move(part));
    }
    start = end + 1;
  }
  constexpr size_t kShort = 300;
  if (said.empty()) return error.size() > kShort ? error.substr(0, kShort) + "…" : error;
  std::string out;
  for (const auto& s : said) out += (out.empty() ? "" : "; ") + s;
  return out;
}

/// peersFor returns the BGPPeers of config whose session is the refused one.
std::vector<std::string> peersFor(const config::Config* config, const frr::RejectedSession& r) {
  std::vector<std::string> out;
  if (config == nullptr) return out;
  for (const auto& [name, p] : config->peers) {
    const std::string peer = p.address ? p.address->toString() : p.interface;
    const std::string id = p.vrf.empty() ? peer : peer + "-" + p.vrf;
    if (p.vrf == r.vrf && id == r.peer) out.push_back(name);
  }
  return out;
}

}  // namespace

std::string LocalFrrBackend::noteRejected(const std::vector<frr::RejectedSession>& rejected) {
  std::set<std::string> absent;
  std::string report;
  for (const auto& r : rejected) {
    const auto names = peersFor(desired_config_.get(), r);
    std::string who;
    for (const auto& n : names) who += (who.empty() ? "BGPPeer " : ", ") + n;
    who += who.empty() ? "session " + r.peer : " (session " + r.peer + ")";
    if (!r.vrf.empty()) who += " in VRF " + r.vrf;
    report += (report.empty() ? "" : "\n") + std::string("FRR refused ") + who +
              (r.kept_previous ? ", which keeps its previous settings" : ", which is left out") +
              "; every other change applied. FRR said: " + frrSays(frr::retractPasswords(r.error));
    if (!r.kept_previous) absent.insert(names.begin(), names.end());
  }
  if (report != rejected_report_ && !report.empty()) {
    ctx_.log.warn("bgp", "frr_peer_rejected", report);
    ctx_.events.record(nodeRef(), k8s::EventType::Warning, "FRRPeerRejected", report);
  }
  rejected_report_ = report;
  refused_peers_ = std::move(absent);
  return report;
}

void LocalFrrBackend::applied(const frr::Outcome& out) {
  const frr::FastApplyReport& report = out.report;
  if (out.recovered) {
    ctx_.log.info("bgp", "frr_apply_recovered", "FRR took the desired configuration again",
                  {{"path", frr::applyPathName(report.path)}});
  }
  // The sessions FRR refused, as the last apply found them (a read-back keeps them left out).
  error_ = rejected_report_;
  config_error_ = !rejected_report_.empty();
  ctx_.metrics.countFrrApply(frr::applyPathName(report.path));
  if (!report.drift.empty()) {
    ctx_.metrics.countFrrDrift();
    const std::string message =
        "FRR's running configuration differed from the applied one (corrected): " + report.drift;
    ctx_.log.warn("bgp", "frr_drift", message);
    ctx_.events.record(nodeRef(), k8s::EventType::Warning, "FRRConfigDrift", message);
  }
  if (report.path == frr::ApplyPath::Unchanged) {
    return;
  }
  ctx_.log.info("bgp", "frr_applied", "FRR converged",
                {{"path", frr::applyPathName(report.path)},
                 {"reason", report.reload_reason},
                 log::num("commands", static_cast<long long>(report.commands)),
                 log::num("networks_added", static_cast<long long>(report.networks_added)),
                 log::num("networks_removed", static_cast<long long>(report.networks_removed)),
                 log::num("networks_changed", static_cast<long long>(report.networks_changed)),
                 log::num("send_ms", report.send_elapsed.count()),
                 log::num("verify_ms", report.verify_elapsed.count())});
}

}  // namespace ingot::agent
