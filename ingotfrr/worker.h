// SPDX-License-Identifier: Apache-2.0
// Worker: ingot-frr's reconcile of one key, on the daemon's single worker thread.
//   "apply"  — select + merge the FRRConfigurations for this node (source.h) and hand the model
//              to frr/'s FrrEngine (compact shape, incremental; a merged model with raw text: its
//              whole frr-k8s-shaped file, FrrPort::applyFile); on a conversion error nothing is
//              applied (FRR keeps the last good configuration), on an apply error it is retried
//              with the engine's growing delay (1 s doubling to 60 s), from scratch.
//   "verify" — read FRR back (1 s after a delta, then every verify_interval), correct drift;
//              refresh the running configuration.
//   "status" — write FRRNodeState (retried when the write fails).
// Every failure is reported four ways: log, Warning Event on the Node (ConversionFailed,
// ReloadFailed, FRRConfigDrift), FRRNodeState and metrics.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "api/types.h"
#include "common/util/log.h"
#include "frr/cooldown.h"
#include "frr/engine.h"
#include "frr/port.h"
#include "frrgen/compact.h"
#include "ingotfrr/metrics.h"
#include "ingotfrr/node_state.h"
#include "ingotfrr/source.h"
#include "kube/clock.h"
#include "kube/controller.h"
#include "kube/events.h"
#include "kube/store.h"
#include "kube/workqueue.h"

namespace ingot::ingotfrr {

/// Keys of the work queue.
inline constexpr const char* kApplyKey = "apply";
inline constexpr const char* kVerifyKey = "verify";
inline constexpr const char* kStatusKey = "status";

/// Inputs are the informers' caches the worker reads.
struct Inputs {
  const k8s::Store<Entry>& configs;
  const k8s::Store<api::Secret>& secrets;
  const k8s::Store<api::Node>& nodes;
};

/// WorkerOptions: who we are and how often to read back.
struct WorkerOptions {
  std::string node;
  std::string namespace_;
  k8s::Duration verify_interval = std::chrono::seconds(30);  ///< 0 = never
  /// --bgp-debounce-timeout: the longest cool-down after an apply (frr::Cooldown).
  k8s::Duration debounce = std::chrono::milliseconds(200);
  /// clock times the applies (tests inject a fake); it must outlive the worker.
  const k8s::Clock* clock = &k8s::steadyClock();
  /// hostname goes into the rendered file of a full reload (frr-k8s writes the node's there).
  std::string hostname;
};

/// engineOptions: ingot-frr's timings and paths for FrrEngine (raw text as a whole file, an
/// unchanged model not handed to FRR, a retry from scratch, a delta read back after 1 s).
frr::EngineOptions engineOptions(const WorkerOptions& options);

/// Worker owns the reconcile state (last applied model, FRRNodeState content, failure counts).
class Worker {
 public:
  /// Every reference must outlive the worker.
  Worker(Inputs inputs,
         frr::FrrPort& frr,
         NodeStateWriter& state,
         k8s::WorkQueue& queue,
         k8s::EventSink& events,
         Metrics& metrics,
         log::Logger& logger,
         WorkerOptions options);

  /// reconcile handles one key (see the file comment).
  k8s::ReconcileResult reconcile(const std::string& key);

  /// changeDelay returns how long an input change seen now waits for its "apply": zero after
  /// the cool-down that follows each apply (three times the apply's cost, at least 20 ms, at most
  /// the debounce), else the rest of it. Thread-safe (the informers call it).
  k8s::Duration changeDelay() const;

 private:
  k8s::ReconcileResult applyDesired();
  /// logApplied logs an apply FRR took (raw: a whole file, no delta counts).
  void logApplied(const frr::FastApplyReport& report, size_t configs, bool raw);
  k8s::ReconcileResult verifyNow();
  k8s::ReconcileResult writeStatus();
  k8s::ReconcileResult conversionFailed(const Error& e);
  k8s::ReconcileResult applyFailed(const frr::Outcome& out);
  void applied(const frr::FastApplyReport& report);
  /// noteRejected records the sessions FRR refused in an apply (the engine left them out and
  /// applied the rest): lastReloadResult says so, and a change of them is a Warning Event.
  void noteRejected(const std::vector<frr::RejectedSession>& rejected);
  void refreshRunningConfig();
  void warn(const char* reason, const std::string& message);
  /// scheduleVerify queues "verify" for the engine's next read-back.
  void scheduleVerify();
  /// noteApplied starts the cool-down of an apply that began at start.
  void noteApplied(k8s::TimePoint start);

  Inputs in_;
  NodeStateWriter& state_;
  k8s::WorkQueue& queue_;
  k8s::EventSink& events_;
  Metrics& metrics_;
  log::Logger& log_;
  WorkerOptions options_;
  frr::FrrPort& frr_;
  frr::FrrEngine engine_;
  NodeStatus status_;
  std::string rejected_;  ///< the sessions FRR refused in the last apply ("" = none)
  int transient_failures_ = 0;
  int status_failures_ = 0;
  mutable std::mutex cooldown_mu_;
  frr::Cooldown cooldown_;  ///< guarded by cooldown_mu_
};

}  // namespace ingot::ingotfrr
