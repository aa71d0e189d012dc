// SPDX-License-Identifier: Apache-2.0
// The BGP writes: FRRConfiguration metallb-<node> (frr-k8s mode), frr.conf reloads (frr mode),
// and the ConfigurationState speaker-<node>.
#include "agent/core/prefix_limit.h"
#include "agent/reconciler.h"
#include "agent/writes.h"
#include "api/codec.h"
#include "api/configuration_state.h"
#include "common/json/scan.h"
#include "frrgen/merge.h"
#include "frrgen/render.h"
#include "frrgen/served.h"
#include "kube/resources.h"

namespace ingot::agent {
namespace {

long long millis(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

std::string resourceVersionOf(const std::string& json) {
  auto rv = ingot::json::stringAt(json, {"metadata", "resourceVersion"});
  return rv.has_value() ? *rv : std::string();
}

}  // namespace

ReconcileResult Reconciler::writeFrrConfiguration() {
  if (!desired_) return ReconcileResult::done();  // never write (or delete) before a desired one
  if (!frrgen::hasSessionsOrProfiles(desired_->spec)) return deleteFrrConfiguration();
  const auto& name = desired_->metadata.name;
  const auto& ns = desired_->metadata.namespace_;
  auto cached = caches_.frr_configurations.get(k8s::objectKey(ns, name));
  // Compared as stored: what the API server fills in (CRD defaults) is no reason to write.
  if (cached && frrgen::sameServedSpec(cached->spec, desired_->spec)) {
    return ReconcileResult::done();
  }
  // The cache may lag our own last write: read the live object before writing.
  auto live = api_.get(k8s::resources::kFrrConfigurations, ns, name);
  Result<std::string> written = std::string();
  const char* verb = "updated";
  if (!live && live.error().code == ErrorCode::NotFound) {
    verb = "created";
    written = api_.create(k8s::resources::kFrrConfigurations, ns, api::encodeJson(*desired_));
  } else if (!live) {
    written = live.error();
  } else {
    auto current = api::decodeJson<api::FRRConfiguration>(*live);
    if (!current) {
      written = Error{current.error().code, "decode live FRRConfiguration " + ns + "/" + name +
                                                ": " + current.error().message};
    } else if (frrgen::sameServedSpec(current->spec, desired_->spec)) {
      return ReconcileResult::done();
    } else {
      written = api_.update(k8s::resources::kFrrConfigurations, ns, name,
                            frrConfigurationUpdate(std::move(*current), *desired_));
    }
  }
  metrics_.countUpdate();
  metrics_.countFrrConfigurationWrite(!written.has_value());
  if (!written) {
    metrics_.countUpdateError();
    log_.warn("bgp", "frrconfiguration_write_failed", written.error().message,
              {{"key", k8s::objectKey(ns, name)}});
    return ReconcileResult::retry(written.error());
  }
  log_.info("bgp", "frrconfiguration_written", std::string("FRRConfiguration ") + verb,
            {{"key", k8s::objectKey(ns, name)}, {"resourceVersion", resourceVersionOf(*written)}});
  return ReconcileResult::done();
}

ReconcileResult Reconciler::deleteFrrConfiguration() {
  const auto& name = desired_->metadata.name;
  const auto& ns = desired_->metadata.namespace_;
  if (!caches_.frr_configurations.get(k8s::objectKey(ns, name))) return ReconcileResult::done();
  metrics_.countUpdate();
  auto r = api_.remove(k8s::resources::kFrrConfigurations, ns, name);
  if (!r && r.error().code != ErrorCode::NotFound) {
    metrics_.countUpdateError();
    log_.warn("bgp", "frrconfiguration_delete_failed", r.error().message,
              {{"key", k8s::objectKey(ns, name)}});
    return ReconcileResult::retry(r.error());
  }
  log_.info("bgp", "frrconfiguration_deleted",
            "FRRConfiguration deleted: the node has no BGP session and no BFD profile",
            {{"key", k8s::objectKey(ns, name)}});
  return ReconcileResult::done();
}

Result<std::string> Reconciler::renderFrr(const std::vector<frrgen::Announcement>& announcements) {
  auto own = frrgen::build(*desired_config_, options_.node, announcements, options_.build);
  if (!own) return own.error();
  auto node = caches_.nodes.get(options_.node);
  auto selected = frrgen::selectForNode({*own}, options_.build.frrk8s_namespace,
                                        node ? node->metadata.labels : api::StringMap{});
  if (!selected) return selected.error();
  std::vector<api::Secret> secrets;
  for (const auto& s : caches_.secrets.list()) secrets.push_back(*s);
  auto model = frrgen::merge(*selected, secrets);
  if (!model) return model.error();
  frrgen::RenderOptions render;
  render.hostname = options_.hostname;
  return frrgen::render(*model, render);
}

ReconcileResult Reconciler::reloadFrr() {
  if (!desired_ || frr_ == nullptr) return ReconcileResult::done();
  const PrefixStep step =
      limitNewPrefixes(desired_announcements_, applied_prefixes_, options_.max_new_prefixes);
  auto text = renderFrr(step.announcements);
  Result<bgp::ApplyReport> report =
      text ? frr_->apply(*text) : Result<bgp::ApplyReport>(text.error());
  if (text) last_rendered_ = *text;
  metrics_.countReload(!report.has_value());
  if (!report) {
    const auto delay = bgp::retryDelay(++reload_failures_);
    log_.error("bgp", "frr_reload_failed", report.error().message,
               {log::num("failures", reload_failures_), log::num("retry_ms", millis(delay))});
    events_.record(nodeRef(), k8s::EventType::Warning, "FRRReloadFailed", report.error().message);
    setFrrError(report.error().message);
    return ReconcileResult::retryAfter(report.error(), delay);
  }
  reload_failures_ = 0;
  applied_prefixes_ = step.prefixes;
  log_.info("bgp", "frr_reloaded", "frr.conf applied",
            {log::num("passes", report->passes),
             log::num("lines_added", static_cast<long long>(report->lines_added)),
             log::num("lines_removed", static_cast<long long>(report->lines_removed)),
             log::num("duration_ms", report->elapsed.count()),
             log::num("prefixes", static_cast<long long>(step.prefixes.size())),
             log::num("deferred_prefixes", static_cast<long long>(step.deferred))});
  setFrrError("");
  if (!step.complete()) queue_.add(std::string(keys::kBgp));
  return ReconcileResult::done();
}

void Reconciler::setFrrError(std::optional<std::string> error) {
  if (frr_error_ == error) return;
  frr_error_ = std::move(error);
  queue_.add(std::string(keys::kState));
}

ReconcileResult Reconciler::ensureState() {
  const std::string name = stateName(options_.node);
  if (caches_.states.get(k8s::objectKey(options_.namespace_, name))) {
    return ReconcileResult::done();
  }
  auto r =
      api_.create(k8s::resources::kConfigurationStates, options_.namespace_,
                  configurationStateObject(options_.namespace_, options_.node, options_.owner));
  if (!r && r.error().code != ErrorCode::AlreadyExists) {
    log_.warn("configuration_state", "create_failed", r.error().message, {{"name", name}});
    return ReconcileResult::retry(r.error());
  }
  return ReconcileResult::done();
}

ReconcileResult Reconciler::writeState() {
  if (!config_parsed_) return ReconcileResult::done();
  const std::string name = stateName(options_.node);
  const auto status = configurationStateStatus({config_errors_, frr_error_}, now());
  const auto entry = caches_.states.entry(k8s::objectKey(options_.namespace_, name));
  // Forget the last write once the cache shows it, when it expired, or when the object is gone
  // from the cache (deleted by someone: recreate it; a create not seen yet only costs a retry).
  if (state_written_ && (entry.resource_version == state_written_rv_ || entry.object == nullptr ||
                         clock_.now() >= state_written_expires_)) {
    state_written_.reset();
  }
  const api::ConfigurationStateStatus* seen =
      state_written_ ? &*state_written_ : (entry.object ? &entry.object->status : nullptr);
  if (seen != nullptr && api::sameConfigurationState(*seen, status)) {
    return ReconcileResult::done();
  }
  if (!state_written_) {
    if (ReconcileResult r = ensureState(); !r.ok()) return r;
  }
  auto r = api_.patchStatus(k8s::resources::kConfigurationStates, options_.namespace_, name,
                            k8s::PatchType::Merge, api::configurationStatePatch(status));
  if (!r) {
    state_written_.reset();
    log_.warn("configuration_state", "write_failed", r.error().message, {{"name", name}});
    return ReconcileResult::retry(r.error());
  }
  state_written_ = status;
  state_written_rv_ = resourceVersionOf(*r);
  state_written_expires_ = clock_.now() + options_.overlay_ttl;
  log_.info("configuration_state", "written", "ConfigurationState updated",
            {{"name", name}, {"result", status.result}});
  return ReconcileResult::done();
}

}  // namespace ingot::agent
