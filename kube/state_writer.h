// SPDX-License-Identifier: Apache-2.0
// StateWriter: the one writer of a daemon's ConfigurationState (the controller's `controller`,
// the agent's `speaker-<node>`). The daemon decides the status; the writer creates the object when
// the cache does not hold it, patches its status when it differs from what the API server holds,
// and remembers each write (kube/write_overlay.h) until the cache shows it.
#pragma once

#include <atomic>
#include <string>

#include "api/types.h"
#include "common/util/log.h"
#include "kube/api_client.h"
#include "kube/clock.h"
#include "kube/controller.h"
#include "kube/store.h"
#include "kube/write_overlay.h"

namespace ingot::k8s {

/// StateWriterOptions name the object and how it is created.
struct StateWriterOptions {
  std::string namespace_;  ///< where the object lives
  std::string name;        ///< "controller" or "speaker-<node>"
  /// object is the body of the create (api: configurationStateObject of the daemon).
  std::string object;
  Duration overlay_ttl = std::chrono::seconds(60);
};

/// StateWrite is the outcome of StateWriter::write: the result, and whether an API write was
/// tried (false: the object already holds the status).
struct StateWrite {
  ReconcileResult result;
  bool attempted = false;
};

/// StateWriter writes one ConfigurationState's status. What it compares against is its own last
/// write until the cache shows it (or the overlay ttl ends), else the cached object: the status is
/// written only when it differs (api::sameConfigurationState). A missing object is created
/// first, unless a write the cache does not show yet says it exists. A write is forgotten (and
/// the object created again) when the daemon says the object was deleted (noteDeleted), when the
/// cache no longer holds an object it has held, or when a patch fails (NotFound: deleted
/// meanwhile). Not thread-safe except noteDeleted(): call write() from one worker thread.
class StateWriter {
 public:
  StateWriter(const Store<api::ConfigurationState>& states,
              ApiClient& api,
              log::Logger& logger,
              Clock& clock,
              StateWriterOptions options);

  /// write brings the object's status to status.
  StateWrite write(const api::ConfigurationStateStatus& status);

  /// noteDeleted tells that the informer saw the object deleted: the next write forgets what it
  /// wrote, which the cache may never have shown (a create and a delete in quick succession).
  /// Thread-safe.
  void noteDeleted() { deleted_.store(true); }

 private:
  /// ensure creates the object unless the cache holds it (AlreadyExists counts as created).
  ReconcileResult ensure(bool cached);

  const Store<api::ConfigurationState>& states_;
  ApiClient& api_;
  log::Logger& log_;
  Clock& clock_;
  StateWriterOptions options_;
  std::string key_;  ///< "namespace/name"
  WriteOverlay<api::ConfigurationStateStatus> written_;
  bool cached_once_ = false;  ///< the cache has held the object at least once
  std::atomic<bool> deleted_{false};
};

}  // namespace ingot::k8s
