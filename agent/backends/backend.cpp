// SPDX-License-Identifier: Apache-2.0
// The BGP half shared by the FRR backends and FrrK8sBackend's FRRConfiguration write.
#include "agent/backends/backend.h"

#include <optional>
#include <utility>

#include "agent/reconcile/writes.h"
#include "api/codec.h"
#include "frrgen/served.h"
#include "frrgen/weight_raw.h"
#include "kube/resources.h"

namespace ingot::agent {

Result<bool> BgpBackend::build(const Desired& desired) {
  const std::string& node = ctx_.options.node;
  if (desired.bgp_changes != nullptr) {
    if (auto patched =
            build_.patch(desired.config, node, *desired.bgp_changes, ctx_.options.build)) {
      if (keep_announcements_) {
        for (const auto& c : *desired.bgp_changes) {
          noteDesired(c.service, c.announcements);
        }
      }
      return *patched;
    }
  }
  std::vector<Announcement> all = desired.allBgp();
  auto changed = build_.update(desired.config, node, all, ctx_.options.build);
  if (changed && keep_announcements_) {
    AcceptedBgp by_service;
    for (auto& a : all) {
      by_service[a.service].push_back(std::move(a));
    }
    if (by_service != desired_announcements_) {
      desired_announcements_ = std::move(by_service);
      ++desired_version_;
    }
  }
  return changed;
}

void BgpBackend::noteDesired(const std::string& service,
                             const std::vector<Announcement>& announcements) {
  auto it = desired_announcements_.find(service);
  if (announcements.empty()) {
    if (it != desired_announcements_.end()) {
      desired_announcements_.erase(it);
      ++desired_version_;
    }
  } else if (it == desired_announcements_.end()) {
    desired_announcements_.emplace(service, announcements);
    ++desired_version_;
  } else if (it->second != announcements) {
    it->second = announcements;
    ++desired_version_;
  }
}

std::optional<k8s::Duration> BgpBackend::update(const Desired& desired) {
  const k8s::TimePoint started = ctx_.clock.now();
  auto changed = build(desired);
  if (!changed) {
    ctx_.metrics.countUpdateError();
    ctx_.log.error("bgp", "build_failed", changed.error().message, {{"node", ctx_.options.node}});
    return std::nullopt;
  }
  if (!*changed && desired_config_ == desired.config) {
    return std::nullopt;
  }
  desired_config_ = desired.config;
  // At once after the cool-down; within it, the apply at its end takes every change.
  const k8s::TimePoint now = ctx_.clock.now();
  build_cost_ += now - started;
  changed_ = true;
  return cooldown_.delay(now);
}

bool BgpBackend::deferred() {
  if (!changed_) {
    return false;  // a retry or a restore of an edited object: not a change to coalesce
  }
  const k8s::Duration rest = cooldown_.delay(ctx_.clock.now());
  if (rest <= k8s::Duration::zero()) {
    return false;
  }
  ctx_.queue.addAfter(std::string(key()), rest);
  return true;
}

void BgpBackend::noteApplied(k8s::TimePoint start) {
  const k8s::TimePoint end = ctx_.clock.now();
  changed_ = false;
  cooldown_.applied(end - start + std::exchange(build_cost_, k8s::Duration::zero()), end);
}

ReconcileResult FrrK8sBackend::apply() {
  if (unserved_ && !probe()) {
    ctx_.queue.addAfter(std::string(key()), ctx_.options.frrk8s_probe_interval);
    return ReconcileResult::done();  // nothing to write to: ask again later
  }
  if (deferred()) {
    return ReconcileResult::done();
  }
  const k8s::TimePoint start = ctx_.clock.now();
  ReconcileResult r = write();
  noteApplied(start);
  // A write that finds no FRRConfiguration resource: frr-k8s was uninstalled.
  if (r.kind == ReconcileResult::Kind::Retry && r.error.code == ErrorCode::NotFound && !probe()) {
    ctx_.queue.addAfter(std::string(key()), ctx_.options.frrk8s_probe_interval);
    return ReconcileResult::done();
  }
  return r;
}

void FrrK8sBackend::recheck() {
  if (!probe()) {
    ctx_.queue.addAfter(std::string(key()), ctx_.options.frrk8s_probe_interval);
  }
}

bool FrrK8sBackend::probe() {
  k8s::ListOptions options;
  options.field_selector = "metadata.name=" + frrgen::configName(ctx_.options.node);
  options.limit = 1;
  const std::string& ns = ctx_.options.build.frrk8s_namespace;
  auto listed = ctx_.api.list(k8s::resources::kFrrConfigurations, ns, options);
  std::optional<std::string> unserved = unserved_;
  if (listed) {
    unserved.reset();
  } else if (listed.error().code == ErrorCode::NotFound) {
    unserved =
        "frr-k8s is not installed: the API server does not serve "
        "frrconfigurations.frrk8s.metallb.io/v1beta1";
  }
  if (unserved != unserved_) {
    if (unserved) {
      ctx_.log.warn("bgp", "frrk8s_missing", *unserved + "; BGP waits for it, Layer 2 goes on",
                    {{"namespace", ns}});
    } else {
      ctx_.log.info("bgp", "frrk8s_found", "the API server serves FRRConfiguration: BGP is on",
                    {{"namespace", ns}});
    }
    unserved_ = std::move(unserved);
    ctx_.queue.add(std::string(keys::kConfig));
  }
  return !unserved_;
}

ReconcileResult FrrK8sBackend::write() {
  if (!desired_) {
    return ReconcileResult::done();  // never write (or delete) before a desired one
  }
  if (!frrgen::hasSessionsOrProfiles(desired_->spec)) {
    return remove();
  }
  const auto& name = desired_->metadata.name;
  const auto& ns = desired_->metadata.namespace_;
  // Link-bandwidth values travel to frr-k8s as spec.raw (frrgen/weight_raw.h); without any, the
  // body is build_'s incremental encoding.
  std::optional<api::FRRConfiguration> weighted;
  if (frrgen::hasBandwidth(*desired_)) {
    auto written_form = frrgen::forFrrK8s(*desired_);
    if (!written_form) {
      ctx_.metrics.countUpdateError();
      ctx_.log.error("bgp", "weight_raw_failed", written_form.error().message,
                     {{"key", k8s::objectKey(ns, name)}});
      return ReconcileResult::done();  // the next change of the desired state tries again
    }
    weighted = std::move(*written_form);
  }
  const api::FRRConfiguration& desired = weighted ? *weighted : *desired_;
  auto cached = ctx_.caches.frr_configurations.get(k8s::objectKey(ns, name));
  // Compared as stored: what the API server fills in (CRD defaults) is no reason to write.
  if (cached && frrgen::sameServedSpec(cached->spec, desired.spec)) {
    return ReconcileResult::done();
  }
  // The cache may lag our own last write: read the live object before writing.
  auto live = ctx_.api.get(k8s::resources::kFrrConfigurations, ns, name);
  Result<std::string> written = std::string();
  const char* verb = "updated";
  if (!live && live.error().code == ErrorCode::NotFound) {
    verb = "created";
    if (weighted) {
      written = ctx_.api.create(k8s::resources::kFrrConfigurations, ns, api::encodeJson(desired));
    } else {
      api::FRRConfiguration object;  // the spec comes from build_
      object.metadata = desired_->metadata;
      written = ctx_.api.create(k8s::resources::kFrrConfigurations, ns,
                                build_.encode(object, api::encodeJson<api::FRRConfiguration>));
    }
  } else if (!live) {
    written = live.error();
  } else {
    auto current = api::decodeJson<api::FRRConfiguration>(*live);
    if (!current) {
      written = Error{current.error().code, "decode live FRRConfiguration " + ns + "/" + name +
                                                ": " + current.error().message};
    } else if (frrgen::sameServedSpec(current->spec, desired.spec)) {
      return ReconcileResult::done();
    } else {
      // frrConfigurationUpdate's body: the live object with the desired spec (build_'s when
      // no prefix carries a link-bandwidth).
      written = ctx_.api.update(
          k8s::resources::kFrrConfigurations, ns, name,
          weighted ? frrConfigurationUpdate(std::move(*current), desired)
                   : build_.encode(std::move(*current), api::encodeJson<api::FRRConfiguration>));
    }
  }
  ctx_.metrics.countUpdate();
  ctx_.metrics.countFrrConfigurationWrite(!written.has_value());
  if (!written) {
    ctx_.metrics.countUpdateError();
    ctx_.log.warn("bgp", "frrconfiguration_write_failed", written.error().message,
                  {{"key", k8s::objectKey(ns, name)}});
    return ReconcileResult::retry(written.error());
  }
  ctx_.log.info(
      "bgp", "frrconfiguration_written", std::string("FRRConfiguration ") + verb,
      {{"key", k8s::objectKey(ns, name)}, {"resourceVersion", k8s::resourceVersionOf(*written)}});
  return ReconcileResult::done();
}

ReconcileResult FrrK8sBackend::remove() {
  const auto& name = desired_->metadata.name;
  const auto& ns = desired_->metadata.namespace_;
  if (!ctx_.caches.frr_configurations.get(k8s::objectKey(ns, name))) {
    return ReconcileResult::done();
  }
  ctx_.metrics.countUpdate();
  auto r = ctx_.api.remove(k8s::resources::kFrrConfigurations, ns, name);
  if (!r && r.error().code != ErrorCode::NotFound) {
    ctx_.metrics.countUpdateError();
    ctx_.log.warn("bgp", "frrconfiguration_delete_failed", r.error().message,
                  {{"key", k8s::objectKey(ns, name)}});
    return ReconcileResult::retry(r.error());
  }
  ctx_.log.info("bgp", "frrconfiguration_deleted",
                "FRRConfiguration deleted: the node has no BGP session and no BFD profile",
                {{"key", k8s::objectKey(ns, name)}});
  return ReconcileResult::done();
}

}  // namespace ingot::agent
