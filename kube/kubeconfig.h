// SPDX-License-Identifier: Apache-2.0
// Finding the API server and credentials: kubeconfig files and in-cluster service accounts, in
// controller-runtime's order (--kubeconfig, $KUBECONFIG, in-cluster, ~/.kube/config).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/util/result.h"
#include "kube/client_config.h"

namespace ingot::k8s {

/// kServiceAccountDir is where the kubelet mounts the pod's service-account credentials.
inline constexpr std::string_view kServiceAccountDir =
    "/var/run/secrets/kubernetes.io/serviceaccount";

/// KubeconfigSource is one kubeconfig document and the directory its relative paths resolve in.
struct KubeconfigSource {
  std::string text;
  std::string base_dir;  ///< "" = current directory
  std::string name;      ///< the file name, used in error messages
};

/// parseKubeconfig resolves `context` (or current-context when empty) across the sources, merged
/// the way kubectl merges $KUBECONFIG: for every named cluster, user and context, and for
/// current-context, the first source that defines it wins. Supports cluster server,
/// certificate-authority(-data), insecure-skip-tls-verify (honoured, with a warning) and user
/// token, tokenFile, client-certificate(-data), client-key(-data). Errors name the missing or
/// invalid piece (context, cluster, user, field) and the source.
Result<ClientConfig> parseKubeconfig(const std::vector<KubeconfigSource>& sources,
                                     std::string_view context = {});

/// loadKubeconfig reads the files (a $KUBECONFIG list may name several; missing files are skipped
/// as kubectl does, but at least one must exist) and calls parseKubeconfig.
Result<ClientConfig> loadKubeconfig(const std::vector<std::string>& paths,
                                    std::string_view context = {});

/// InClusterEnv is the input of in-cluster discovery, injectable for tests.
struct InClusterEnv {
  std::string host;  ///< $KUBERNETES_SERVICE_HOST
  std::string port;  ///< $KUBERNETES_SERVICE_PORT
  std::string service_account_dir{kServiceAccountDir};
};

/// inClusterEnvFromProcess reads the environment variables.
InClusterEnv inClusterEnvFromProcess();

/// inClusterConfig builds the config of a pod: server https://host:port, CA <dir>/ca.crt, token
/// file <dir>/token (re-read when it rotates), namespace from <dir>/namespace ("default" when
/// absent). Errors name the missing variable or file.
Result<ClientConfig> inClusterConfig(const InClusterEnv& env);

/// LoadOptions select where loadClientConfig looks.
struct LoadOptions {
  std::string kubeconfig;      ///< --kubeconfig flag; "" = not given
  std::string context;         ///< --context; "" = current-context
  std::string kubeconfig_env;  ///< value of $KUBECONFIG (colon-separated)
  std::string home;            ///< $HOME, for ~/.kube/config
  InClusterEnv in_cluster;
};

/// loadOptionsFromProcess fills LoadOptions from the environment, with the given flags.
LoadOptions loadOptionsFromProcess(std::string kubeconfig_flag, std::string context_flag = {});

/// loadClientConfig tries, in order: the --kubeconfig file, $KUBECONFIG, in-cluster (when
/// KUBERNETES_SERVICE_HOST is set), ~/.kube/config. The error lists what was tried.
Result<ClientConfig> loadClientConfig(const LoadOptions& options);

}  // namespace ingot::k8s
