// SPDX-License-Identifier: Apache-2.0
// `ingotctl support-bundle`: what a bug report about Ingot (or MetalLB) needs, read from the
// cluster and, on a node, from FRR, redacted (cli/redact.h), indexed and written as a tar.gz.
// Collection is best effort: every item that could not be read is recorded in index.json with
// the reason, and the bundle is still written.
#pragma once

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cli/bundle_archive.h"
#include "common/json/value.h"
#include "kube/api_client.h"

namespace ingot::cli {

/// BundleEntry is one line of the index: what was collected (or not), into which file, from
/// where, and why it failed or was skipped.
struct BundleEntry {
  std::string what;    ///< e.g. "metallb.io ipaddresspools", "metrics speaker-node1"
  std::string path;    ///< file in the bundle ("" when nothing was written)
  std::string source;  ///< e.g. "list", "apiserver-proxy", "direct", "vtysh"
  std::string status;  ///< "ok", "failed", "skipped"
  std::string error;   ///< why it failed or was skipped
  int64_t items = -1;  ///< objects in the file (lists only)
};

/// Bundle is what collection produced: files (not yet scrubbed), index entries, and the raw
/// sensitive objects the scrub reads its values from (never written).
struct Bundle {
  std::vector<BundleFile> files;
  std::vector<BundleEntry> entries;
  std::vector<json::Value> sensitive;

  /// add records a file and its index entry.
  void add(BundleEntry entry, std::string content);
  /// failed records an entry that produced no file.
  void failed(std::string what, std::string source, std::string status, std::string error);
};

/// BundleOptions are the command's flags.
struct BundleOptions {
  std::string metallb_namespace = "metallb-system";
  std::string frrk8s_namespace = "frr-k8s-system";
  std::string frr_pathspace;  ///< --frr-pathspace ("" = only FRR found on this host)
  bool frr_pathspace_given = false;
  int metrics_port = 7472;  ///< when an agent pod declares no metrics port
  std::string vtysh = "vtysh";
};

/// collectCluster reads the cluster's objects into bundle (redacted as they are added).
void collectCluster(k8s::ApiClient& client, const BundleOptions& options, Bundle& bundle);

/// collectMetrics reads each daemon pod's /metrics, through the API server's pod proxy or
/// directly from the pod IP. pods are the MetalLB namespace's Pods as listed.
void collectMetrics(k8s::ApiClient& client,
                    const std::vector<json::Value>& pods,
                    const BundleOptions& options,
                    Bundle& bundle);

/// collectFrr runs vtysh for the running config, `show bgp summary` and `show bfd peers` when
/// a pathspace was given or FRR runs on this host; otherwise records why it skipped.
void collectFrr(const BundleOptions& options, Bundle& bundle);

/// indexJson renders index.json: the cluster, the options, every entry, the redaction rules
/// and how many values the scrub replaced.
std::string indexJson(const Bundle& bundle,
                      const BundleOptions& options,
                      const std::string& cluster_source,
                      size_t scrubbed);

/// runSupportBundle: `support-bundle [--kubeconfig PATH] [--context C] [--namespace NS]
/// [--frrk8s-namespace NS] [--frr-pathspace P] [--metrics-port N] -o FILE.tar.gz`.
int runSupportBundle(const std::vector<std::string>& words, std::ostream& out, std::ostream& err);

}  // namespace ingot::cli
