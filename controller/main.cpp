// SPDX-License-Identifier: Apache-2.0
// ingot-controller: flags, wiring and signals only (docs/architecture.md). The work is done by the
// Manager (informers, queue, worker) and the Reconciler (controller/reconciler.h).
#include <memory>
#include <string>

#include "common/http/tls_settings.h"
#include "controller/flags.h"
#include "controller/manager.h"
#include "controller/metrics.h"
#include "controller/ml_secret.h"
#include "controller/webhook/webhooks.h"
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
  o.reconciler.unannounced_grace = std::chrono::seconds(flags.unannounced_grace_seconds);
  o.agent_labels = flags.agent_labels;
  return o;
}

void logStart(const Flags& flags, log::Logger& logger) {
  logger.info("main", "start", "ingot-controller starting",
              {{"namespace", flags.namespace_},
               {"lb_class", flags.lb_class},
               log::num("port", flags.port),
               log::num("health_probe_port", flags.health_probe_port)});
}

/// ControllerWorkload is the Manager (none with --webhook-mode=onlywebhook) and the webhooks
/// (none with --webhook-mode=disabled).
class ControllerWorkload final : public k8s::Workload {
 public:
  ControllerWorkload(std::unique_ptr<Manager> manager,
                     std::unique_ptr<Webhooks> hooks,
                     log::Logger& logger)
      : manager_(std::move(manager)), hooks_(std::move(hooks)), logger_(logger) {}

  Result<void> start(const std::stop_token& stop) override {
    if (manager_ == nullptr) {
      logger_.info("main", "only_webhook", "--webhook-mode=onlywebhook: no reconcilers run");
      return {};
    }
    return manager_->start(stop);
  }
  void stop() override {
    if (manager_ != nullptr) {
      manager_->stop();
    }
    if (hooks_ != nullptr) {
      hooks_->stop();
    }
  }
  bool ready() const override {
    return (hooks_ == nullptr || hooks_->ready()) && (manager_ == nullptr || manager_->ready());
  }
  std::string extraMetrics() const override {
    return hooks_ == nullptr ? std::string() : hooks_->renderMetrics();
  }

 private:
  std::unique_ptr<Manager> manager_;
  std::unique_ptr<Webhooks> hooks_;
  log::Logger& logger_;
};

/// start ensures the memberlist Secret when --ml-secret-name is set (as MetalLB: a failure here
/// stops the controller), starts the webhooks unless disabled and builds the Manager unless
/// --webhook-mode=onlywebhook.
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
  auto hooks = startWebhooks(flags, c.api, c.events, logger);
  if (!hooks) {
    return hooks.error();
  }
  std::unique_ptr<Manager> manager;
  if (flags.webhook.mode != WebhookMode::OnlyWebhook) {
    manager =
        std::make_unique<Manager>(c.api, c.events, metrics, logger, managerOptions(flags, c.owner));
  }
  return std::unique_ptr<k8s::Workload>(
      std::make_unique<ControllerWorkload>(std::move(manager), std::move(*hooks), logger));
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
  o.secure_metrics = true;
  o.metrics_host = "ingot-controller";
  // parseFlags checked the TLS flags; MetalLB applies them to the webhook and /metrics alike.
  if (auto tls =
          http::parseTlsSettings(flags.webhook.tls_min_version, flags.webhook.tls_cipher_suites)) {
    o.metrics_tls = *tls;
  }
  return k8s::runShell(flags, o, metrics, logger, [&](const k8s::ShellContext& c) {
    return start(flags, c, metrics, logger);
  });
}

}  // namespace

int main(int argc, char** argv) {
  return k8s::daemonMain<Flags>(argc, argv, "ingot-controller", parseFlags, usage, run);
}
