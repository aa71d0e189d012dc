// SPDX-License-Identifier: Apache-2.0
// LocalFrrBackend: frr.conf rendered here and applied to the node's FRR through FrrApply. This is
// the only place that knows FrrApply.
#include "agent/backend.h"
#include "agent/core/prefix_limit.h"
#include "agent/frr_apply.h"
#include "frrgen/merge.h"
#include "frrgen/render.h"

namespace ingot::agent {
namespace {

long long millis(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace

LocalFrrBackend::LocalFrrBackend(const BackendContext& context, FrrApply& frr)
    : BgpBackend(context), frr_(frr) {}

LocalFrrBackend::LocalFrrBackend(const BackendContext& context, bgp::FrrDriverOptions driver)
    : BgpBackend(context), owned_(makeFrrApply(std::move(driver))), frr_(*owned_) {}

LocalFrrBackend::~LocalFrrBackend() = default;

Result<std::string> LocalFrrBackend::render(const std::vector<Announcement>& announcements) const {
  const BackendOptions& o = ctx_.options;
  auto own = frrgen::build(*desired_config_, o.node, announcements, o.build);
  if (!own) {
    return own.error();
  }
  auto node = ctx_.caches.nodes.get(o.node);
  auto selected = frrgen::selectForNode({*own}, o.build.frrk8s_namespace,
                                        node ? node->metadata.labels : api::StringMap{});
  if (!selected) {
    return selected.error();
  }
  std::vector<api::Secret> secrets;
  for (const auto& s : ctx_.caches.secrets.list()) {
    secrets.push_back(*s);
  }
  auto model = frrgen::merge(*selected, secrets);
  if (!model) {
    return model.error();
  }
  frrgen::RenderOptions render;
  render.hostname = o.hostname;
  return frrgen::render(*model, render);
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
    return ReconcileResult::done();
  }
  const PrefixStep step =
      limitNewPrefixes(desired_announcements_, applied_prefixes_, ctx_.options.max_new_prefixes);
  auto text = render(step.announcements);
  Result<bgp::ApplyReport> report =
      text ? frr_.apply(*text) : Result<bgp::ApplyReport>(text.error());
  if (text) {
    last_rendered_ = *text;
  }
  ctx_.metrics.countReload(!report.has_value());
  if (!report) {
    const auto delay = bgp::retryDelay(++failures_);
    ctx_.log.error("bgp", "frr_reload_failed", report.error().message,
                   {log::num("failures", failures_), log::num("retry_ms", millis(delay))});
    ctx_.events.record(nodeRef(), k8s::EventType::Warning, "FRRReloadFailed",
                       report.error().message);
    error_ = report.error().message;
    return ReconcileResult::requeueAfter(delay, report.error());
  }
  failures_ = 0;
  applied_prefixes_ = step.prefixes;
  ctx_.log.info("bgp", "frr_reloaded", "frr.conf applied",
                {log::num("passes", report->passes),
                 log::num("lines_added", static_cast<long long>(report->lines_added)),
                 log::num("lines_removed", static_cast<long long>(report->lines_removed)),
                 log::num("duration_ms", report->elapsed.count()),
                 log::num("prefixes", static_cast<long long>(step.prefixes.size())),
                 log::num("deferred_prefixes", static_cast<long long>(step.deferred))});
  error_ = "";
  if (!step.complete()) {
    ctx_.queue.add(std::string(keys::kBgp));
  }
  return ReconcileResult::done();
}

}  // namespace ingot::agent
