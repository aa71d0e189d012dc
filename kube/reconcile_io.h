// SPDX-License-Identifier: Apache-2.0
// What a daemon's reconciler reaches outside itself: the API server, the Event sink, its work
// queue, its logger and its clock. Both daemons' reconcilers take one ReconcileIo and keep it as
// their ReconcilerIo base, so the wiring is written once.
#pragma once

#include "common/util/log.h"
#include "kube/api_client.h"
#include "kube/clock.h"
#include "kube/events.h"
#include "kube/workqueue.h"

namespace ingot::k8s {

/// ReconcileIo names the collaborators of one reconciler; all must outlive it.
struct ReconcileIo {
  ApiClient& api;
  EventSink& events;
  WorkQueue& queue;
  log::Logger& log;
  Clock& clock = steadyClock();
};

/// ReconcilerIo is the base of a daemon's reconciler: its collaborators under the names the
/// reconciler's code uses.
class ReconcilerIo {
 protected:
  explicit ReconcilerIo(const ReconcileIo& io)
      : api_(io.api), events_(io.events), queue_(io.queue), log_(io.log), clock_(io.clock) {}

  ApiClient& api_;
  EventSink& events_;
  WorkQueue& queue_;
  log::Logger& log_;
  Clock& clock_;
};

}  // namespace ingot::k8s
