// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <vector>

namespace ingot::k8s {

/// ClientConfig is everything needed to reach and authenticate to an API server, as produced by
/// kubeconfig or in-cluster discovery (kube/kubeconfig.h) and consumed by the REST client.
/// Certificate and key material is PEM text ("..._data") or a file path ("..._file"); data wins.
struct ClientConfig {
  std::string server;  ///< "https://host:port" (http:// only for tests)
  std::string ca_file;
  std::string ca_data;
  bool insecure_skip_tls_verify = false;
  std::string token;       ///< static bearer token
  std::string token_file;  ///< re-read periodically (rotating service-account tokens)
  std::string client_certificate_file;
  std::string client_certificate_data;
  std::string client_key_file;
  std::string client_key_data;
  std::string default_namespace = "default";  ///< the context's or the pod's namespace
  std::string source;  ///< where this came from, for logs ("in-cluster", "kubeconfig ...")
  std::vector<std::string> warnings;  ///< things the caller should log (e.g. TLS verification off)
};

}  // namespace ingot::k8s
