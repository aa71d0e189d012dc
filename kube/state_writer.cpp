// SPDX-License-Identifier: Apache-2.0
#include "kube/state_writer.h"

#include <utility>

#include "api/configuration_state.h"
#include "kube/resources.h"

namespace ingot::k8s {

StateWriter::StateWriter(const Store<api::ConfigurationState>& states,
                         ApiClient& api,
                         log::Logger& logger,
                         Clock& clock,
                         StateWriterOptions options)
    : states_(states),
      api_(api),
      log_(logger),
      clock_(clock),
      options_(std::move(options)),
      key_(objectKey(options_.namespace_, options_.name)),
      written_(options_.overlay_ttl) {}

StateWrite StateWriter::write(const api::ConfigurationStateStatus& status) {
  const auto entry = states_.entry(key_);
  // A missing object means a deletion only once the cache has held it: until then its watch may
  // simply not have delivered our create yet (on a loaded start the watch can begin after the
  // write), and forgetting would create it again (a 409) on every pass.
  const bool cached = entry.object != nullptr;
  cached_once_ = cached_once_ || cached;
  if (deleted_.exchange(false) || (!cached && cached_once_)) {
    written_.erase(key_);
  }
  const api::ConfigurationStateStatus* written =
      written_.written(key_, cached ? entry.resource_version : std::string(), clock_.now());
  const api::ConfigurationStateStatus* seen =
      written != nullptr ? written : (cached ? &entry.object->status : nullptr);
  if (seen != nullptr && api::sameConfigurationState(*seen, status)) {
    return {ReconcileResult::done(), false};
  }
  if (written == nullptr) {
    if (ReconcileResult r = ensure(cached); !r.ok()) {
      return {r, true};
    }
  }
  auto r = api_.patchStatus(resources::kConfigurationStates, options_.namespace_, options_.name,
                            PatchType::Merge, api::configurationStatePatch(status));
  if (!r) {
    written_.erase(key_);  // NotFound: deleted meanwhile; the retry creates it again
    log_.warn("configuration_state", "write_failed", r.error().message, {{"key", key_}});
    return {ReconcileResult::retry(r.error()), true};
  }
  written_.record(key_, status, resourceVersionOf(*r), clock_.now());
  log_.info("configuration_state", "written", "ConfigurationState updated",
            {{"key", key_}, {"result", status.result}});
  return {ReconcileResult::done(), true};
}

ReconcileResult StateWriter::ensure(bool cached) {
  if (cached) {
    return ReconcileResult::done();
  }
  auto r = api_.create(resources::kConfigurationStates, options_.namespace_, options_.object);
  if (!r && r.error().code != ErrorCode::AlreadyExists) {
    log_.warn("configuration_state", "create_failed", r.error().message, {{"key", key_}});
    return ReconcileResult::retry(r.error());
  }
  log_.info("configuration_state", "created", "ConfigurationState created", {{"key", key_}});
  return ReconcileResult::done();
}

}  // namespace ingot::k8s
