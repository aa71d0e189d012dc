// SPDX-License-Identifier: Apache-2.0
// ingot-agent: flags, wiring and signals only (docs/architecture.md). The work is done by the
// Manager (informers, queue, worker) and the Reconciler (agent/reconcile/reconciler.h).
#include <climits>
#include <memory>
#include <string>
#include <unistd.h>

#include "agent/backends/backend.h"
#include "agent/backends/backend_l2.h"
#include "agent/daemon/flags.h"
#include "agent/daemon/manager.h"
#include "agent/daemon/membership_source.h"
#include "agent/daemon/metrics.h"
#include "common/http/tls_settings.h"
#include "kube/shell.h"

namespace {

using namespace ingot;
using namespace ingot::agent;

std::string hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

/// memberMeta is the one place that builds what this agent advertises to the other members
/// (the Manager adds when it joined): its hold-down, and the MACs the responder answers from,
/// whose answers the other agents do not take for address conflicts.
MemberMeta memberMeta(const Flags& flags) {
  MemberMeta m;
  m.hold_down_ms = flags.l2_hold_down.count();
  m.macs = layer2Macs(flags.excludel2_path);
  return m;
}

ManagerOptions managerOptions(const Flags& flags,
                              api::OwnerReference owner,
                              MembershipSource* membership) {
  ManagerOptions o;
  o.membership = membership;
  o.member_meta = [&flags] { return memberMeta(flags); };
  auto& r = o.reconciler;
  r.node = flags.node_name;
  r.namespace_ = flags.namespace_;
  // Layer 2 only validates BGP objects as for frr-k8s: the same configuration stays valid once a
  // BGP mode is chosen.
  r.dialect = flags.bgp_mode == BgpMode::Frr ? config::Backend::Frr : config::Backend::FrrK8s;
  r.announce.lb_class = flags.lb_class;
  r.announce.ignore_exclude_lb = flags.ignore_exclude_lb;
  r.announce.drain = flags.drain;
  r.announce.weighted_ecmp = flags.weighted_ecmp;
  r.build.metallb_namespace = flags.namespace_;
  // frr mode resolves passwordSecret itself from the MetalLB namespace's Secrets.
  r.build.frrk8s_namespace =
      flags.bgp_mode == BgpMode::Frr ? flags.namespace_ : flags.frrk8s_namespace;
  r.build.secret_passthrough = flags.frrk8s_secret_passthrough;
  r.debounce = flags.bgp_debounce;
  r.frr_verify_interval = flags.frr_verify_interval;
  r.frr_full_reload = flags.frr_full_reload;
  r.hostname = hostname();
  r.owner = std::move(owner);
  o.watch_frr_configurations = flags.bgp_mode == BgpMode::FrrK8s;
  return o;
}

frr::FrrDriverOptions frrDriver(const Flags& flags, log::Logger& logger) {
  frr::FrrDriverOptions o;
  o.reload_script = flags.frr_reload_script;
  o.pathspace = flags.frr_pathspace;
  o.workdir = flags.frr_workdir;
  o.logger = &logger;
  return o;
}

/// backends registers the announcing backends of this node, one line per protocol.
BackendFactory backends(const Flags& flags, log::Logger& logger) {
  return [&flags, &logger](const BackendContext& context) {
    Backends out;
    switch (flags.bgp_mode) {
      case BgpMode::FrrK8s:
        out.push_back(std::make_unique<FrrK8sBackend>(context));
        break;
      case BgpMode::Frr:
        out.push_back(std::make_unique<LocalFrrBackend>(context, frrDriver(flags, logger)));
        break;
      case BgpMode::None:
        out.push_back(
            std::make_unique<NoBgpBackend>(std::string("the agent runs Layer 2 only (--bgp-mode=") +
                                           (flags.native_requested ? "native" : "none") +
                                           "), and Ingot has no BGP speaker of its own"));
        break;
    }
    out.push_back(std::make_unique<Layer2Backend>(
        context, startL2Responder(l2::ResponderOptions{}, flags.excludel2_path)));
    return out;
  };
}

void logStart(const Flags& flags, log::Logger& logger) {
  logger.info("main", "start", "ingot-agent starting",
              {{"node", flags.node_name},
               {"namespace", flags.namespace_},
               {"bgp_mode", std::string(bgpModeName(flags.bgp_mode))},
               {"frrk8s_namespace", flags.frrk8s_namespace},
               log::num("bgp_debounce_ms", flags.bgp_debounce.count()),
               log::num("l2_hold_down_ms", flags.l2_hold_down.count()),
               log::num("port", flags.port),
               log::num("health_probe_port", flags.health_probe_port)});
  if (flags.native_requested) {
    logger.warn("main", "native_mode",
                "MetalLB's native BGP mode is not implemented: running Layer 2 only; BGPPeers are "
                "reported, not served (use --bgp-mode=frr-k8s or frr for BGP)");
  }
}

/// Agent is the agent's Workload: memberlist (when configured), started before the Manager and
/// left gracefully before it stops, and the Manager.
class Agent final : public k8s::Workload {
 public:
  Agent(std::unique_ptr<MembershipSource> membership,
        const k8s::ShellContext& c,
        const Flags& flags,
        Metrics& metrics,
        log::Logger& logger)
      : membership_(std::move(membership)),
        manager_(c.api,
                 c.events,
                 metrics,
                 logger,
                 managerOptions(flags, c.owner, membership_.get()),
                 backends(flags, logger)) {}

  Result<void> start(const std::stop_token& stop) override { return manager_.start(stop); }

  void stop() override {
    manager_.drainBeforeStop();  // the sigterm drain trigger: withdraw first, sessions up
    if (membership_) {
      membership_->stop();  // graceful leave first (bounded: 1 s), as MetalLB
    }
    manager_.stop();  // the FRRConfiguration stays as last written, as MetalLB leaves it
  }

  bool ready() const override { return manager_.ready(); }

 private:
  std::unique_ptr<MembershipSource> membership_;
  Manager manager_;
};

int run(const Flags& flags, log::Logger& logger) {
  logStart(flags, logger);
  Metrics metrics(flags.node_name);
  k8s::ShellOptions o;
  o.name = "ingot-agent";
  o.component = "agent";
  o.namespace_ = flags.namespace_;
  o.pod_name = flags.pod_name;
  o.event_source = k8s::EventSource{"metallb-speaker", flags.node_name};
  o.health_address = "127.0.0.1";
  o.not_ready_message = "no configuration loaded and synced yet\n";
  o.ignored_flags = flags.ignored;
  o.secure_metrics = true;
  o.metrics_host = flags.node_name;
  // parseFlags checked the TLS flags.
  if (auto tls = http::parseTlsSettings(flags.tls_min_version, flags.tls_cipher_suites)) {
    o.metrics_tls = *tls;
  }
  return k8s::runShell(flags, o, metrics, logger,
                       [&](const k8s::ShellContext& c) -> Result<std::unique_ptr<k8s::Workload>> {
                         auto membership =
                             startMembership(flags.node_name, flags.memberlist, logger);
                         if (!membership) {
                           return membership.error();
                         }
                         return std::unique_ptr<k8s::Workload>(std::make_unique<Agent>(
                             std::move(*membership), c, flags, metrics, logger));
                       });
}

}  // namespace

int main(int argc, char** argv) {
  return k8s::daemonMain<Flags>(argc, argv, "ingot-agent", parseFlags, usage, run);
}
