// SPDX-License-Identifier: Apache-2.0
// Reading a live cluster for ingotctl (explain --kubeconfig, support-bundle): finding the API
// server as kubectl does, and list calls that return each item as a JSON tree with its
// apiVersion and kind set (a list's items carry neither).
#pragma once

#include <string>
#include <vector>

#include "common/json/value.h"
#include "common/util/result.h"
#include "kube/api_client.h"

namespace ingot::cli {

/// kLastAppliedAnnotation is where kubectl apply keeps the whole applied object (Secrets'
/// values included).
inline const std::string kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";

/// ClusterConnection is a client and where its configuration came from.
struct ClusterConnection {
  k8s::ApiClientPtr client;
  std::string source;                 ///< e.g. "kubeconfig /path" or "in-cluster"
  std::string server;                 ///< the API server's URL
  std::string token;                  ///< the static bearer token, if any (to redact it)
  std::vector<std::string> warnings;  ///< e.g. TLS verification off
};

/// connectCluster loads the configuration from --kubeconfig (kubeconfig_flag), $KUBECONFIG,
/// in-cluster, or ~/.kube/config, in that order, and builds the REST client (TLS verified
/// against the configured CA). The error names what was tried or what is wrong.
Result<ClusterConnection> connectCluster(const std::string& kubeconfig_flag,
                                         const std::string& context);

/// Kind names a resource to list and the apiVersion/kind its items get.
struct Kind {
  k8s::ResourceRef ref;
  std::string api_version;  ///< e.g. "metallb.io/v1beta1"
  std::string kind;         ///< e.g. "IPAddressPool"
};

/// metallbConfigKinds are the metallb.io kinds the config parser reads (IPAddressPool,
/// L2Advertisement, BGPAdvertisement, BGPPeer, BFDProfile, Community).
std::vector<Kind> metallbConfigKinds();

/// listObjects pages through ref in ns ("" = all namespaces, or cluster-scoped) and returns
/// every item with apiVersion and kind set.
Result<std::vector<json::Value>> listObjects(k8s::ApiClient& client,
                                             const Kind& kind,
                                             const std::string& ns,
                                             const k8s::ListOptions& options = {});

/// stringAt follows keys through nested objects and returns the string there ("" when any step
/// is missing or not an object, or the value is not a string).
std::string stringAt(const json::Value& v, const std::vector<std::string>& keys);

/// putMember sets key in an object, replacing an existing member of that name.
void putMember(json::Value& object, const std::string& key, json::Value value);

/// withoutMembers returns a copy of an object without the members named in drop.
json::Value withoutMembers(const json::Value& object, const std::vector<std::string>& drop);

/// memberAt is stringAt's companion: the value at keys, or nullptr.
const json::Value* memberAt(const json::Value& v, const std::vector<std::string>& keys);

}  // namespace ingot::cli
