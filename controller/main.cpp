// SPDX-License-Identifier: Apache-2.0
// ingot-controller: flags, wiring and signals only (docs/architecture.md). The work is done by the
// Manager (informers, queue, worker) and the Reconciler (controller/reconciler.h).
#include <memory>
#include <string>

#include "controller/flags.h"
#include "controller/manager.h"
#include "controller/metrics.h"
#include "controller/ml_secret.h"
#include "kube/shell.h"

namespace {

using namespace ingot;
using namespace ingot::controller;

constexpr size_t kEventQueueCapacity = 16384;

ManagerOptions managerOptions(const Flags& flags, api::OwnerReference owner) {
  ManagerOptions o;
  o.reconciler.namespace_ = flags.namespace_;
  o.reconciler.service.lb_class = flags.lb_class;
  o.reconciler.backend = flags.backend;
  o.reconciler.owner = std::move(owner);
  return o;
}

void logStart(const Flags& flags, log::Logger& logger) {
  logger.info("main", "start", "ingot-controller starting",
              {{"namespace", flags.namespace_},
               {"lb_class", flags.lb_class},
               log::num("port", flags.port),
               log::num("health_probe_port", flags.health_probe_port)});
}

/// start ensures the memberlist Secret when --ml-secret-name is set (as MetalLB: a failure here
/// stops the controller) and builds the Manager.
Result<std::unique_ptr<k8s::Workload>> start(const Flags& flags,
                                             const k8s::ShellContext& c,
                                             Metrics& metrics,
                                             log::Logger& logger) {
  if (!flags.ml_secret_name.empty()) {
    auto ml = ensureMemberlistSecret(c.api, flags.namespace_, flags.ml_secret_name,
                                     flags.deployment, logger);
    if (!ml) {
      return ml.error();
    }
  }
  return std::unique_ptr<k8s::Workload>(
      std::make_unique<Manager>(c.api, c.events, metrics, logger, managerOptions(flags, c.owner)));
}

int run(const Flags& flags, log::Logger& logger) {
  logStart(flags, logger);
  Metrics metrics;
  k8s::ShellOptions o;
  o.name = "ingot-controller";
  o.component = "controller";
  o.namespace_ = flags.namespace_;
  o.pod_name = flags.pod_name;
  o.event_source = k8s::EventSource{"metallb-controller", ""};
  // A burst of thousands of new Services yields one Event each; keep them rather than drop.
  o.event_queue_capacity = kEventQueueCapacity;
  o.not_ready_message = "the first full pass has not succeeded yet\n";
  o.ignored_flags = flags.ignored;
  return k8s::runShell(flags, o, metrics, logger, [&](const k8s::ShellContext& c) {
    return start(flags, c, metrics, logger);
  });
}

}  // namespace

int main(int argc, char** argv) {
  return k8s::daemonMain<Flags>(argc, argv, "ingot-controller", parseFlags, usage, run);
}
