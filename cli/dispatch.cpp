// SPDX-License-Identifier: Apache-2.0
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/explain.h"
#include "cli/frrk8s.h"

namespace ingot::cli {
namespace {

constexpr const char* kUsage =
    "usage: ingotctl COMMAND [flags] [-f PATH...]\n"
    "\n"
    "Runs Ingot's own decision code on manifest files (files, directories, or - for stdin).\n"
    "\n"
    "commands:\n"
    "  validate   check manifests as MetalLB's webhooks and config parser would\n"
    "             [--backend frr-k8s|frr] [--output text|json] [--namespace NS]\n"
    "  plan       show the addresses the controller would assign and the L2 owner of each\n"
    "             [--lb-class X] [--output table|json] [--namespace NS] [--ignore-exclude-lb]\n"
    "  render     show what the agent on a node would configure for BGP\n"
    "             --node NODE [--format frrconfiguration|frr.conf] [--explain]\n"
    "             [--ignore-exclude-lb] [--lb-class X] [--frrk8s-namespace NS]\n"
    "             [--as-served: the FRRConfiguration as kubectl get -o yaml shows it]\n"
    "             [--backend frr-k8s|frr: with frr, --format frr.conf is the compact file\n"
    "             the agent applies in --bgp-mode frr]\n"
    "  explain    why a Service has its address and pool, and why each node does or does not\n"
    "             announce it (BGP and L2); every Node counts as live unless --dead-node names it\n"
    "             NAMESPACE/NAME [--output text|json] [--dead-node NODE]... [--lb-class X]\n"
    "             [--namespace NS] [--ignore-exclude-lb]\n"
    "             without -f: read the cluster (--kubeconfig PATH, $KUBECONFIG, in-cluster or\n"
    "             ~/.kube/config) and take liveness from the agent pods [--agent-selector SEL]\n"
    "  support-bundle  collect a redacted tar.gz for a bug report from the cluster (and FRR)\n"
    "             -o FILE.tar.gz [--kubeconfig PATH] [--namespace NS] [--frrk8s-namespace NS]\n"
    "             [--frr-pathspace P] [--metrics-port N]\n"
    "  frr-k8s    show the frr.conf frr-k8s would apply on a node from FRRConfigurations\n"
    "             --node NODE [--frrk8s-namespace NS] [--log-level LEVEL]\n"
    "  version    print the version and git revision (also --version)\n";

}  // namespace

int runMain(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (argv.size() < 2 || argv[1] == "help" || argv[1] == "--help" || argv[1] == "-h") {
    (argv.size() < 2 ? err : out) << kUsage;
    return argv.size() < 2 ? kExitUsage : kExitOk;
  }
  const std::vector<std::string> rest(argv.begin() + 2, argv.end());
  const std::string& command = argv[1];
  if (command == "validate") {
    return runValidate(rest, out, err);
  }
  if (command == "plan") {
    return runPlan(rest, out, err);
  }
  if (command == "render") {
    return runRender(rest, out, err);
  }
  if (command == "explain") {
    return runExplain(rest, out, err);
  }
  if (command == "support-bundle") {
    return runSupportBundle(rest, out, err);
  }
  if (command == "frr-k8s") {
    return runFrrK8s(rest, out, err);
  }
  err << "ingotctl: unknown command \"" << command << "\"\n" << kUsage;
  return kExitUsage;
}

}  // namespace ingot::cli
